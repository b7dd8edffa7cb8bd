/* run.c: the coordinator. It starts (or reaches) the serve agent, forks the client processes,
 * opens and closes the measured window for both sides, reads the kernel's figures at the
 * window's edges, gathers every side's result and hands it up (report/ prints it).
 *
 *   setup -> warm-up (traffic, nothing counted) -> window (BEGIN .. END) -> results -> BYE
 *
 * Clients follow a phase word in shared memory; the agent follows BEGIN/END on the control
 * connection. Every wait is bounded, and Ctrl-C, a dying agent or a dying client end the
 * window early with a report marked partial.
 *
 * The top of the coordinator and the only file of run/ that knows the order of the phases: it
 * uses the agent link (agent.c), this host's clients (clients.c) and their sampler (sampler.c),
 * the client hosts (fanout.c, fanout_collect.c), the stall watch (stall.c), what the window's
 * edges read (edges.c) and the run's state (state.c), and none of them calls it. Only
 * isolated.c, which runs a whole run_once in a child, sits above it.
 */

#include <cjson/cJSON.h>
#include <sys/wait.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "link/ctl.h"
#include "report/out.h"
#include "measure/env.h"
#include "base/outfile.h"
#include "base/util.h"

#include "run/agent.h"
#include "run/clients.h"
#include "run/edges.h"
#include "run/fanout.h"
#include "run/fanout_collect.h"
#include "run/run.h"
#include "workload/openloop.h"
#include "run/sampler.h"
#include "run/stall.h"
#include "run/load.h"

/* Clients done with their warm-up (warm) or window share, on every host. */
static int clients_done(const struct run *r, bool warm)
{
	return atomic_load(warm ? &r->sh->warm_done : &r->sh->done) + hosts_count(r, warm);
}

/* Why a signal ended the window: "interrupted by SIGTERM". */
static const char *interrupted(void)
{
	static char why[40];

	snprintf(why, sizeof(why), "interrupted by %s", run_signal_name());
	return why;
}

/* Let `seconds` pass, or until `*count` reaches `target` (count-based phases), unless something
 * ends the run first: returns NULL, or why it ended. */
static const char *watch(struct run *r, double seconds, int counted, int target)
{
	uint64_t deadline = now_ns() + (uint64_t)(seconds * 1e9);
	/* A count-based phase ends when the clients say so: local ones wake the poll (wake_fd),
	 * and it sleeps STEP_MS between looks, so as not to wake beside a load that may need
	 * both CPUs (every 2 ms cost tcp-crr 5-8% of its rate on 2 CPUs); other hosts tell only
	 * in their STATE messages, read between polls, so with them it looks every 2 ms. */
	int wake = counted && r->sh ? r->sh->wake_fd : -1;
	struct pollfd p[2] = {{.fd = r->ctl, .events = POLLIN}, {.fd = wake, .events = POLLIN}};
	int step = counted && (r->nhosts || wake < 0) ? 2 : STEP_MS, ticks = 0;
	static char why[120];

	for (uint64_t t = now_ns(); t < deadline; t = now_ns()) {
		int ms = (int)((deadline - t) / 1000000) + 1;
		const char *fatal;

		if (run_sig)
			return interrupted();
		/* A client that hits a fatal error ends its share and says it is done: the error,
		 * stored before, is looked at after. */
		if (counted && clients_done(r, counted == 1) >= target)
			return check_fatal(r);
		if ((fatal = check_fatal(r)) || (fatal = hosts_watch(r)))
			return fatal;
		uint64_t woke;
		int ready = poll(p, 2, ms < step ? ms : step);

		if (ready > 0 && p[1].revents)
			(void)!read(wake, &woke, sizeof(woke)); /* reset: the counts say the rest */
		if (ready > 0 && p[0].revents && (fatal = agent_said(r)))
			return fatal;
		if (++ticks % (STEP_MS / step) && counted)
			continue; /* the checks below every STEP_MS */
		if (r->prof)
			prof_drain(r->prof);
		int dead = dead_client(r);

		if (dead >= 0) {
			r->failed = true;
			snprintf(why, sizeof(why), "client %d exited before the end", dead + 1);
			return why;
		}
		if (r->measuring) {
			/* The time the counts below are read at: after the poll, which may have
			 * waited STEP_MS (its time before it made a stream's first 0.1 s bucket,
			 * timed from the exact open, 1.5x the rest, and -i's first interval). */
			t = now_ns();
			stall_watch(r);
			run_progress(r, t);
			sampler_tick(r, t);
		}
	}
	if (run_sig)
		return interrupted();
	if (counted && clients_done(r, counted == 1) < target) {
		snprintf(why, sizeof(why), "%s %g s reached before every %s was done",
			 r->o->bytes ? "the limit of --duration" : "--time-limit", seconds, r->wl->unit);
		return why;
	}
	return NULL;
}

