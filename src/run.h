/* run.h: the coordinator: one run of a workload, local or against a remote agent. */
#ifndef SB_RUN_H
#define SB_RUN_H

#include "workload.h"

/* `sockbench WORKLOAD [options]`: returns the exit code. */
int cmd_workload(const struct workload *wl, int argc, char **argv);

#endif
