/* clients.c: the client processes: forked, waited for, watched during the window (a dead or
 * stopped client, a fatal error one raised, a stall), and their reports gathered. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "link/ctl.h"
#include "run/run_priv.h"

int fork_clients(struct run *r)
{
	char err[300];
	int ret;

	const struct opts *o = r->fanout ? &r->local_o : r->o;
	int n = r->fanout && !r->local_part ? 0 : (int)o->clients;

	r->local = (struct client_group){.wl = r->wl, .o = o, .server = r->data,
					 .server_len = r->data_len, .token = r->token};
	ret = group_start(&r->local, n, r->ctl, err, sizeof(err));
	r->sh = r->local.sh;
	return ret ? run_fail(r, -ret, false, "%s", err) : 0;
}

int dead_client(struct run *r)
{
	return group_dead(&r->local);
}

int wait_ready(struct run *r)
{
	char err[300];
	int ret = group_wait_ready(&r->local, START_MS, &run_sig, err, sizeof(err));

	return ret ? run_fail(r, -ret, false, "%s", err) : 0;
}

/* A fatal data-path error a client raised: the run cannot go on, and the user must know why. */
const char *check_fatal(struct run *r)
{
	int e = atomic_load(&r->sh->fatal);

	if (!e)
		return NULL;
	r->failed = true;
	if (e == EADDRNOTAVAIL)
		snprintf(r->fatal, sizeof(r->fatal),
			 "connect() failed with EADDRNOTAVAIL after %ld connections: the client ran out "
			 "of local ports (TIME_WAIT holds them). Use --close server (the default) or "
			 "--close reset, or --src-addrs 16 to spread over more source addresses",
			 atomic_load(&r->sh->fatal_after));
	else
		snprintf(r->fatal, sizeof(r->fatal), "a client stopped the run: %s", strerror(e));
	return "a client hit a fatal error";
}

uint64_t progress_sum(const struct run *r)
{
	return group_progress(&r->local) + hosts_progress(r);
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
		if (ctl_send(r->ctl, CTL_MSG_PING, NULL, 0) == 0)
			r->pings++;
	}
}

void collect_clients(struct run *r)
{
	if (group_collect(&r->local, &r->res.client, r->res.lat, r->res.lat2, REPORT_MS)) {
		r->failed = true;
		mark_partial(r, "a client sent no result");
	}
}