static void set_phase(struct run *r, int ph)
{
	atomic_store_explicit(&r->sh->phase, ph, memory_order_release);
}

/* The window opens: BEGIN to the agent, the clients counting. With traffic flowing across
 * the edges (a time-based window), the kernel's figures are read just after each edge
 * (edges_read_at), so both lag the same way and the lags mostly cancel. A count-based window
 * has no traffic between the warm-up and its start: read them before it opens. */
static void open_window(struct run *r, struct edges *e)
{
	if (r->count_based) {
		e->cpu_ok = kstat_cpu_read(NULL, &e->c0) == 0;
		e->k_ok = edges_read_kernel(r->wl, e->v6, &e->k0);
		e->ks0 = kstat_ksoftirqd_ticks(&r->ksirq);
	}
	if (ctl_send(r->ctl, CTL_MSG_BEGIN, NULL, 0) < 0 ||
	    ctl_expect(r->ctl, CTL_MSG_ACK, r->buf, CTL_MAX_PAYLOAD + 1, START_MS) < 0) {
		r->failed = true;
		mark_partial(r, "the serve agent did not acknowledge the window's start");
	}
	/* The time first: a coordinator kept off its CPU between the two would otherwise leave the
	 * clients counting for a while the edge's lag (read_after_edge_us) does not hold. */
	r->t_open = now_ns();
	set_phase(r, PH_MEASURE);
	if (!r->count_based)
		e->k_ok = edges_read_at(r->wl, e->v6, &e->k0, r->t_open, &r->res.kread_open_us);
	if (r->prof)
		prof_enable(r->prof);
	if (r->trace)
		trace_enable(r->trace);
	hosts_begin(r);
	if (!r->count_based) {
		e->cpu_ok = kstat_cpu_read(NULL, &e->c0) == 0;
		e->ks0 = kstat_ksoftirqd_ticks(&r->ksirq);
	}

	r->measuring = true;
	sampler_begin(r, r->t_open);
	r->last_sum = progress_sum(r);
	r->last_progress = r->t_open;
}

/* The window closes, into the drain or the stop: the figures of a time-based window at its
 * close. */
static void close_window(struct run *r, struct edges *e, bool drain)
{
	r->t_close = now_ns();
	set_phase(r, drain ? PH_DRAIN : PH_STOP);
	sampler_close(r);
	if (!r->count_based)
		e->k_ok = edges_read_at(r->wl, e->v6, &e->k1, r->t_close, &r->res.kread_close_us) &&
			  e->k_ok;
	if (r->prof)
		prof_disable(r->prof);
	if (r->trace)
		trace_disable(r->trace);
	if (!r->count_based) { /* the machine's CPU at the close too, not after the drain */
		e->cpu_ok = e->cpu_ok && kstat_cpu_read(NULL, &e->c1) == 0;
		e->ks1 = kstat_ksoftirqd_ticks(&r->ksirq);
	}
}

/* The drain after the window: the agent told, the clients given --timeout, and 100 ms for the
 * last scan to see it. */
static void drain_window(struct run *r)
{
	if (ctl_send(r->ctl, CTL_MSG_CLOSE, NULL, 0) < 0) {
		r->failed = true;
		mark_partial(r, "the serve agent could not be told the window closed");
	}
	double bound_s = (double)r->o->timeout / 1e3 + 0.1;
	uint64_t t0 = now_ns();

	hosts_drain_begin(r);
	clients_drain(r, bound_s);
	hosts_drain_wait(r, t0 + (uint64_t)(bound_s * 1e9));
	r->res.drain_s = ns_to_s(now_ns() - t0);
	if (run_sig) {
		char why[160];

		snprintf(why, sizeof(why), "%s in the drain after the window: the requests then in "
			 "flight are counted unanswered at what they had waited", interrupted());
		mark_partial(r, why);
	}
}

/* No progress for r->stall_s of the window: partial, and failed. */
static void mark_stalled(struct run *r)
{
	char msg[320];

	snprintf(msg, sizeof(msg), "no progress for %.1f s of the window: %s", r->stall_s,
		 r->stall_who);
	mark_partial(r, msg);
	r->failed = true;
	if (!r->fatal[0])
		snprintf(r->fatal, sizeof(r->fatal), "%s", msg);
}

/* Warm-up, then the window; kernel figures are read right at its edges. A count-based run
 * waits for every client to finish its share of each phase, bounded by --time-limit. */
