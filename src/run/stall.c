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

/* This host's count of retransmitted TCP segments (machine-wide; -1 when the workload is not TCP,
 * its clients all run on other hosts, or the count cannot be read). Read at the PING and at the
 * stall's end only, off the data path. */
static int64_t retrans_now(const struct run *r)
{
	struct snmp k;

	if (strcmp(r->wl->snmp_proto, "Tcp") || (r->fanout && !r->local_part) ||
	    kstat_proto_read("Tcp", false, &k))
		return -1;
	return kstat_snmp_get(&k, "RetransSegs");
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
	int64_t rt;

	if (silent > s / 2)
		snprintf(r->stall_who, sizeof(r->stall_who), "the server side stalled: the serve "
			 "agent answered nothing for %.1f s", silent);
	else if (c >= 0)
		snprintf(r->stall_who, sizeof(r->stall_who), "the client side stalled: client %d is "
			 "stopped", c + 1);
	else if (r->stall_retrans >= 0 && (rt = retrans_now(r)) > r->stall_retrans)
		snprintf(r->stall_who, sizeof(r->stall_who), "the serve agent answered within %.1f s; "
			 "this host's kernel retransmitted %" PRId64 " TCP segments meanwhile "
			 "(RetransSegs): lost packets (a lost SYN waits 1 s, two in a row 3 s)",
			 silent, rt - r->stall_retrans);
	else
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
		r->stall_retrans = retrans_now(r);
		if (ctl_send(r->ctl, CTL_MSG_PING, NULL, 0) == 0)
			r->pings++;
	}
}
