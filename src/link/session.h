/* session.h: one test in the agent, as serve.c starts it, and what both of its sides
 * (server_side.c, client_side.c) use of session.c. Not for use outside link/. */
#ifndef SB_SESSION_H
#define SB_SESSION_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/opts.h"
#include "link/sysctl.h"
#include "measure/rusage.h"
#include "measure/side.h"
#include "workload/workload.h"

struct auth_key;
struct vouch_board;

struct session {
	int fd;
	bool verbose;
	const struct opts *so;	     /* the agent's own options: caps */
	const struct auth_key *key;  /* the agent's secret, or NULL */
	bool exposed;		     /* the agent listens beyond loopback */
	struct vouch_board *board;   /* what the agent vouches for (vouch.h): this test's data */
	char who[64];		     /* the controller's address, for the log */
	char *setup;		     /* the SETUP payload */
	char *buf;
	const struct workload *wl;
	struct opts o;
	struct server_ctx s;
	struct mem_use mem_before, mem_end; /* the agent's, before server_open, at END */
	pthread_t thread;
	bool running;
	struct cpu_mark begin, end;
	bool began;
	bool closed; /* the window's figures taken (CLOSE or END) */
	uint64_t drops0; /* the listener's drops when the window opened */
	int64_t overflows0; /* this namespace's ListenOverflows then (-1: not read) */
	uint64_t foreign0;  /* the test's foreign connections then */
	uint64_t queue0; /* ... and its accept queue's length then */
	bool noticed;
	struct sysctl_set knobs; /* the test's --sysctl, in force from SETUP to its end */
};

#define STATE_MS 100	      /* a client agent's STATE, from READY to END */
#define PHASE_SLACK_MS 30000 /* beyond a phase's own length, before a silent controller is dropped */

/* The longest the warm-up (false) or the window (true) of this test may take: its own
 * length, or a count-based test's --time-limit, within the agent's --max-duration. */
double phase_limit_s(const struct session *ss, bool window);
/* An ERROR frame to the controller (logged when verbose). */
void session_error(struct session *ss, const char *msg, int err, bool usage);
/* A line on stderr when verbose: fmt with one string, its controls escaped (safe_text_log). */
void session_log(const struct session *ss, const char *fmt, const char *arg);

#endif
