/* tcp_info_dist.h: how a side's sampled tcp-crr connections' TCP_INFO spread (rtt, min_rtt,
 * cwnd), for percentiles over connections: a small log-linear histogram each, fixed memory,
 * O(1) record, mergeable like the side's counters, carried as text from an agent.
 *
 * hist.h's latency histogram would do the same at 37 KiB apiece (nanoseconds to an hour at
 * 0.4%); these values are whole microseconds and segments, and three of them sit in every
 * client thread, server thread and side result, so they are coarser and smaller: below 64 a
 * bucket per value, above each power of two split into 32 (a bucket is at most 1/32 of its
 * lowest value wide: a percentile, the middle of its bucket, is within 1.6% of the value),
 * up to 2^32 - 1 (TCP_INFO's fields are 32 bits). 3.5 KiB each. Memory only. */
#ifndef SB_TCP_INFO_DIST_H
#define SB_TCP_INFO_DIST_H

#include <stddef.h>
#include <stdint.h>

#define TCP_INFO_DIST_EXACT 64u /* values below: a bucket each */
#define TCP_INFO_DIST_SUB 32u	/* above: buckets per power of two */
#define TCP_INFO_DIST_BUCKETS (TCP_INFO_DIST_EXACT + 26 * TCP_INFO_DIST_SUB) /* 2^6 .. 2^32 */

/* All zero is empty (a calloc'd one is ready). */
struct tcp_info_hist {
	uint32_t count, min, max;
	uint32_t b[TCP_INFO_DIST_BUCKETS];
};

/* The figures whose spread is kept, in this order. */
enum tcp_info_fig { TI_RTT, TI_MIN_RTT, TI_CWND, TI_FIGS };

struct tcp_info_dist {
	struct tcp_info_hist h[TI_FIGS];
};

/* Names of the figures, as the JSON's: "rtt_us", "min_rtt_us", "cwnd". */
extern const char *const tcp_info_dist_names[TI_FIGS];

/* Take one connection's figures. */
void tcp_info_dist_record(struct tcp_info_dist *d, uint32_t rtt_us, uint32_t min_rtt_us,
			  uint32_t cwnd);
/* Add all of src into dst. */
void tcp_info_dist_merge(struct tcp_info_dist *dst, const struct tcp_info_dist *src);
/* Connections taken (each figure has them all). */
uint32_t tcp_info_dist_count(const struct tcp_info_dist *d);
/* Value at percentile p (0..100]: the middle of its bucket clamped to [min, max]; 0 if empty. */
uint32_t tcp_info_dist_pct(const struct tcp_info_hist *h, double p);
/* Bucket index of a value, exposed for tests. */
unsigned tcp_info_dist_index(uint32_t v);
/* As text for an agent's RESULT ("count min max GAP:COUNT ..." per figure, ";" between them),
 * at most cap bytes (TCP_INFO_DIST_TEXT_MAX holds any). Returns the length it needed.
 * tcp_info_dist_decode takes it back exactly: 0, or -EINVAL for text that is not one. */
#define TCP_INFO_DIST_TEXT_MAX ((size_t)TI_FIGS * (40 + TCP_INFO_DIST_BUCKETS * 22))
size_t tcp_info_dist_encode(const struct tcp_info_dist *d, char *out, size_t cap);
int tcp_info_dist_decode(struct tcp_info_dist *d, const char *s);

#endif
