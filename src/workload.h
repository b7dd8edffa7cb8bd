/* workload.h: what a workload is (a table entry, like neper's struct neper_fn), and what its
 * two sides share with the coordinator and the serve agent. */
#ifndef SB_WORKLOAD_H
#define SB_WORKLOAD_H

#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "hist.h"
#include "opts.h"
#include "rusage.h"

/* Phases of a run; both sides count only in PH_MEASURE. */
enum phase { PH_SETUP, PH_WARMUP, PH_MEASURE, PH_STOP };

/* Errors on the data path, counted by kind (wrk: errors.connect/read/write/timeout). */
enum err_kind {
	ERR_CONNECT,	   /* connect() refused or failed */
	ERR_ADDRNOTAVAIL,  /* connect(): no local port or address left */
	ERR_RESET,	   /* ECONNRESET / EPIPE */
	ERR_SHORT,	   /* the peer closed before sending everything */
	ERR_TIMEOUT,	   /* nothing came within --timeout */
	ERR_SEND,	   /* a send call failed */
	ERR_RECV,	   /* a receive call failed otherwise, or the data was malformed */
	ERR_FOREIGN,	   /* server: traffic from a host other than the controller's, ignored */
	ERR_KINDS,
};

/* Names of the kinds, as in the JSON: "connect", "addrnotavail", ... */
extern const char *const err_kind_names[ERR_KINDS];

/* Counted by one side during the measured window only. */
struct side_counters {
	uint64_t tx_packets, rx_packets; /* datagrams, or send/receive calls that moved data */
	uint64_t tx_bytes, rx_bytes;
	uint64_t transactions; /* client: completed units (answers, connections); server: its own */
	uint64_t lost;	       /* requests unanswered after --timeout; udp-stream: gaps in sequence */
	uint64_t late;	       /* client: answers to requests already counted lost */
	uint64_t connects;     /* connect() calls (client) or accepted connections (server) */
	uint64_t syscalls;     /* system calls made on the data path */
	uint64_t retrans;      /* TCP: segments retransmitted (TCP_INFO) */
	uint64_t segs_out;     /* TCP: segments sent (TCP_INFO) */
	uint64_t zc_done;      /* zero-copy sends the kernel reported complete */
	uint64_t zc_copied;    /* ... of which it copied after all */
	uint64_t zc_unknown;   /* ... of which it did not say (io_uring before Linux 6.2) */
	uint64_t reordered;    /* datagrams that came after a later one of their flow */
	uint64_t dups;	       /* datagrams seen twice */
	uint64_t refused;      /* server: connections it had no slot or memory for, closed at once */
	uint64_t listen_drops; /* server: connections its own listener dropped (SO_MEMINFO) */
	uint64_t errors;       /* sum of err[] */
	uint64_t err[ERR_KINDS];
};

struct cJSON;

/* Same host (family and address; ports aside)? The agent answers only its controller's. */
bool same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);
/* Add b into a. */
void side_counters_add(struct side_counters *a, const struct side_counters *b);
/* The counters as a JSON object (caller frees), and back: 0 or -EINVAL. */
struct cJSON *side_counters_to_json(const struct side_counters *c);
int side_counters_from_json(const struct cJSON *j, struct side_counters *c);
/* Count one error of a kind (only while measuring). */
static inline void count_err(struct side_counters *c, enum err_kind k, bool measuring)
{
	c->err[k] += measuring;
	c->errors += measuring;
}

/* Progress of the client threads, for the coordinator's stall watch: each thread stores its
 * own running count (nothing shared is written twice; thread i of a process uses slot i % 64). */
#define PROGRESS_SLOTS 64
struct progress_slot {
	_Atomic uint64_t v;
	char pad[56];
};

/* Shared memory between the coordinator and the client processes. */
struct shared {
	struct progress_slot *progress; /* clients x PROGRESS_SLOTS, mapped shared too */
	_Atomic int phase;     /* written by the coordinator */
	_Atomic int ready;     /* clients whose sockets are open */
	_Atomic int warm_done; /* count-based runs: clients done with their warm-up share */
	_Atomic int done;      /* count-based runs: clients done with their window share */
	_Atomic int fatal;     /* an errno that ends the run (e.g. EADDRNOTAVAIL), 0 if none */
	_Atomic long fatal_after; /* connections completed when it happened */
};

/* What one client process sends back to the coordinator through its pipe. */
struct client_report {
	int err; /* 0, or the errno of a setup failure described in msg */
	char msg[256];
	bool began, ended; /* saw the window open / close */
	struct cpu_mark begin, end;
	struct side_counters c;
	struct hist lat;  /* per unit: round trip, or connect start to last byte; ns */
	struct hist lat2; /* connect() alone, where the workload connects; ns */
};

