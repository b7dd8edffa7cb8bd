/* sampler.c: the clients' running counts read during the window, one mechanism for two
 * outputs: a stream's rate series (every step: the local clients' payload bytes) and the
 * interval reports of -i (at each edge a snapshot: the units, the latency histograms the
 * clients record in shared memory, the CPU of the clients, the server and the machine, and
 * the kernel's counters; an interval is the difference of two, measure/interval.c). It uses
 * the run's state (state.c) and the clients' group; only run.c calls it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "measure/interval.h"
#include "report/out.h"
#include "run/sampler.h"

struct sampler {
	/* the rate series: its last point's time and bytes */
	uint64_t series_at, series_bytes;
	int series_cap;
	/* the intervals */
	bool on, closed;
	uint64_t step_ns, next_edge;
	struct ivl_snap *prev, *cur;
	struct hist *tmp;
	const struct hist **live;
	int nlive;
	int cap;
	bool v6;
};

static void series_begin(struct run *r, struct sampler *s, uint64_t t0)
{
	if (!r->wl->units || r->fanout || r->count_based)
		return;
	r->res.series_step_s = r->o->duration / 6000 > 0.1 ? r->o->duration / 6000 : 0.1;
	s->series_cap = (int)(r->o->duration / r->res.series_step_s) + 16;
	r->res.series_t = xcalloc((size_t)s->series_cap, sizeof(double));
	r->res.series_gbit = xcalloc((size_t)s->series_cap, sizeof(double));
	(void)t0;
	s->series_bytes = group_bytes(&r->local);
	s->series_at = now_ns(); /* the time of that count, as every point's (series_sample) */
}

static void series_sample(struct run *r, struct sampler *s, uint64_t now, uint64_t b)
{
	double dt = ns_to_s(now - s->series_at);

	if (!r->res.series_t || dt < r->res.series_step_s || r->res.nseries >= s->series_cap)
		return;
	if (b < s->series_bytes) { /* a count started again: no rate from it */
		s->series_at = now;
		s->series_bytes = b;
		return;
	}
	r->res.series_t[r->res.nseries] = ns_to_s(s->series_at - r->t_open) + dt / 2;
	r->res.series_gbit[r->res.nseries++] = (double)(b - s->series_bytes) * 8 / dt / 1e9;
	s->series_at = now;
	s->series_bytes = b;
}

static double live_units(const struct run *r)
{
	uint64_t u = group_units(&r->local);

	return r->wl->live_units ? r->wl->live_units(r->o, u, group_bytes(&r->local)) : (double)u;
}

/* The counts (units, latencies) of a snapshot. */
static void snap_counts(struct run *r, struct sampler *s, struct ivl_snap *x)
{
	x->units = live_units(r);
	x->has_lat = r->local.live_per > 0;
	if (x->has_lat) {
		int n = group_live_hists(&r->local, s->live, s->nlive);

		ivl_hist_read(&x->lat, s->live, n);
	}
}

/* The CPU and the kernel's counters of a snapshot. */
static void snap_cpu(struct run *r, struct sampler *s, struct ivl_snap *x)
{
	struct snmp k;

	x->client_ticks = group_cpu_ticks(&r->local);
	x->server_ok = r->server_pid > 0 &&
		       kstat_task_ticks((int)r->server_pid, NULL, 0, &x->server_ticks);
	x->machine_ok = kstat_cpu_read(NULL, &x->machine) == 0;
	x->kernel_ok = kstat_proto_read(r->wl->snmp_proto, s->v6, &k) == 0;
	if (x->kernel_ok) {
		int64_t rt = kstat_snmp_get(&k, "RetransSegs"), dr = kstat_snmp_get(&k, "InErrors");

		x->retrans = rt > 0 ? (uint64_t)rt : 0;
		x->udp_drops = dr > 0 ? (uint64_t)dr : 0;
	}
}

