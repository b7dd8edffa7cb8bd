/* explore.h: `sockbench explore WORKLOAD [flags]`: "what can I do?", measured.
 * It runs through run_isolated (run/), reads figures through report/figures.h, and prints its
 * own ranking (explore_report.c).
 */
#ifndef SB_EXPLORE_H
#define SB_EXPLORE_H

#include "base/opts.h"
#include <stdbool.h>
#include <stdint.h>

/* Run the workload as given, then each applicable strategy, interleaved, then the best
 * combination; print them ranked by measured gain. Returns the exit code. */
int cmd_explore(int argc, char **argv);
/* explore's own flags (the completion script lists them). */
extern const struct opt_def explore_flags[];
/* The order of runs, as config indexes: rounds, each running every configuration once in an
 * order drawn afresh from the seed (so steady drift cancels instead of favouring whatever
 * runs later in a round). The same seed gives the same order. */
void explore_schedule(int nconfigs, int rounds, uint64_t seed, int *order);

/* Which runs first in each round of the best combination against its baseline runs: drawn
 * from the seed's own stream (never a zero state, whatever the seed). */
void explore_combo_order(uint64_t seed, int rounds, bool *combo_first);

/* Do two strategies' flags set an option in common ("--send uring" and "--send splice")?
 * Such strategies are alternatives: a combination of them would keep only the last. --sysctl
 * is given once per setting: two clash only on the same key. */
bool explore_flags_clash(const char *a, const char *b);

/* Indexes of n speedups, best first (stable). */
void explore_rank(const double *speedup, int n, int *order);

#endif