struct client_ctx {
	const struct opts *o;
	int index; /* 0 .. clients-1 */
	int nsock; /* udp-rr: this client's share of --peers */
	struct sockaddr_storage server;
	socklen_t server_len;
	uint64_t token; /* the agent's token for this test */
	struct shared *sh;
	struct client_report *rep;
};

struct server_ctx {
	const struct opts *o;
	struct sockaddr_storage local; /* address to serve on; its port is --port */
	socklen_t local_len;
	struct sockaddr_storage peer;  /* the controller: the only host the data sockets answer */
	int port;	   /* the bound data port, set by server_open */
	int listen_fd;	   /* TCP: the data listener, whose own drops the agent watches; else -1 */
	uint64_t token;	   /* this test's random token (udp-stream's datagrams carry it) */
	_Atomic long mem_left; /* bytes of buffers the test may still take (serve --max-memory) */
	_Atomic int phase; /* written by the agent's control thread */
	struct side_counters c;
	void *priv;
};

/* Our count of a kernel counter, for the cross-check printed beside the kernel's. */
struct kernel_pair {
	const char *name; /* the /proc name */
	uint64_t ours;
};

struct result;

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

struct workload {
	const char *name; /* the subcommand */
	const char *summary;
	const struct opt_def *opts;
	const struct opt_override *overrides; /* this workload's defaults for shared options */
	const char *unit; /* what the rate counts: "transaction", "connection", "megabyte" */
	const char *latency_label;	      /* what lat measures */
	const char *snmp_proto;		      /* the /proc/net/snmp row to cross-check */
	/* Checks across options; may fill derived defaults. 0 or -EINVAL with err. */
	int (*check)(struct opts *o, char *err, size_t errlen);
	/* Count-based window (N units) rather than --duration? NULL: never. */
	bool (*count_based)(const struct opts *o);
	/* How many units the window moved (NULL: the client's transactions). */
	double (*units)(const struct result *r);
	/* The workload's own headline figures: printed to f when f is not NULL, added to the
	 * JSON document j when j is not NULL. NULL: none. */
	void (*headline)(const struct result *r, FILE *f, struct cJSON *j);
	/* Header line of the report. */
	void (*describe)(const struct opts *o, char *buf, size_t len);
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
	/* Client side: one process each; runs until PH_STOP and fills c->rep. 0 or -errno. */
	int (*client)(struct client_ctx *c);
	const struct strategy *strategies; /* what explore tries */
};

extern const struct workload wl_udp_rr, wl_tcp_crr, wl_tcp_rr, wl_tcp_stream, wl_udp_stream;
/* NULL-terminated table of every workload. */
extern const struct workload *const workloads[];
/* The workload of that name, or NULL. */
const struct workload *workload_find(const char *name);

/* A buffer of the server side, charged to the test's --max-memory: NULL (nothing taken) when
 * it would go past it. Zeroed. srv_free gives it back. */
void *srv_alloc(struct server_ctx *s, size_t n);
void srv_free(struct server_ctx *s, void *p, size_t n);

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
	struct client_ctx *c;
	struct thread_group *g;
	int index;
	long warm_share, share; /* count-based runs: units before and in the window */
	bool saw_measure;
	struct side_counters cnt;
	struct hist lat, lat2;
	void *priv; /* the workload's per-thread state */
	void *(*fn)(void *); /* what the thread runs */
};

/* --pin: pin the calling thread to the n-th CPU counting from the first (clients) or from the
 * last (server threads). The CPU, or -1. */
int pin_self(int n, bool from_last);
/* Split total units into parts; the share of part i. */
long share_of(long total, int parts, int i);
/* Run fn in n threads (t[i].priv filled by the caller; the rest is set here, shares from the
 * counts of this client), join them, and add every thread's counts to the report. The
 * threads follow the phase and take the CPU marks themselves (thread_phase). 0 or -errno if
 * a thread could not start. */
int client_threads_run(struct client_ctx *c, struct client_thread *t, int n, long warm_units,
		       long units, void *(*fn)(void *));
/* In a thread: the current phase (taking the window's CPU marks on its edges), and sleep
 * until it is at least ph. */
int thread_phase(struct client_thread *t);
/* For the coordinator's stall watch: this thread's running count of units of progress (its
 * transactions and bytes; thread_phase stores those of t->cnt itself). */
void thread_progress(struct client_thread *t, uint64_t units);
int thread_wait_phase(struct client_thread *t, int ph);
/* In a thread of a count-based run: this thread has finished its warm-up / window share. */
void thread_warm_done(struct client_thread *t);
void thread_done(struct client_thread *t);

/* In a client process: follow the coordinator's phase, taking the CPU marks at the window's
 * edges. Returns the phase now. Cheap: one shared-memory load when nothing changed. */
int client_follow_phase(struct client_ctx *c);
/* Block (sleeping 1 ms at a time) until the phase is at least ph, following it. */
int client_wait_phase(struct client_ctx *c, int ph);

#endif
