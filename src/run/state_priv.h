/* state_priv.h: the bottom of run/: the state of one run, its timings and the services every
 * file of run/ uses (state.c): failing the run, marking it partial, the progress line, the
 * signals. state.c calls nothing of run/; every other file of run/ may include this. Not for
 * use outside run/. */
#ifndef SB_RUN_STATE_PRIV_H
#define SB_RUN_STATE_PRIV_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/outfile.h"
#include "measure/result.h"
#include "run/state.h"
#include "profile/prof.h"
#include "trace/trace.h"
#include "workload/group.h"
#include "workload/workload.h"

#define CTL_PORT_DEFAULT "12866"
#define STEP_MS 50
#define START_MS 10000	/* agent start, handshake, clients opening their sockets */
#define REPORT_MS 10000 /* for each side's result after END */
#define BUSY_RETRY_MS 500
#define STALL_PING_MS 500 /* no progress this long: ask the agent whether it is there */
#define STALL_S 2.0	  /* no progress this long in the window: the run is partial */

#define HOSTS_MAX 16 /* --clients-on */

/* An agent's address, split: a host (a name or numeric) and a port (a number or a service). */
struct hostport {
	char host[256], port[32];
};

/* A client host of --clients-on: its agent runs its share of the clients. */
struct remote_host {
	char name[280]; /* as given: HOST[:PORT] */
	struct hostport at;
	char addr[64];	/* its numeric address: the server answers it */
	int ctl;
	int clients; /* its share */
	/* From its STATEs. */
	uint64_t progress, heard_at;
	int warm_done, done, dead, stopped, fatal;
	long fatal_after;
	bool gone; /* its control connection broke, or it fell silent: no result to wait for */
	char why[400];
	bool began;
	uint64_t begin_sent, begin_acked;
};

struct sampler;

struct run {
	struct ksoftirqd ksirq; /* the kernel's softirq threads, found at setup */
	const struct workload *wl;
	const struct opts *o;
	pid_t server_pid;
	int ctl;
	char *buf;
	struct sockaddr_storage data;
	socklen_t data_len;
	struct client_group local; /* the client processes on this host */
	struct shared *sh;	   /* theirs (local.sh) */
	struct opts local_o;	   /* with --clients-on: this host's share of the options */
	struct remote_host *hosts; /* --clients-on, but for `local` */
	int nhosts;
	bool fanout;	 /* --clients-on was given */
	bool local_part; /* ... and names this host */
	uint64_t t_open, t_close; /* the window's edges on this host */
	struct result res;
	bool count_based;
	bool end_sent;	  /* END went out when the window closed */
	bool failed;	  /* a side died or a fatal error: exit 1 after the partial report */
	char fatal[320];  /* what to tell the user on stderr after the report */
	uint64_t token;	  /* the agent's for this test */
	/* The stall watch: the clients' progress, and whether the agent answers meanwhile. */
	bool measuring;
	uint64_t last_sum, last_progress, ping_at, pong_at;
	uint64_t shown_at; /* the progress line's last showing (0: none yet) */
	struct sampler *sampler; /* the rate series and the interval reports (sampler.c) */
	int pings; /* PINGs not answered yet */
	int64_t stall_tcp[2]; /* RetransSegs, ListenOverflows here at the PING (-1: unread) */
	double stall_s;
	char stall_who[256];
	struct ksyms *ksyms; /* --profile */
	struct prof *prof;
	struct trace *trace; /* --trace */
	struct outfile folded; /* --profile-folded, opened (.f) before the run */
	struct run_error *error; /* why it could not be set up */
};

/* The first SIGINT, SIGTERM or SIGHUP that came (0: none). */
extern volatile sig_atomic_t run_sig;
/* Catch SIGINT, SIGTERM and SIGHUP for a single run (run_sig); a second one, past the first's
 * echo (timeout(1) sends its SIGTERM twice), kills, unless run_signals_keep was called. */
void install_signals(void);

/* Why the run cannot go on (the first reason given wins): returns -err. usage: the
 * user's input was wrong (exit 2). */
int run_fail(struct run *r, int err, bool usage, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Mark the result partial, for the first reason given. */
void mark_partial(struct run *r, const char *why);
/* Once a second in the window, on a terminal: how far it is (report/out.h's line). */
void run_progress(struct run *r, uint64_t now);

#endif
