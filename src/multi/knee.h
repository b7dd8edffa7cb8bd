/* knee.h: `sockbench knee WORKLOAD`: the highest open-loop rate that keeps a latency SLO. */
#ifndef SB_KNEE_H
#define SB_KNEE_H

#include <stdbool.h>

#include "base/opts.h"

/* The command. Exit status: 0, 1 (no rate held the SLO, or runs failed), 2 (usage). */
int cmd_knee(int argc, char **argv);
/* knee's own flags (the completion script lists them). */
extern const struct opt_def knee_flags[];

#endif
