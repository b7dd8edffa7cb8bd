/* workload.h: what a workload is (a table entry, like neper's struct neper_fn: options, the
 * data path of each side, its figures, explore's strategies), the table of them, and the
 * client harness they share (threads that follow the phase and count on their own). A
 * workload reaches down to transport/ and measure/, never up to the report or the run. */
#ifndef SB_WORKLOAD_H
#define SB_WORKLOAD_H

#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "base/cpus.h"
#include "base/figure_table.h"
#include "base/util.h"
#include "base/opts.h"
#include "measure/side.h"

struct result;
struct headline;

/* One user-space change that explore tries: flags added to the user's own. At most one
 * strategy of a group goes into the best combination. NULL name ends a table. */
struct strategy {
	const char *name;
	const char *group;
	const char *args;
	/* It changes what is measured, not how (who holds TIME_WAIT, connections in flight, the
	 * number of flows): explore reports it apart, never ranks or combines it. */
	bool changes_workload;
};

/* Both ends on one CPU (base/cpus.h's cpus_one_args): on loopback a sender wakes its receiver,
 * across CPUs by an interrupt to the other CPU (in a guest, an exit to the host on each side),
 * often a ping-pong's largest cost; on one CPU by a switch. The other placement of the pin
 * group: --pin keeps the two apart. */
#define STRATEGY_ONE_CPU {"client and server on one CPU", "pin", cpus_one_args, false}
/* The strategies that apply to every workload with server threads and sockets to pin. */
#define STRATEGIES_EVERY_SERVER                                                                    \
	{"pin to CPUs", "pin", "--pin", false},                                                    \
		{"SO_BUSY_POLL 50 us", "busypoll", "--busy-poll 50", false}, STRATEGY_ONE_CPU

/* What an "auto" option resolved to, or why: a config key and its text (workload.choices). */
struct choice {
	const char *key, *value;
};
/* A stream receiver's wait as its side reported it, where this host's rule would choose
 * otherwise (the receiver's host has other CPUs). */
#define RECV_SPIN_ELSEWHERE                                                                        \
	"the receiving side's host chose it by the rule (a receive tries again first where every " \
	"busy thread has a CPU), with its own CPUs, where this host's would choose otherwise"
/* ... and where a receiver elsewhere did not say (an agent built before it told). */
#define RECV_SPIN_UNTOLD                                                                           \
	"this host's rule: the receiving side's host, whose own CPUs decide, did not say what it " \
	"chose (a sockbench from before it told)"
#define CHOICES_MAX 4

