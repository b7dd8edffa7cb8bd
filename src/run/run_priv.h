/* run_priv.h: what the coordinator's files share (run.c, agent.c, clients.c, isolated.c): the
 * state of one run and the steps each file does for the others. Not for use outside run/. */
#ifndef SB_RUN_PRIV_H
#define SB_RUN_PRIV_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "measure/result.h"
#include "run/run.h"
#include "profile/prof.h"
#include "workload/workload.h"

#define CTL_PORT_DEFAULT "12866"
#define STEP_MS 50
#define START_MS 10000	/* agent start, handshake, clients opening their sockets */
#define REPORT_MS 10000 /* for each side's result after END */
#define BUSY_RETRY_MS 500
#define STALL_PING_MS 500 /* no progress this long: ask the agent whether it is there */
#define STALL_S 2.0	  /* no progress this long in the window: the run is partial */

struct run {
	struct ksoftirqd ksirq; /* the kernel's softirq threads, found at setup */
	const struct workload *wl;
	const struct opts *o;
	pid_t server_pid;
	int ctl;
	char *buf;
	struct sockaddr_storage data;
	socklen_t data_len;
	struct shared *sh;
	size_t shlen;
	int nclients;
	pid_t *cpid;
	int *cpipe;
	struct result res;
	bool count_based;
	bool end_sent;	  /* END went out when the window closed */
	bool failed;	  /* a side died or a fatal error: exit 1 after the partial report */
	char fatal[300];  /* what to tell the user on stderr after the report */
	uint64_t token;	  /* the agent's for this test */
	/* The stall watch: the clients' progress, and whether the agent answers meanwhile. */
	bool measuring;
	uint64_t last_sum, last_progress, ping_at, pong_at;
	int pings; /* PINGs not answered yet */
	double stall_s;
	char stall_who[200];
	struct ksyms *ksyms; /* --profile */
	struct prof *prof;
	FILE *folded; /* --profile-folded, opened before the run */
	struct run_error *error; /* why it could not be set up */
};

/* SIGINT or SIGTERM came (isolated.c). */
extern volatile sig_atomic_t run_sig;
/* Catch the first SIGINT or SIGTERM of a single run (run_sig), then leave the next to kill. */
void install_signals(void);

/* run.c: why the run cannot go on (the first reason given wins): returns -err. usage: the
 * user's input was wrong (exit 2). */
int run_fail(struct run *r, int err, bool usage, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* run.c: mark the result partial, for the first reason given. */
void mark_partial(struct run *r, const char *why);

/* agent.c */
void child_setup(void);
int spawn_local_agent(struct run *r);
/* Split "HOST[:PORT]" or "[V6]:PORT". 0 or -errno (why in r). */
int split_hostport(struct run *r, const char *s, char *host, size_t hlen, char *port,
		   size_t plen);
int reach_agent(struct run *r, const char *host, const char *port);
const char *agent_said(struct run *r);
void reap_agent(struct run *r);

/* clients.c */
int fork_clients(struct run *r);
int dead_client(struct run *r);
int wait_ready(struct run *r);
const char *check_fatal(struct run *r);
uint64_t progress_sum(const struct run *r);
void stall_end(struct run *r, uint64_t now);
void stall_watch(struct run *r);
void collect_clients(struct run *r);

#endif
