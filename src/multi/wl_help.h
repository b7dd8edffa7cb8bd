/* wl_help.h: `sockbench CMD WORKLOAD ... --help` for the commands that run a workload many
 * times (explore, compare, sweep, knee): the workload's options as CMD takes them. */
#ifndef SB_WL_HELP_H
#define SB_WL_HELP_H

#include "workload/workload.h"

/* If a word of argv (argc words) is --help or -h: print wl's options as cmd takes them, with
 * cmd's note on how (its own flags: `sockbench CMD --help`), and exit 0. Else return. */
void wl_help_or_return(const char *cmd, const struct workload *wl, int argc, char **argv);
/* The same for a configuration given as one quoted word ('tcp-rr --help'): its workload, if
 * its first word names one and a later word is --help or -h; else return. */
void wl_help_quoted_or_return(const char *cmd, const char *config);

#endif
