/* explore.h: `sockbench explore WORKLOAD [flags]`: "what can I do?", measured. */
#ifndef SB_EXPLORE_H
#define SB_EXPLORE_H

#include <stdbool.h>

/* Run the workload as given, then each applicable strategy, interleaved, then the best
 * combination; print them ranked by measured gain. Returns the exit code. */
int cmd_explore(int argc, char **argv);
/* The order of runs: rounds of (baseline, strategy 1, ..., strategy n-1), as config indexes. */
void explore_schedule(int nconfigs, int rounds, int *order);

/* Do two strategies' flags set an option in common ("--send uring" and "--send splice")?
 * Such strategies are alternatives: a combination of them would keep only the last. */
bool explore_flags_clash(const char *a, const char *b);

/* Indexes of n speedups, best first (stable). */
void explore_rank(const double *speedup, int n, int *order);

#endif
