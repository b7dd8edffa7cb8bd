/* group.h: the client processes of one host, each running the workload's client side: forked
 * with the memory they share, waited for until their sockets are open, watched (dead,
 * stopped, their running progress), and their reports gathered into one side. The coordinator
 * runs one on its own host; a serve agent in the client role runs one for a coordinator on
 * another host (--clients-on). */
#ifndef SB_GROUP_H
#define SB_GROUP_H

#include <signal.h>
#include <sys/types.h>

#include "measure/result.h"
#include "workload/workload.h"

struct client_group {
	const struct workload *wl;
	const struct opts *o;		/* this host's share: its --clients, --peers and counts */
	struct sockaddr_storage server; /* the server's data address */
	socklen_t server_len;
	uint64_t token;
	int n; /* client processes */
	pid_t *pid;
	int *pipe;
	struct shared *sh;
	size_t shlen;
	/* -i: histograms per client process in the shared memory, one per thread (set before
	 * group_start; 0: none, the clients keep theirs to themselves). */
	int live_per;
};

/* In a child of the coordinator or the agent: leave SIGINT, SIGTERM and SIGHUP to the parent
 * (ignored, across exec too), and get deathsig when the parent dies (a client SIGKILL; the
 * local agent a signal it catches to put its --sysctl settings back first). */
void child_setup(int deathsig);
/* The shared memory, then n client processes (0: none, the memory only). close_fd (or -1) is
 * closed in every child. 0 or -errno with err. */
int group_start(struct client_group *g, int n, int close_fd, char *err, size_t errlen);
/* Wait until every client has opened its sockets, at most ms (stop: give up when it turns
 * non-zero). 0 or -errno with err (a client's own reason when it failed). */
int group_wait_ready(struct client_group *g, int ms, volatile sig_atomic_t *stop, char *err,
		     size_t errlen);
void group_set_phase(struct client_group *g, int ph);
/* How long to wait for the clients to open their sockets: base_ms, and half a millisecond
 * more for each connection the test opens before its window (tcp-rr's --flows: 19,000 took
 * 3 s here, on 2 CPUs with the server). */
int group_ready_ms(const struct opts *o, int base_ms);
/* The first client that has exited (its number from 0), or -1. */
int group_dead(struct client_group *g);
/* A client process stopped (SIGSTOP, a debugger)? Its number, or -1. */
int group_stopped(const struct client_group *g);
/* The clients' running counts, summed: any change is progress. */
uint64_t group_progress(const struct client_group *g);
/* The units they counted in the window so far (for a progress line: a thread past the 64th of
 * a process shares a slot, so this may fall short). */
uint64_t group_units(const struct client_group *g);
/* Payload bytes the group's clients sent and received in the window so far. */
uint64_t group_bytes(const struct client_group *g);
/* With live_per: the clients' latency histograms as they record them (for ivl_hist_read);
 * returns how many (at most cap). */
int group_live_hists(const struct client_group *g, const struct hist **out, int cap);
/* The client processes' user + system time so far, clock ticks (/proc/PID/stat). */
uint64_t group_cpu_ticks(const struct client_group *g);
/* Every client's report into s (CPU, switches, counters) and the histograms; ends the
 * processes. Returns how many sent none within ms each. */
int group_collect(struct client_group *g, struct side_result *s, struct hist *lat,
		  struct hist *lat2, int ms);
/* Kill what is left, free everything. */
void group_free(struct client_group *g);

#endif
