/* interval.h: interval reports (-i): what the coordinator reads of the clients at each edge
 * of an interval (a snapshot) and one interval made of two of them. The clients' histograms
 * only grow, so an interval's latencies are the later snapshot's counts less the earlier's,
 * bucket by bucket. Memory only: the readers of /proc and of the shared memory are above.
 */
#ifndef SB_INTERVAL_H
#define SB_INTERVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "measure/hist.h"
#include "measure/kstat.h"

/* What the coordinator read at one edge (cumulative since the clients started). */
struct ivl_snap {
	uint64_t t_ns;	    /* when (CLOCK_MONOTONIC) */
	double units;	    /* the workload's units the local clients counted */
	bool has_lat;	    /* lat holds the clients' histograms summed */
	struct hist lat;    /* (buckets, count, min, max; sum not kept) */
	uint64_t client_ticks, server_ticks; /* user + system, clock ticks */
	bool server_ok;	    /* the server's process was read (a local agent) */
	bool machine_ok;
	struct cpu_stat machine;
	bool kernel_ok;
	uint64_t retrans, udp_drops; /* RetransSegs, Udp InErrors: machine-wide */
};

/* One interval, as JSON `intervals` and the text lines show it. NAN: not known. */
struct interval {
	double t_s, len_s;  /* end since the window opened; length */
	double units, rate; /* units in it, per second */
	double samples;	    /* latency samples in it (NAN: a stream) */
	double p50_us, p99_us;
	bool p50_at_least, p99_at_least; /* lower bounds: their rank among unanswered ones */
	double unanswered;  /* requests found unanswered (or failed) in it, in the samples */
	double cpu_client_pct, cpu_server_pct; /* user + system, percent of one CPU */
	double machine_busy_pct;	       /* all CPUs, percent of their time */
	double retransmits, udp_drops;	       /* kernel, machine-wide (NAN: other protocol) */
};

/* Sum n live histograms into sum (count = the sum of its buckets; min and max over theirs).
 * They are written meanwhile by their clients with plain stores: each bucket is read once
 * with a relaxed load, so a record in flight lands in this snapshot or the next, never both,
 * and a later snapshot never holds less in a bucket than an earlier one. */
void ivl_hist_read(struct hist *sum, const struct hist *const *live, int n);
/* d = cur - prev, bucket by bucket (a bucket that went down counts 0); d's count is the sum
 * of its buckets, its min and max cur's (so a percentile stays inside what was measured). */
void ivl_hist_diff(struct hist *d, const struct hist *cur, const struct hist *prev);
/* What every interval of a run is made with. */
struct ivl_run {
	uint64_t t_open;   /* the window's start */
	double hz;	   /* the clock ticks per second of the CPU counts */
	const char *proto; /* "Tcp" or "Udp" (which kernel counter applies) */
	struct hist *tmp;  /* scratch for the histogram difference */
};
/* The interval from a to b. */
void ivl_make(struct interval *iv, const struct ivl_snap *a, const struct ivl_snap *b,
	      const struct ivl_run *run);

#endif
