/* hist.c: see hist.h. */
#include "measure/hist.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hist_reset(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned hist_index(uint64_t v)
{
	if (v < (1u << HIST_SUB_BITS))
		return (unsigned)v;
	unsigned shift = (unsigned)(63 - __builtin_clzll(v)) - HIST_SUB_BITS + 1;

	if (shift > HIST_MAX_SHIFT)
		return HIST_BUCKETS - 1;
	return shift * HIST_HALF + (unsigned)(v >> shift);
}

/* Lowest value and width of bucket i. */
static void bucket_range(unsigned i, uint64_t *lo, uint64_t *width)
{
	if (i < (1u << HIST_SUB_BITS)) {
		*lo = i;
		*width = 1;
		return;
	}
	/* i = shift * HALF + sub, with sub = v >> shift in [HALF, 2 * HALF). */
	unsigned shift = i / HIST_HALF - 1;
	uint64_t sub = i - shift * HIST_HALF;

	*lo = sub << shift;
	*width = 1ULL << shift;
}

void hist_record(struct hist *h, uint64_t v)
{
	h->buckets[hist_index(v)]++;
	h->count++;
	h->sum += (double)v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_record_censored(struct hist *h, uint64_t v)
{
	hist_record(h, v);
	if (!h->censored || v < h->cens_min)
		h->cens_min = v;
	h->censored++;
}

bool hist_at_least(const struct hist *h, uint64_t v)
{
	return h->censored && hist_index(v) >= hist_index(h->cens_min);
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	if (src->censored && (!dst->censored || src->cens_min < dst->cens_min))
		dst->cens_min = src->cens_min;
	dst->censored += src->censored;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	if (!h->count)
		return 0;
	if (p >= 100.0)
		return h->max;
	uint64_t rank = (uint64_t)(p / 100.0 * (double)h->count + 0.999999999);
	uint64_t seen = 0;

	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen < rank)
			continue;
		uint64_t lo, width, v;

		bucket_range(i, &lo, &width);
		v = lo + width / 2;
		if (v < h->min)
			v = h->min;
		if (v > h->max)
			v = h->max;
		return v;
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? h->sum / (double)h->count : 0.0;
}

#define SYNTAX "not a latency histogram (COUNT MIN MAX SUM [!CENSORED,LEAST] GAP:COUNT...)"

/* "count min max sum" and then " GAP:COUNT" for each bucket that holds values, GAP being its
 * index less the previous one's (the first: its index). */
size_t hist_encode(const struct hist *h, char *out, size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "%llu %llu %llu %.17g", (unsigned long long)h->count,
				    (unsigned long long)h->min, (unsigned long long)h->max, h->sum);
	unsigned last = 0;

	if (h->censored && n < cap)
		n += (size_t)snprintf(out + n, cap - n, " !%llu,%llu", (unsigned long long)h->censored,
				      (unsigned long long)h->cens_min);
	for (unsigned i = 0; i < HIST_BUCKETS && n < cap; i++) {
		if (!h->buckets[i])
			continue;
		n += (size_t)snprintf(out + n, cap - n, " %u:%llu", i - last,
				      (unsigned long long)h->buckets[i]);
		last = i;
	}
	return n;
}

/* One decimal number at *s, after exactly one space unless first: digits only (strtoull would
 * take a sign, "-1" as 2^64 - 1, and spaces) that fit 64 bits. NULL, or why not. */
static const char *take_u64(const char **s, bool first, uint64_t *v)
{
	const char *p = *s + !first;
	char *end;

	if (!first && **s != ' ')
		return SYNTAX;
	if (*p < '0' || *p > '9')
		return *p == '-' ? "a negative number (counts and latencies are not)" : SYNTAX;
	errno = 0;
	*v = strtoull(p, &end, 10);
	if (errno == ERANGE)
		return "a number past 2^64 - 1";
	*s = end;
	return NULL;
}