struct workload {
	const char *name; /* the subcommand */
	const char *summary;
	const struct opt_def *opts;
	const struct opt_override *overrides; /* this workload's defaults for shared options */
	const char *unit; /* what the rate counts: "transaction", "connection", "megabyte" */
	const char *latency_label;	      /* what lat measures */
	const char *snmp_proto;		      /* the /proc/net/snmp row to cross-check */
	/* What its report shows beyond every workload's figures (SHOWS_*, base/figure_table.h);
	 * the report asks these, never the name. Transactions, a stream and a drain follow from
	 * units and drains (workload_shows). */
	unsigned shows;
	/* It reads TCP_INFO (tcp_info in its JSON): from one connection in so many (0: none). */
	int tcp_info_every;
	/* Checks across options; may fill derived defaults. 0 or -EINVAL with err. */
	int (*check)(struct opts *o, char *err, size_t errlen);
	/* Count-based window (N units) rather than --duration? NULL: never. */
	bool (*count_based)(const struct opts *o);
	/* How many units the window moved (NULL: the client's transactions). */
	double (*units)(const struct result *r);
	/* Its units from the clients' running counts during the window (transactions, payload
	 * bytes), for the interval reports (NULL: the transactions). */
	double (*live_units)(const struct opts *o, uint64_t transactions, uint64_t bytes);
	/* The workload's own headline figures, as rows and JSON members (NULL: none, the
	 * report's own transaction headline). */
	void (*headline)(const struct result *r, struct headline *h);
	/* What its "auto" options resolved to for o, and why: up to CHOICES_MAX pairs, added to
	 * the result's config (NULL: none); returns how many. r: the run's result, for what its
	 * sides reported they chose (NULL: o alone). */
	int (*choices)(const struct opts *o, const struct result *r, struct choice *out);
	/* Header line of the report. */
	void (*describe)(const struct opts *o, char *buf, size_t len);
	/* Did the run hold the load it was asked for (a pace: --rate), and if not, why (NULL:
	 * nothing to hold; open loop is openloop.c's)? A run that did not is partial. */
	bool (*holding)(const struct result *r, char *why, size_t len);
	/* Our counts for the kernel counters we cross-check (up to 4); returns how many. */
	int (*kernel_pairs)(const struct result *r, struct kernel_pair *out);
	/* Server side, in the agent: open the data socket(s) (0 or -errno with err), serve until
	 * the phase is PH_STOP (in a thread of the agent; it may start and join its own), close. */
	int (*server_open)(struct server_ctx *s, char *err, size_t errlen);
	/* The bytes of buffers the server side takes for this config, at most (checked against
	 * serve --max-memory before anything is opened). */
	double (*server_bytes)(const struct opts *o);
	void (*server_loop)(struct server_ctx *s);
	void (*server_close)(struct server_ctx *s);
	/* Its clients drain (PH_DRAIN): every request sent in the window is answered or counted
	 * lost before they stop, so a stall at the window's end is counted, not cut off. */
	bool drains;
	/* Client side: one process each; runs until PH_STOP and fills c->rep. 0 or -errno. */
	int (*client)(struct client_ctx *c);
	const struct strategy *strategies; /* what explore tries */
};

/* Every workload, one line each: NAME is its struct wl_NAME (wl_NAME.c), and the order is the
 * table's (`sockbench list`). */
#define WORKLOAD_LIST(X) X(udp_rr) X(tcp_crr) X(tcp_rr) X(tcp_stream) X(udp_stream)
#define WORKLOAD_EXTERN(name) extern const struct workload wl_##name;
WORKLOAD_LIST(WORKLOAD_EXTERN)
#undef WORKLOAD_EXTERN
/* NULL-terminated table of every workload (WORKLOAD_LIST's). */
extern const struct workload *const workloads[];
/* The workload of that name, or NULL. */
const struct workload *workload_find(const char *name);
/* What wl shows (SHOWS_*): its own flags and those its units and drains imply. */
unsigned workload_shows(const struct workload *wl);


/* Workloads whose client process runs several threads (TCP: one per connection in flight or
 * per flow). Each thread counts on its own; the process's main thread follows the phase,
 * takes the CPU marks, and tells the coordinator when every thread is done with a share. */
struct thread_group {
	int n;
	bool count_based;
	_Atomic int warm, done;	     /* threads done with their share */
	_Atomic bool began, ended;   /* the process's CPU marks are taken */
};

struct client_thread {
	CACHE_ALIGNED struct client_ctx *c; /* an array of them: see xcalloc_lines */
	struct thread_group *g;
	int index;
	long warm_share, share; /* count-based runs: units before and in the window */
	bool saw_measure;
	struct side_counters cnt;
	/* Where the thread records its latencies: lat_own, or with -i its histogram in the
	 * memory shared with the coordinator (struct shared's live). */
	struct hist *lat;
	struct hist lat_own, lat2;
	struct tcp_info_dist ti; /* tcp-crr: its sampled connections' TCP_INFO spread */
	void *priv; /* the workload's per-thread state */
	void *(*fn)(void *); /* what the thread runs */
};

/* Split total units into parts; the share of part i. */
long share_of(long total, int parts, int i);
/* What a client runs once its flows are set up: n threads of fn (t[i].priv filled by the
 * caller; the rest is set by client_go), the warm-up's and the window's units of a count-based
 * run (shared out from this client's share; 0: a time-based run), and the drain units to
 * register (0: none). */
