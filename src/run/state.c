/* state.c: the bottom of run/: the signals a run catches, failing a run, marking it partial,
 * and the progress line. It reads and writes the state of a run (state_priv.h) and calls
 * nothing else of run/; every other file of run/ uses it.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "report/out.h"
#include "run/state_priv.h"

volatile sig_atomic_t run_sig;
/* A command of many runs (run_signals_keep): no signal kills it, it ends each run first. The
 * child of run_isolated inherits it with the handler. */
static volatile sig_atomic_t keep_signals;
static struct timespec first_at; /* when run_sig was set: written in the handler only */

/* A second signal this soon after the first is the same stop: timeout(1) signals its child
 * and then its process group, so the coordinator gets its SIGTERM twice. */
#define SIG_SAME_NS 200000000LL

static void on_signal(int sig)
{
	int e = errno;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!run_sig) {
		first_at = now;
		run_sig = sig;
	} else if (!keep_signals && (now.tv_sec - first_at.tv_sec) * 1000000000LL +
					    (now.tv_nsec - first_at.tv_nsec) > SIG_SAME_NS) {
		/* a second stop: the run did not end in time, the default kills it */
		signal(sig, SIG_DFL);
		raise(sig);
	}
	errno = e;
}

/* SIGINT (Ctrl-C), SIGTERM (timeout(1), kill, a CI's cancel) and SIGHUP (the terminal went)
 * stop a run alike; the handler runs with all three blocked. */
static void catch_stops(void)
{
	static const int stops[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(stops); i++)
		sigaddset(&sa.sa_mask, stops[i]);
	for (size_t i = 0; i < ARRAY_SIZE(stops); i++)
		sigaction(stops[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void install_signals(void)
{
	catch_stops();
}

bool run_interrupted(void)
{
	return run_sig;
}

const char *run_signal_name(void)
{
	return run_sig == SIGTERM ? "SIGTERM" : run_sig == SIGHUP ? "SIGHUP"
					  : run_sig == SIGINT ? "SIGINT" : "a signal";
}

void run_signals_keep(void)
{
	keep_signals = 1;
	catch_stops();
}

int run_fail(struct run *r, int err, bool usage, const char *fmt, ...)
{
	va_list ap;

	err = err > 0 ? err : EIO;
	if (r->error->err)
		return -err;
	r->error->err = err;
	r->error->usage = usage;
	va_start(ap, fmt);
	vsnprintf(r->error->msg, sizeof(r->error->msg), fmt, ap);
	va_end(ap);
	return -err;
}

void mark_partial(struct run *r, const char *why)
{
	if (r->res.partial)
		return;
	r->res.partial = true;
	snprintf(r->res.partial_reason, sizeof(r->res.partial_reason), "%s", why);
}

/* The progress line: at the window's first tick (a script may wait for "window: " to act
 * while the window is open), then each second. */
void run_progress(struct run *r, uint64_t now)
{
	double elapsed = ns_to_s(now - r->t_open);
	char what[64];

	if (r->shown_at && now - r->shown_at < 1000000000ULL)
		return;
	r->shown_at = now;
	snprintf(what, sizeof(what), "%s: window", r->wl->name);
	if (!r->count_based)
		out_progress(what, elapsed, r->o->duration, NULL, elapsed);
	else if (!r->fanout)
		out_progress(what, (double)group_units(&r->local), (double)r->o->conns, r->wl->unit,
			     elapsed);
	else
		out_progress(what, 0, 0, r->wl->unit, elapsed);
}

void result_free(struct result *res)
{
	cJSON_Delete(res->profile);
	cJSON_Delete(res->trace);
	res->trace = NULL;
	cJSON_Delete(res->env);
	cJSON_Delete(res->agent_env);
	res->profile = res->env = res->agent_env = NULL;
	free(res->hosts);
	res->hosts = NULL;
	res->nhosts = 0;
	free(res->lat);
	free(res->lat2);
	res->lat = res->lat2 = NULL;
	free(res->series_t);
	free(res->series_gbit);
	res->series_t = res->series_gbit = NULL;
	res->nseries = 0;
	free(res->intervals);
	res->intervals = NULL;
	res->nintervals = 0;
}
