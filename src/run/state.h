/* state.h: what the folders above run/ see of state.c: why a run could not be made, and the
 * signals a run or a command of many runs catches. The rest of state.c is state_priv.h.
 */
#ifndef SB_RUN_STATE_H
#define SB_RUN_STATE_H

#include <stdbool.h>

/* Why a run could not be made: its errno, whether the user's input was wrong (a usage
 * error: exit 2), and what to tell the user. */
struct run_error {
	int err;
	bool usage;
	char msg[320];
};

/* Did SIGINT, SIGTERM or SIGHUP arrive during a run? */
bool run_interrupted(void);
/* The one that came first, "SIGINT", "SIGTERM" or "SIGHUP" (static). */
const char *run_signal_name(void);
/* For the commands that make many runs (--runs, compare, sweep, explore): catch Ctrl-C,
 * SIGTERM and SIGHUP without ever resetting to the default, so a second signal cannot kill
 * the command before it prints what it measured. */
void run_signals_keep(void);

#endif