/* "COUNT MIN MAX SUM": the numbers, and the sum finite and not negative. NULL, or why not. */
static const char *take_head(struct hist *h, const char **s)
{
	const char *why;
	char *end;

	if ((why = take_u64(s, true, &h->count)) || (why = take_u64(s, false, &h->min)) ||
	    (why = take_u64(s, false, &h->max)))
		return why;
	if (**s != ' ' || (h->sum = strtod(*s + 1, &end), end == *s + 1))
		return SYNTAX;
	*s = end;
	if (signbit(h->sum))
		return "a negative number (counts and latencies are not)";
	if (!isfinite(h->sum))
		return "a sum that is not a finite number";
	if (h->count > HIST_COUNT_MAX)
		return "more values than a histogram may hold (" HIST_COUNT_MAX_TEXT ")";
	return NULL;
}

/* " !CENSORED,LEAST" when there: NULL, or why not. */
static const char *take_censored(struct hist *h, const char **s)
{
	const char *why;

	if ((*s)[0] != ' ' || (*s)[1] != '!')
		return NULL;
	*s += 2;
	if ((why = take_u64(s, true, &h->censored)))
		return why;
	if (**s != ',')
		return SYNTAX;
	*s += 1;
	if ((why = take_u64(s, true, &h->cens_min)))
		return why;
	if (!h->censored || h->censored > h->count)
		return "a censored count of none or above the count";
	return NULL;
}

/* " GAP:COUNT"...: each bucket's index less the previous one's, every sum checked before it is
 * made (a gap or a count near 2^64 would wrap around to a bucket or a total that passes).
 * NULL, or why not. */
static const char *take_buckets(struct hist *h, const char *s)
{
	uint64_t at = 0, total = 0, gap, c;
	const char *why;

	for (bool first = true; *s; first = false) {
		if ((why = take_u64(&s, false, &gap)))
			return why;
		if (*s != ':')
			return SYNTAX;
		s++;
		if ((why = take_u64(&s, true, &c)))
			return why;
		if (!first && gap == 0)
			return "a bucket given twice";
		if (gap >= HIST_BUCKETS - at)
			return "a bucket past the last";
		if (c > h->count - total)
			return "buckets that hold more values than the count";
		at += gap;
		h->buckets[at] = c;
		total += c;
	}
	return total != h->count ? "bucket counts that do not add up to the count" : NULL;
}

/* The figures agree with the buckets, as every histogram recorded has them: min and max in the
 * first and last buckets that hold values, the mean between them (within 0.1%: a sum of values
 * in doubles is that close for 10^12 of them), the censored values where their least wait
 * says. NULL, or why not. */
static const char *consistent(const struct hist *h)
{
	unsigned lo = 0, hi = HIST_BUCKETS - 1;
	uint64_t above = 0;

	if (!h->count)
		return h->sum ? "a sum of values with none counted" : NULL;
	if (h->min > h->max)
		return "a least value above the greatest";
	while (!h->buckets[lo])
		lo++;
	while (!h->buckets[hi])
		hi--;
	if (hist_index(h->min) != lo || hist_index(h->max) != hi)
		return "a least or greatest value outside the buckets that hold values";
	if (h->sum < (double)h->min * (double)h->count * (1 - 1e-3) ||
	    h->sum > (double)h->max * (double)h->count * (1 + 1e-3))
		return "a sum whose mean is not between the least and greatest values";
	if (h->censored && (h->cens_min < h->min || h->cens_min > h->max))
		return "a least censored wait outside the least and greatest values";
	if (!h->censored)
		return NULL;
	for (unsigned i = hist_index(h->cens_min); i < HIST_BUCKETS; i++)
		above += h->buckets[i];
	/* Else a forged text marks exact percentiles that are not. */
	if (above < h->censored)
		return "fewer values at or above the least censored wait than were censored";
	return NULL;
}

int hist_decode(struct hist *h, const char *s, const char **why)
{
	const char *w;

	hist_reset(h);
	if (!(w = take_head(h, &s)) && !(w = take_censored(h, &s)) && !(w = take_buckets(h, s)))
		w = consistent(h);
	if (why)
		*why = w;
	if (w) {
		hist_reset(h);
		return -EINVAL;
	}
	if (!h->count)
		h->min = UINT64_MAX, h->max = 0;
	return 0;
}

uint64_t hist_bucket_mid(unsigned i)
{
	uint64_t lo, width;

	bucket_range(i < HIST_BUCKETS ? i : HIST_BUCKETS - 1, &lo, &width);
	return lo + width / 2;
}
