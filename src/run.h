/* run.h: the coordinator: one run of a workload, local or against a remote agent. */
#ifndef SB_RUN_H
#define SB_RUN_H

#include "workload.h"

struct result;

/* The workload named by a subcommand's argument; exits 2 naming cmd when there is none. */
const struct workload *workload_or_exit(const char *cmd, const char *name);
/* Defaults, then argv (argv[0] is the subcommand), then the workload's check: exits 2 with a
 * one-line reason on a usage error, 0 after printing --help. */
void run_parse_or_exit(const struct workload *wl, int argc, char **argv, struct opts *o);
/* One run of wl with o, nothing printed: fills res (result_free frees it; res->cfg is o).
 * 0, or 1 when a side died or a fatal error cut the run (res is then partial). A failure to
 * set up exits with a message. */
int run_once(const struct workload *wl, const struct opts *o, struct result *res);
void result_free(struct result *res);
/* Did SIGINT or SIGTERM arrive during a run? */
bool run_interrupted(void);
/* `sockbench WORKLOAD [options]`: returns the exit code. */
int cmd_workload(const struct workload *wl, int argc, char **argv);

#endif