static void run_window(struct run *r)
{
	static struct edges e;
	const char *why;
	double limit = r->o->time_limit;

	r->res.softirq_inline_s = r->res.softirq_ksoftirqd_s = -1;
	set_phase(r, PH_WARMUP);
	if (r->count_based) /* a stream's -n: its warm-up is --warmup seconds on top */
		why = watch(r, limit + (r->o->bytes ? r->o->warmup : 0), 1, (int)r->o->clients);
	else
		why = watch(r, r->o->warmup, 0, 0);
	if (why) {
		mark_partial(r, why);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.v6 = r->data.ss_family == AF_INET6;
	open_window(r, &e);
	if (r->count_based)
		why = watch(r, limit, 2, (int)r->o->clients);
	else
		why = watch(r, r->o->duration, 0, 0);
	r->res.duration_s = ns_to_s(now_ns() - r->t_open);
	r->measuring = false;
	out_progress_end();
	stall_end(r, now_ns());
	/* A workload that drains stops sending now and lets the window's requests be answered
	 * or timed out (the server still answering); the figures of the window are read at
	 * its close, as always. Interrupted: no drain. */
	bool drain = r->wl->drains && !why;

	close_window(r, &e, drain);
	if (drain)
		drain_window(r);
	hosts_end(r);
	r->end_sent = ctl_send(r->ctl, CTL_MSG_END, NULL, 0) == 0;
	if (r->count_based) {
		e.cpu_ok = e.cpu_ok && kstat_cpu_read(NULL, &e.c1) == 0;
		e.ks1 = kstat_ksoftirqd_ticks(&r->ksirq);
		e.k_ok = edges_read_kernel(r->wl, e.v6, &e.k1) && e.k_ok;
	}
	edges_figures(r, &e);
	if (why)
		mark_partial(r, why);
	if (r->stall_s > 0)
		mark_stalled(r);
}

/* --clients-on: this host's clients apart, then every host's into the totals. */
static void collect_fanout(struct run *r)
{
	struct side_result local = {0};
	struct hist *lat = xmalloc(sizeof(*lat)), *lat2 = xmalloc(sizeof(*lat2));

	hist_reset(lat);
	hist_reset(lat2);
	if (group_collect(&r->local, &local, lat, lat2, REPORT_MS)) {
		r->failed = true;
		mark_partial(r, "a client on this host sent no result");
	}
	hosts_collect(r, &local, lat, lat2);
	free(lat);
	free(lat2);
}

/* --profile: symbols, then an event per CPU; a refusal is reported and the run goes on. */
static void profile_open(struct run *r)
{
	char *err = r->res.profile_error;
	size_t len = sizeof(r->res.profile_error);

	r->ksyms = ksyms_load(NULL, err, len);
	if (r->ksyms) {
		r->prof = prof_create(r->ksyms, (int)r->o->profile_hz, true);
		if (r->o->profile_event == PROFILE_EVENT_CYCLES)
			prof_use_cycles(r->prof);
		prof_set_pids(r->prof, r->local.pid, r->local.n, r->server_pid > 0 ? r->server_pid : 0);
		if (prof_open(r->prof, err, len) == 0)
			return;
		prof_destroy(r->prof);
		r->prof = NULL;
	}
	fprintf(stderr, "sockbench: no profile: %s\n", err);
}

static void profile_close(struct run *r)
{
	if (r->prof) {
		prof_drain(r->prof);
		r->res.profile = prof_json(r->prof, (int)r->o->profile_top);
		if (r->folded.f && prof_fold_overflow(r->prof))
			fprintf(stderr, "sockbench: --profile-folded: %llu samples found no room in the "
				"folded table and are not in %s (the profile's shares count them)\n",
				(unsigned long long)prof_fold_overflow(r->prof), r->o->profile_folded);
		if (r->folded.f) {
			bool direct = outfile_direct(&r->folded);
			int e = prof_write_folded(r->prof, r->folded.f);

			/* A profile cut short is no profile: say so, fail; the file is as it was. */
			e = e ? outfile_abort(&r->folded, e) : outfile_commit(&r->folded);
			if (e) {
				snprintf(r->fatal, sizeof(r->fatal), "--profile-folded %s: %s%s",
					 r->o->profile_folded, outfile_strerror(e), outfile_left(direct));
				r->failed = true;
			}
		}
		prof_destroy(r->prof);
		r->prof = NULL;
	}
	outfile_abort(&r->folded, 0); /* no profile to write: the target is left as it was */
	ksyms_free(r->ksyms);
	r->ksyms = NULL;
}

/* A run that could not be set up: end every process it started, free what it took. */
static void teardown(struct run *r)
{
	group_free(&r->local);
	r->sh = NULL;
	hosts_close(r);
	if (r->server_pid > 0)
		kill(r->server_pid, SIGKILL);
	if (r->ctl >= 0 || r->server_pid > 0)
		reap_agent(r);
	outfile_abort(&r->folded, 0);
	result_free(&r->res);
}

/* Reach the agent, start the clients, wait until every socket is open. 0 or -errno. */
static int setup(struct run *r)
{
	const struct opts *o = r->o;
	struct hostport at;
	int ret;

	/* Finding the ksoftirqd threads walks /proc (hundreds of calls): done before any side
	 * starts, so that no traffic flows during it (a reversed stream's sender starts at its
	 * HELLO; with a warm-up of 0 s the walk's time was the window's, as strace showed). */
	kstat_ksoftirqd_find(&r->ksirq);
	if ((ret = hosts_parse(r)))
		return ret;
	if (o->server) {
		if ((ret = split_hostport(r, "--server", o->server, &at)))
			return ret;
	} else {
		if ((ret = spawn_local_agent(r)) < 0)
			return ret;
		snprintf(at.host, sizeof(at.host), "%s", o->ipv6 ? "::1" : "127.0.0.1");
		snprintf(at.port, sizeof(at.port), "%d", ret);
	}
	if ((ret = reach_agent(r, at.host, at.port)))
		return ret;
	if ((ret = fork_clients(r)) || (ret = wait_ready(r)))
		return ret;
	return hosts_reach(r);
}

int run_once(const struct workload *wl, const struct opts *o, struct result *res,
	     struct run_error *error)
{
	struct run r = {.wl = wl, .o = o, .ctl = -1, .error = error};
	int ret = 0;

	*error = (struct run_error){0};
	r.count_based = wl->count_based && wl->count_based(o);
	/* --trace's needs (root, BTF, BPF) before any work: a run without them is refused. */
	char terr[300];

	if (o->trace && o->io == IO_URING)
		return run_fail(&r, EINVAL, true, "--trace follows send and receive calls, not "
				"io_uring's: leave out --io uring, or --trace");
	if (o->trace && trace_check(terr, sizeof(terr)))
		return run_fail(&r, EPERM, false, "%s", terr);
	/* Output paths are checked before any work. */
	if (o->profile && o->profile_folded && (ret = outfile_open(&r.folded, o->profile_folded)))
		return run_fail(&r, -ret, true, "--profile-folded %s: %s", o->profile_folded,
				strerror(-ret));
	install_signals();
	r.buf = xmalloc(CTL_MAX_PAYLOAD + 1);
	r.res = (struct result){.wl = wl, .cfg = o, .warmup_s = o->warmup,
				   .kread_open_us = -1, .kread_close_us = -1};
	r.res.lat = xmalloc(sizeof(*r.res.lat));
	r.res.lat2 = xmalloc(sizeof(*r.res.lat2));
	hist_reset(r.res.lat);
	r.res.drain_s = -1;
	hist_reset(r.res.lat2);
	if ((ret = setup(&r))) {
		teardown(&r);
		goto out;
	}
	/* A server at an address of this host (loopback or an interface's own) shares this
	 * network stack, so the kernel's counters count its side too; an agent in another
	 * network namespace has addresses of its own. */
	r.res.server_local = !o->server || addr_is_this_host(&r.data);
	r.res.env = env_collect((struct sockaddr *)&r.data, sizeof(r.data));
	if (o->trace && !(r.trace = trace_open(r.local.pid, r.local.n, r.server_pid, terr,
					      sizeof(terr)))) {
		teardown(&r);
		ret = run_fail(&r, EPERM, false, "%s", terr);
		goto out;
	}
	if (o->profile)
		profile_open(&r);
	run_window(&r);
	profile_close(&r);
	if (r.trace) {
		r.res.trace = trace_json(r.trace);
		trace_close(r.trace);
		r.trace = NULL;
	}
	set_phase(&r, PH_STOP);
	collect_server(&r);
	if (r.fanout)
		collect_fanout(&r);
	else
		collect_clients(&r);
	sampler_finish(&r);
	hosts_close(&r);
	reap_agent(&r);
	load_check(&r);
	/* Every stop says why, on stderr as well as in the report. */
	if (r.fatal[0])
		fprintf(stderr, "sockbench: %s\n", r.fatal);
	else if (r.res.partial)
		fprintf(stderr, "sockbench: the run is partial: %s\n", r.res.partial_reason);
	*res = r.res;
	ret = r.failed ? 1 : 0;
out:
	free(r.buf);
	group_free(&r.local);
	return ret;
}

