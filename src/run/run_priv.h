/* run_priv.h: what the coordinator's files share (run.c, agent.c, clients.c, isolated.c): the
 * state of one run and the steps each file does for the others. Not for use outside run/. */
#ifndef SB_RUN_PRIV_H
#define SB_RUN_PRIV_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/outfile.h"
#include "measure/result.h"
#include "run/run.h"
#include "profile/prof.h"
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

/* A client host of --clients-on: its agent runs its share of the clients. */
struct remote_host {
	char name[280]; /* as given: HOST[:PORT] */
	char host[256], port[32];
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
	char fatal[300];  /* what to tell the user on stderr after the report */
	uint64_t token;	  /* the agent's for this test */
	/* The stall watch: the clients' progress, and whether the agent answers meanwhile. */
	bool measuring;
	uint64_t last_sum, last_progress, ping_at, pong_at;
	uint64_t series_at, series_bytes; /* the rate series' last sample: when, what */
	int series_cap;
	int pings; /* PINGs not answered yet */
	double stall_s;
	char stall_who[200];
	struct ksyms *ksyms; /* --profile */
	struct prof *prof;
	struct outfile folded; /* --profile-folded, opened (.f) before the run */
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
int spawn_local_agent(struct run *r);
/* Split "HOST[:PORT]" or "[V6]:PORT". 0 or -errno (why in r). */
int split_hostport(struct run *r, const char *flag, const char *s, char *host, size_t hlen,
		   char *port, size_t plen);
int reach_agent(struct run *r, const char *host, const char *port);
int connect_agent(struct run *r, const char *host, const char *port);
/* HELLO (and AUTH) on fd; who names the agent in messages. 0 or -errno (why in r). */
int agent_greet(struct run *r, int fd, const char *who);
int agent_refused(struct run *r);
/* The config an agent gets: o (the run's options, or a client host's share) without the
 * controller's own files and addresses. */
struct cJSON *setup_config(const struct run *r, const struct opts *o);
/* The server's data address, its token, and the server agent's control address that a client
 * agent checks them with (the "target" of a client host's SETUP). Caller frees. */
struct cJSON *server_target(const struct run *r);
const char *agent_said(struct run *r);
void reap_agent(struct run *r);

/* fanout.c: --clients-on */
int hosts_parse(struct run *r);
struct cJSON *hosts_peers(const struct run *r);
int hosts_reach(struct run *r);
/* Frames from the hosts, without waiting: NULL, or why the run cannot go on. */
const char *hosts_watch(struct run *r);
void hosts_begin(struct run *r);
void hosts_end(struct run *r);
/* The hosts' results, merged into r->res (with the local one, already in r->res.client). */
void hosts_collect(struct run *r, const struct side_result *local, const struct hist *lat,
		   const struct hist *lat2);
uint64_t hosts_progress(const struct run *r);
int hosts_count(const struct run *r, bool warm);
void hosts_close(struct run *r);

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
