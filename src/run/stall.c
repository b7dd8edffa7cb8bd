/* stall.c: the stall watch over the window: no progress on any host for a while, then a PING
 * to the agent, and when the progress comes back (or the window ends), which side stalled. It
 * reads the clients' progress on this host (workload/group.h) and on the client hosts
 * (fanout.c), and the run's state; only run.c calls it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "measure/kstat.h"
#include "link/ctl.h"
#include "run/fanout.h"
#include "run/stall.h"

uint64_t progress_sum(const struct run *r)
{
	return group_progress(&r->local) + hosts_progress(r);
}

/* This host's (this namespace's) counts of retransmitted TCP segments and of listen queue
 * overflows, every socket's: -1 each when the workload is not TCP, its clients all run on other
 * hosts, or the count cannot be read. Read at the PING and at the stall's end only, off the data
 * path. */
static void tcp_trouble(const struct run *r, int64_t out[2])
{
	struct snmp k;

	out[0] = out[1] = -1;
	if (strcmp(r->wl->snmp_proto, "Tcp") || (r->fanout && !r->local_part))
		return;
	if (!kstat_proto_read("Tcp", false, &k))
		out[0] = kstat_snmp_get(&k, "RetransSegs");
	if (!kstat_snmp_read("/proc/net/netstat", "TcpExt", &k))
		out[1] = kstat_snmp_get(&k, "ListenOverflows");
}

/* What this host's TCP counters say of a stall the agent answered through, into r->stall_who;
 * false when they say nothing. A full listen queue here (a local server that stopped accepting)
 * comes first: it makes the SYN retransmits too. */
static bool stall_by_counters(struct run *r, double silent)
{
	int64_t now[2], *at = r->stall_tcp;

	if (at[0] < 0 && at[1] < 0)
		return false;
	tcp_trouble(r, now);
	if (at[1] >= 0 && now[1] > at[1])
		snprintf(r->stall_who, sizeof(r->stall_who), "the serve agent answered within %.1f s; "
			 "this host's listen queue overflowed %" PRId64 " times meanwhile "
			 "(ListenOverflows): the server stopped accepting connections", silent,
			 now[1] - at[1]);
	else if (at[0] >= 0 && now[0] > at[0])
		snprintf(r->stall_who, sizeof(r->stall_who), "the serve agent answered within %.1f s; "
			 "this host retransmitted %" PRId64 " TCP segments meanwhile (RetransSegs, "
			 "all its sockets): lost packets, or a server host that stopped accepting (a "
			 "SYN lost once waits 1 s, twice 3 s)", silent, now[0] - at[0]);
	else
		return false;
	return true;
}

/* A stall ended (or the window did) at `now`: keep it if it is the longest past the threshold,
 * with the side that made no progress. */
void stall_end(struct run *r, uint64_t now)
{
	double s = ns_to_s(now - r->last_progress);

	if (!r->ping_at || s < STALL_S || s <= r->stall_s)
		return;
	r->stall_s = s;
	/* The agent's control thread answers at once unless its process is stopped. */
	double silent = ns_to_s((r->pong_at > r->ping_at ? r->pong_at : now) - r->ping_at);
	int c = group_stopped(&r->local);

	if (silent > s / 2)
		snprintf(r->stall_who, sizeof(r->stall_who), "the server side stalled: the serve "
			 "agent answered nothing for %.1f s", silent);
	else if (c >= 0)
		snprintf(r->stall_who, sizeof(r->stall_who), "the client side stalled: client %d is "
			 "stopped", c + 1);
	else if (!stall_by_counters(r, silent))
		snprintf(r->stall_who, sizeof(r->stall_who), "the serve agent answered within %.1f s, "
			 "so the data path or the clients stalled", silent);
}

/* Each step of the window: progress, or a stall to time and explain. */
void stall_watch(struct run *r)
{
	uint64_t now = now_ns(), sum = progress_sum(r);

	if (sum != r->last_sum) {
		stall_end(r, now);
		r->last_sum = sum;
		r->last_progress = now;
		r->ping_at = 0;
		return;
	}
	if (!r->ping_at && now - r->last_progress > STALL_PING_MS * 1000000ULL) {
		r->ping_at = now;
		r->pong_at = 0;
		tcp_trouble(r, r->stall_tcp);
		if (ctl_send(r->ctl, CTL_MSG_PING, NULL, 0) == 0)
			r->pings++;
	}
}
