/* knee.h: `sockbench knee WORKLOAD`: the highest open-loop rate that keeps a latency SLO. */
#ifndef SB_KNEE_H
#define SB_KNEE_H

#include <stdbool.h>

/* The SLO "pNN=VALUE[us|ms|s]" as a percentile (one the report gives: 50, 90, 99, 99.9,
 * 99.99) and a limit in microseconds: 0, or -1 when it is not one. */
int knee_parse_slo(const char *s, double *pct, double *limit_us);
/* The command. Exit status: 0, 1 (no rate held the SLO, or runs failed), 2 (usage). */
int cmd_knee(int argc, char **argv);

#endif
