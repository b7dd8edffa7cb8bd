/* tcp_info_sum.h: a side's TCP_INFO summary over its connections (struct side_counters' ti_*
 * sums, transport/tcp_info.c reads them) as the JSON document's sides.*.tcp_info. */
#ifndef SB_TCP_INFO_SUM_H
#define SB_TCP_INFO_SUM_H

#include "measure/side.h"

struct cJSON;

/* tcp-crr reads TCP_INFO of one connection in this many of the window's (before its close,
 * counted in its system calls): one getsockopt each would add a call to every connection's
 * few. The persistent connections of tcp-stream and tcp-rr are each read once, at the end. */
#define CRR_TCP_INFO_EVERY 16

/* {connections, sample_every, rtt_us {min, mean, max}, rttvar_us {mean}, min_rtt_us {min,
 * mean}, cwnd {min, mean, max}, delivery_rate_bytes_per_s {mean, max}, retransmits}, or null
 * where no connection was read (caller frees). every: 1 in how many connections was read. */
struct cJSON *tcp_info_sum_json(const struct side_counters *c, int every);

#endif
