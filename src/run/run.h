/* run.h: the coordinator: one run of a workload, local or against a remote agent.
 * It forks the client processes and the local agent, speaks ctl.h, reads the kernel's counters
 * and hands a result up; the commands above it decide what to print. This is run/'s interface
 * to the folders above it: run_once (run.c), run_isolated (isolated.c), and, through state.h,
 * why a run could not be made and the signals (state.c).
 */
#ifndef SB_RUN_H
#define SB_RUN_H

#include "run/state.h"
#include "workload/workload.h"

struct cJSON;

struct result;

/* One run of wl with o, nothing printed: fills res (result_free frees it; res->cfg is o).
 * 0, 1 when a side died or a fatal error cut the run (res is then partial), or -errno when
 * it could not be set up (error says why; every process it started is ended, res empty). */
int run_once(const struct workload *wl, const struct opts *o, struct result *res,
	     struct run_error *error);
void result_free(struct result *res);

/* How a run made by run_isolated ended. */
enum run_status {
	RUN_WHOLE,   /* a whole run: a sample */
	RUN_PARTIAL, /* it measured, but was cut (partial) or a side failed: not a sample */
	RUN_FAILED,  /* no result at all: it could not start, or crashed */
};

/* One run in a child process of its own, so that a run that cannot start (a refused
 * strategy, a busy port) or crashes costs that run alone. Its result document in *doc (NULL
 * if none came back; caller frees), and what the run said last on stderr in why. A signal
 * to this process is passed on to the run, which then ends partial. */
enum run_status run_isolated(const struct workload *wl, const struct opts *o,
			     struct cJSON **doc, char *why, size_t whylen);
/* "whole", "partial", "failed". */
const char *run_status_name(enum run_status s);

#endif
