/* compare.h: A/B comparisons with a verdict, and sweeps over a grid of flags.
 * compare and sweep run their configurations through run_isolated (run/) and print through
 * report/ and their own report files.
 */
#ifndef SB_COMPARE_H
#define SB_COMPARE_H

#include "base/opts.h"

/* `sockbench compare 'A flags' 'B flags' [--runs N] [--primary FIGURE] [--json]` or
 * `compare a.json b.json`. */
int cmd_compare(int argc, char **argv);
/* `sockbench sweep WORKLOAD --PARAM v1,v2,... [--PARAM2 ...] [--runs N] [--csv F] [--plot F.svg]
 * [--json] [--compare 'B flags']`. */
int cmd_sweep(int argc, char **argv);
/* compare's and sweep's own flags (the completion script lists them). */
extern const struct opt_def compare_flags[];
extern const struct opt_def sweep_flags[];

#endif