static void intervals_begin(struct run *r, struct sampler *s, uint64_t t0)
{
	if (r->o->interval <= 0 || r->count_based)
		return;
	if (!r->local.n) {
		out_intervals_none(r->fanout ? "no client runs on this host (--clients-on without "
					       "local): its intervals would be guesses"
					     : "no client runs on this host");
		return;
	}
	s->on = true;
	s->step_ns = (uint64_t)(r->o->interval * 1e9);
	s->next_edge = t0 + s->step_ns;
	s->cap = (int)(r->o->duration / r->o->interval) + 4;
	s->prev = xcalloc(1, sizeof(*s->prev));
	s->cur = xcalloc(1, sizeof(*s->cur));
	s->tmp = xmalloc(sizeof(*s->tmp));
	s->nlive = r->local.n * (r->local.live_per > 1 ? r->local.live_per : 1);
	s->live = xcalloc((size_t)s->nlive, sizeof(*s->live));
	s->v6 = r->data.ss_family == AF_INET6;
	r->res.intervals = xcalloc((size_t)s->cap, sizeof(*r->res.intervals));
	snprintf(r->res.intervals_scope, sizeof(r->res.intervals_scope), "%s",
		 r->fanout ? "this host's clients" : "all clients");
	/* Nothing is counted before the window: its opening edge is all zeros but the CPU. */
	s->prev->t_ns = t0;
	s->prev->has_lat = r->local.live_per > 0;
	hist_reset(&s->prev->lat);
	snap_cpu(r, s, s->prev);
}

static void swap(struct sampler *s)
{
	struct ivl_snap *t = s->prev;

	s->prev = s->cur;
	s->cur = t;
}

/* The interval from the last edge to s->cur, into the result, printed. */
static void add_interval(struct run *r, struct sampler *s)
{
	struct ivl_run ivl = {
		.t_open = r->t_open,
		.hz = (double)sysconf(_SC_CLK_TCK),
		.proto = r->wl->snmp_proto,
		.tmp = s->tmp,
	};

	ivl_make(&r->res.intervals[r->res.nintervals++], s->prev, s->cur, &ivl);
	out_interval(&r->res, r->res.nintervals - 1);
}

/* An edge at `now`: the interval since the last one, printed. */
static void edge(struct run *r, struct sampler *s, uint64_t now)
{
	if (r->res.nintervals >= s->cap)
		return;
	(void)now;
	s->cur->t_ns = now_ns(); /* the time of the counts read next */
	snap_counts(r, s, s->cur);
	snap_cpu(r, s, s->cur);
	add_interval(r, s);
	swap(s);
}

void sampler_begin(struct run *r, uint64_t t0)
{
	struct sampler *s = xcalloc(1, sizeof(*s));

	r->sampler = s;
	series_begin(r, s, t0);
	intervals_begin(r, s, t0);
}

void sampler_tick(struct run *r, uint64_t now)
{
	struct sampler *s = r->sampler;

	if (!s)
		return;
	uint64_t b = group_bytes(&r->local);

	series_sample(r, s, now_ns(), b); /* the time of the count, not of the tick's start */
	if (!s->on || now < s->next_edge ||
	    now + s->step_ns / 10 >= r->t_open + (uint64_t)(r->o->duration * 1e9))
		return; /* the last one (or a sliver before the close) is the close's */
	edge(r, s, now);
	while (s->next_edge <= now)
		s->next_edge += s->step_ns;
}

/* The close's CPU now; its counts once the clients have stopped counting (sampler_finish). */
void sampler_close(struct run *r)
{
	struct sampler *s = r->sampler;

	if (s && s->on) {
		s->cur->t_ns = r->t_close;
		snap_cpu(r, s, s->cur);
		s->closed = true;
	}
}

void sampler_finish(struct run *r)
{
	struct sampler *s = r->sampler;

	if (!s)
		return;
	if (s->closed && r->res.nintervals < s->cap) {
		snap_counts(r, s, s->cur);
		add_interval(r, s);
	}
	free(s->prev);
	free(s->cur);
	free(s->tmp);
	free(s->live);
	free(s);
	r->sampler = NULL;
}