struct client_run {
	struct client_thread *t;
	int n, drain;
	long warm, units;
	void *(*fn)(void *);
};
/* After this client's set-up (ret 0, or the -errno it failed with): register its drain units,
 * say it is ready (the coordinator waits for every client) and, unless set-up failed, run the
 * threads, join them and add every thread's counts to the report. The threads follow the phase
 * and take the CPU marks themselves (thread_phase). Returns ret, or -errno if a thread could
 * not start. */
int client_go(struct client_ctx *c, int ret, const struct client_run *r);
/* In a thread: the current phase (taking the window's CPU marks on its edges), and sleep
 * until it is at least ph. */
int thread_phase(struct client_thread *t);
/* For the coordinator's stall watch: this thread's running count of units of progress (its
 * transactions and bytes; thread_phase stores those of t->cnt itself). */
void thread_progress(struct client_thread *t, uint64_t units, uint64_t bytes);
int thread_wait_phase(struct client_thread *t, int ph);
/* In a thread of a count-based run: this thread has finished its warm-up / window share. */
/* A client process is done with its warm-up share (warm) or its window share: counted in the
 * shared memory, and the coordinator woken. */
void client_share_done(struct shared *sh, bool warm);
void thread_warm_done(struct client_thread *t);
void thread_done(struct client_thread *t);
/* The drain (PH_DRAIN, a workload that drains): a client registers its units (a process, a
 * flow, a thread) before its window opens, and each says once when it has nothing of the
 * window in flight; the coordinator waits for all of them, --timeout at most. */
void drain_register(struct client_ctx *c, int units);
/* What a request with no answer is recorded at (censored, hist.h): what it waited, and
 * --timeout at least, since it never got its answer: a connection refused after 20 us is not a
 * 20 us one, and its count would mark every percentile above 20 us a lower bound. */
static inline uint64_t lost_wait(const struct opts *o, uint64_t waited)
{
	uint64_t t = (uint64_t)o->timeout * 1000000;

	return waited > t ? waited : t;
}
void drain_done(struct client_ctx *c);

/* A stream's receivers all run on this host (the server unless --server, the clients with
 * --reverse unless --clients-on or --client-hosts): this host's rule for their wait is
 * theirs, and the header may say it before they report. */
bool stream_receivers_here(const struct opts *o);

/* In a client process: follow the coordinator's phase, taking the CPU marks at the window's
 * edges. Returns the phase now. Cheap: one shared-memory load when nothing changed. */
int client_follow_phase(struct client_ctx *c);
/* Block (sleeping 1 ms at a time) until the phase is at least ph, following it. */
int client_wait_phase(struct client_ctx *c, int ph);
/* A client set up (ret 0) tells the coordinator it is ready; one whose set-up failed (-errno,
 * the reason in c->rep->msg) does not: it exits, and the coordinator, seeing it gone before
 * every client was ready, fails the run with its reason (group_wait_ready). Counted ready, a
 * failed client was left out of the run unsaid (udp-rr --clients 2 --peers 30000, where the
 * second found no local port: half the offered rate, "holding load: yes"). */
void client_ready(struct client_ctx *c, int ret);
/* A single-threaded client: client_ready, then, when set up, wait for the warm-up. Returns
 * ret. */
int client_ready_wait(struct client_ctx *c, int ret);

/* The workload named by a subcommand's argument; exits 2 naming cmd when there is none. */
const struct workload *workload_or_exit(const char *cmd, const char *name);
/* After a workload's check: what the config records is what runs (the local family, --io
 * auto resolved), as docs/json.md promises. */
void workload_effective(const struct workload *wl, struct opts *o);
/* Defaults, then argv (argv[0] is the subcommand), then the workload's check: exits 2 with a
 * one-line reason on a usage error, 0 after printing --help. --format json sets json, and
 * --json format (one flag, two spellings); --json with another --format is a usage error. */
void workload_parse_or_exit(const struct workload *wl, int argc, char **argv, struct opts *o);

#endif
