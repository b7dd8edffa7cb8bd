/* hist.h: log-linear latency histogram (HDR-style): fixed memory, O(1) record, mergeable.
 *
 * Values are nanoseconds. Below 256 every value has its own bucket; above, each power of two
 * is split into 128 buckets, so a bucket is at most 1/128 of its lowest value wide and the
 * midpoint we report is within 0.4% of any value in it. Values past HIST_MAX_NS are clamped
 * (and still counted; max stays exact).
 * Memory only.
 */
#ifndef SB_HIST_H
#define SB_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS 8
#define HIST_HALF (1u << (HIST_SUB_BITS - 1))
#define HIST_MAX_SHIFT 34 /* values up to 2^(34+8) ns, about 73 minutes */
#define HIST_BUCKETS ((HIST_MAX_SHIFT + 2) * HIST_HALF)

/* Censored values: requests that got no answer (lost, failed, or still unanswered when the
 * window's drain ended) are recorded at the time they waited, a lower bound of their latency,
 * and counted in censored; cens_min is the least of those waits. A percentile below cens_min is
 * exact (every value at or under it was answered, every censored one is truly above it); one at
 * or above it is "at least" (hist_at_least). */
struct hist {
	uint64_t count;
	uint64_t min, max;
	double sum;
	uint64_t censored, cens_min;
	uint64_t buckets[HIST_BUCKETS];
};

/* Empty the histogram. */
void hist_reset(struct hist *h);
/* Record one value in ns: O(1), no allocation. */
void hist_record(struct hist *h, uint64_t v);
/* Record one request that got no answer after waiting v ns (a lower bound). */
void hist_record_censored(struct hist *h, uint64_t v);
/* Is a value reported from h (a percentile, or max) only a lower bound? True when censored
 * values were recorded and v falls in or above the bucket of the least of them. */
bool hist_at_least(const struct hist *h, uint64_t v);
/* Add all of src into dst. */
void hist_merge(struct hist *dst, const struct hist *src);
/* Value at percentile p (0..100], as the midpoint of its bucket clamped to [min,max]; 0 if empty. */
uint64_t hist_percentile(const struct hist *h, double p);
/* Mean of the recorded values (exact), 0 if empty. */
double hist_mean(const struct hist *h);
/* As text, to carry between hosts (a client agent's RESULT): the counts (and " !C,M": the
 * censored count and their least wait, when there are any) and every bucket that holds values,
 * at most cap bytes (HIST_TEXT_MAX holds any histogram). Returns the length it needed (>= cap:
 * cut short). */
#define HIST_TEXT_MAX (80 + (size_t)HIST_BUCKETS * 26)
size_t hist_encode(const struct hist *h, char *out, size_t cap);
/* The most values a decoded histogram may hold: a year at 285 million a second, and the
 * histograms of --clients-on's 16 hosts and more merge without passing 2^64. */
#define HIST_COUNT_MAX (1ULL << 53)
#define HIST_COUNT_MAX_TEXT "2^53"
/* Take hist_encode's text back exactly: 0, or -EINVAL with *why (when why is not NULL) saying
 * what no recorded histogram has (the text comes from another host: untrusted): a negative or
 * overflowing number, a count past HIST_COUNT_MAX or not its buckets' sum, a sum not finite or
 * its mean outside min..max, min or max outside the buckets that hold values. */
int hist_decode(struct hist *h, const char *s, const char **why);
/* The middle of bucket i, ns (what a percentile reports for a value in it). */
uint64_t hist_bucket_mid(unsigned i);
/* Bucket index of a value, exposed for tests. */
unsigned hist_index(uint64_t v);

#endif
