/* edges.h: what the coordinator reads at the measured window's edges (edges.c): the kernel's
 * counters, the machine's CPU and the ksoftirqd threads' ticks; and, from the two edges, the
 * run's kernel and machine figures. It reads and reckons; run.c decides when. Not for use
 * outside run/.
 */
#ifndef SB_RUN_EDGES_H
#define SB_RUN_EDGES_H

#include <stdbool.h>
#include <stdint.h>

#include "measure/kstat.h"
#include "run/state_priv.h"

/* The kernel's counters of the workload's protocol, plus the TcpExt ones that explain TCP
 * failures and the IP layer's byte counts (IpExt), which bulk workloads set beside theirs. */
struct kernel_read {
	struct snmp proto, ext, ip;
};

/* What the window's two edges read; cpu_ok and k_ok: every read of that kind succeeded. */
struct edges {
	bool v6; /* the data path's family: which counters */
	bool cpu_ok, k_ok;
	struct cpu_stat c0, c1; /* the machine's CPU */
	uint64_t ks0, ks1;	/* the ksoftirqd threads' ticks */
	struct kernel_read k0, k1;
};

/* Every counter of k at once. Whether all were read. */
bool edges_read_kernel(const struct workload *wl, bool v6, struct kernel_read *k);
/* A time-based window's edge: the protocol's counters first, nothing between them and the
 * edge at t; what the clients do until the read is the kernel's and not ours, so the time it
 * took is kept (kernel_check.read_after_edge_us) for anyone comparing the two counts. */
bool edges_read_at(const struct workload *wl, bool v6, struct kernel_read *k, uint64_t t,
		   double *lag_us);
/* The run's figures from the two edges: machine_ok and the machine's CPU and softirq time,
 * kernel_ok and the kernel's counters over the window. */
void edges_figures(struct run *r, const struct edges *e);

#endif
