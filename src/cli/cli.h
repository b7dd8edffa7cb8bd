/* cli.h: the commands of the command line (main.c dispatches from a table of them). Each
 * takes its argv (argv[0] is the command) and returns the process's exit code.
 * The top layer: it may call anything below, and nothing calls it.
 */
#ifndef SB_CLI_H
#define SB_CLI_H

#include "workload/workload.h"

/* `sockbench WORKLOAD [options]`: returns the exit code. */
int cmd_workload(const struct workload *wl, int argc, char **argv);
/* `sockbench check`: the noise check and the environment, on their own. */
int cmd_check(int argc, char **argv);
/* `sockbench report RESULT.json... -o FILE.html`: the HTML report of saved results. */
int cmd_report(int argc, char **argv);
/* Their own flags (opts.h's OWN_FLAG), for the completion. */
extern const struct opt_def check_flags[];
extern const struct opt_def report_flags[];
/* `sockbench completion bash`: the bash completion script, from the option tables. */
int cmd_completion(int argc, char **argv);
/* `sockbench man-options CMD`: CMD's options as troff (scripts/mkman puts them in the page). */
int cmd_man_options(int argc, char **argv);

#endif
