/* tcp_info_sum.h: a side's TCP_INFO summary over its connections (struct side_counters' ti_*
 * sums, transport/tcp_info.c reads them) as the JSON document's sides.*.tcp_info. */
#ifndef SB_TCP_INFO_SUM_H
#define SB_TCP_INFO_SUM_H

#include "measure/side.h"

struct cJSON;

/* tcp-crr reads TCP_INFO of one connection in this many of the window's, on each side, each
 * thread of its own (before its close, counted in its system calls): one getsockopt each
 * would add a call to every connection's few. The persistent connections of tcp-stream and
 * tcp-rr are each read once, at the end. */
#define CRR_TCP_INFO_EVERY 16

/* {connections, sample_every, rtt_us {min, mean, max}, rttvar_us {mean}, min_rtt_us {min,
 * mean}, cwnd {min, mean, max}, delivery_rate_bytes_per_s {mean, max}, retransmits}, or null
 * where no connection was read (caller frees). every: 1 in how many connections was read.
 * Where d (may be NULL) holds every connection read, rtt_us, min_rtt_us and cwnd add p50,
 * p90, p99 over the connections (min_rtt_us its max too). */
struct cJSON *tcp_info_sum_json(const struct side_counters *c, const struct tcp_info_dist *d,
				int every);
/* d as the member "tcp_info_dist" of an agent's RESULT (none when d is empty), and back into
 * d (emptied first; a member missing or not one leaves it empty: no percentiles). */
void tcp_info_sum_put_dist(struct cJSON *j, const struct tcp_info_dist *d);
void tcp_info_sum_get_dist(const struct cJSON *j, struct tcp_info_dist *d);

#endif
