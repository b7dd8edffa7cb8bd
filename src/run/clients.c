/* clients.c: the client processes of this host: forked, waited for, watched during the window
 * (a dead client, a fatal error one raised), a stream's rate sampled from their bytes, and
 * their reports gathered. It uses the run's state (state.c) and nothing else of run/.
 */
#include <errno.h>
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

void collect_clients(struct run *r)
{
	if (group_collect(&r->local, &r->res.client, r->res.lat, r->res.lat2, REPORT_MS)) {
		r->failed = true;
		mark_partial(r, "a client sent no result");
	}
}

/* A stream's rate over the window: the local clients' bytes every step (see result.h). */
void series_begin(struct run *r, uint64_t t0)
{
	if (!r->wl->units || r->fanout || r->count_based)
		return;
	r->res.series_step_s = r->o->duration / 6000 > 0.1 ? r->o->duration / 6000 : 0.1;
	r->series_cap = (int)(r->o->duration / r->res.series_step_s) + 16;
	r->res.series_t = xcalloc((size_t)r->series_cap, sizeof(double));
	r->res.series_gbit = xcalloc((size_t)r->series_cap, sizeof(double));
	r->series_at = t0;
	r->series_bytes = group_bytes(&r->local);
}

void series_sample(struct run *r, uint64_t now)
{
	double dt = ns_to_s(now - r->series_at);

	if (!r->res.series_t || dt < r->res.series_step_s || r->res.nseries >= r->series_cap)
		return;
	uint64_t b = group_bytes(&r->local);

	if (b < r->series_bytes) { /* a count started again: no rate from it */
		r->series_at = now;
		r->series_bytes = b;
		return;
	}
	r->res.series_t[r->res.nseries] = ns_to_s(r->series_at - r->t_open) + dt / 2;
	r->res.series_gbit[r->res.nseries++] = (double)(b - r->series_bytes) * 8 / dt / 1e9;
	r->series_at = now;
	r->series_bytes = b;
}
