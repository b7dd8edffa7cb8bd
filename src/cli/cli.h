/* cli.h: the commands of the command line (main.c dispatches from a table of them). Each
 * takes its argv (argv[0] is the command) and returns the process's exit code.
 * The top layer: it may call anything below, and nothing calls it.
 */
#ifndef SB_CLI_H
#define SB_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "base/opts.h"
#include "workload/workload.h"

/* What follows a command's name, as the completion offers it. */
enum cmd_arg {
	ARG_NONE,
	ARG_WORKLOAD, /* a workload, then its flags (explore, knee, sweep) */
	ARG_COMMAND,  /* a command (help) */
	ARG_JSON,     /* saved results (report, compare) */
};

/* A command of main.c's table (iproute2's ip.c style): what dispatches it, `sockbench help`'s
 * list, the bash completion and (through each command's --help) the man page's SYNOPSIS all
 * read it, so a new command is one line there. */
struct command {
	const char *name;
	const char *alias[3]; /* other spellings, not listed */
	int (*fn)(int argc, char **argv);
	const char *summary;
	const struct opt_def *flags; /* its own flags (NULL: none) */
	enum cmd_arg arg;
	const char *words; /* the words it takes, where they are fixed ("bash") */
	/* Its usage's words, for a command without a --help of its own (main.c prints it). */
	const char *usage;
	bool hidden; /* internal (make man's): it works, but is not listed or completed */
};

/* `sockbench WORKLOAD [options]`: returns the exit code. */
int cmd_workload(const struct workload *wl, int argc, char **argv);
/* `sockbench check`: the noise check and the environment, on their own. */
int cmd_check(int argc, char **argv);
/* `sockbench report RESULT.json... -o FILE.html`: the HTML report of saved results. */
int cmd_report(int argc, char **argv);
/* Their own flags (opts.h's OWN_FLAG), for the completion. */
extern const struct opt_def check_flags[];
extern const struct opt_def report_flags[];
/* `sockbench completion bash`: the bash completion script, from cmds (main.c's table, n
 * commands) and the option tables. Returns the exit code. */
int completion_main(int argc, char **argv, const struct command *cmds, size_t n);
/* `sockbench man-options CMD`: CMD's options as troff (scripts/mkman puts them in the page). */
int cmd_man_options(int argc, char **argv);

#endif
