/* run.h: the coordinator: one run of a workload, local or against a remote agent.
 * It forks the client processes and the local agent, speaks ctl.h, reads the kernel's counters
 * and hands a result up; the commands above it decide what to print.
 */
#ifndef SB_RUN_H
#define SB_RUN_H

#include "workload/workload.h"

struct cJSON;

struct result;

/* Why a run could not be made: its errno, whether the user's input was wrong (a usage
 * error: exit 2), and what to tell the user. */
struct run_error {
	int err;
	bool usage;
	char msg[320];
};

/* One run of wl with o, nothing printed: fills res (result_free frees it; res->cfg is o).
 * 0, 1 when a side died or a fatal error cut the run (res is then partial), or -errno when
 * it could not be set up (error says why; every process it started is ended, res empty). */
int run_once(const struct workload *wl, const struct opts *o, struct result *res,
	     struct run_error *error);
void result_free(struct result *res);
/* Did SIGINT or SIGTERM arrive during a run? */
bool run_interrupted(void);

/* How a run made by run_isolated ended. */
enum run_status {
	RUN_WHOLE,   /* a whole run: a sample */
	RUN_PARTIAL, /* it measured, but was cut (partial) or a side failed: not a sample */
	RUN_FAILED,  /* no result at all: it could not start, or crashed */
};

/* For the commands that make many runs (--runs, compare, sweep, explore): catch Ctrl-C and
 * SIGTERM without ever resetting to the default, so a second signal cannot kill the command
 * before it prints what it measured. */
void run_signals_keep(void);
/* One run in a child process of its own, so that a run that cannot start (a refused
 * strategy, a busy port) or crashes costs that run alone. Its result document in *doc (NULL
 * if none came back; caller frees), and what the run said last on stderr in why. A signal
 * to this process is passed on to the run, which then ends partial. */
enum run_status run_isolated(const struct workload *wl, const struct opts *o,
			     struct cJSON **doc, char *why, size_t whylen);
/* "whole", "partial", "failed". */
const char *run_status_name(enum run_status s);

#endif
