/* clients.c: the client processes of this host: forked, waited for, watched during the window
 * (a dead client, a fatal error one raised), and their reports gathered. It uses the run's
 * state (state.c) and nothing else of run/.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "link/ctl.h"
#include "run/clients.h"

int fork_clients(struct run *r)
{
	char err[300];
	int ret;

	const struct opts *o = r->fanout ? &r->local_o : r->o;
	int n = r->fanout && !r->local_part ? 0 : (int)o->clients;

	r->local = (struct client_group){.wl = r->wl, .o = o, .server = r->data,
					 .server_len = r->data_len, .token = r->token};
	/* -i with latencies: a histogram per thread (tcp-rr: a flow each; tcp-crr: one per
	 * connection in flight) where the coordinator can read it. */
	if (r->o->interval > 0 && strcmp(r->wl->latency_label, "none"))
		r->local.live_per = (int)(o->flows > o->concurrency ? o->flows : o->concurrency) *
				    (o->rate ? 2 : 1); /* tcp-rr --rate: a sender and a receiver */
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
	int ret = group_wait_ready(&r->local, group_ready_ms(r->o, START_MS), &run_sig, err, sizeof(err));

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

double clients_drain(struct run *r, double bound_s)
{
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(bound_s * 1e9);

	atomic_store(&r->sh->drain_began, true);
	group_set_phase(&r->local, PH_DRAIN);
	while (atomic_load(&r->sh->drained) < atomic_load(&r->sh->drain_units) && now_ns() < end &&
	       !run_sig)
		poll(NULL, 0, 1);
	group_set_phase(&r->local, PH_STOP);
	return ns_to_s(now_ns() - t0);
}

void collect_clients(struct run *r)
{
	if (group_collect(&r->local, &r->res.client, r->res.lat, r->res.lat2, REPORT_MS)) {
		r->failed = true;
		mark_partial(r, "a client sent no result");
	}
}
