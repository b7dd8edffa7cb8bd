/* side.h: one side of a test, as every layer sees it: the phases of a run, the errors and
 * counters a side keeps over the window, the memory the coordinator and its client processes
 * share, and the contexts a workload's client and server run in. Plain data and a few
 * helpers on it; it touches nothing but memory (no sockets, no printing). */
#ifndef SB_SIDE_H
#define SB_SIDE_H

#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "base/opts.h"
#include "measure/hist.h"
#include "measure/knobs_seen.h"
#include "measure/rusage.h"
#include "measure/tcp_info_dist.h"

/* Phases of a run; both sides count only in PH_MEASURE. PH_DRAIN (clients of a workload that
 * drains, workload.h): the window has closed; no new request is sent, and those sent in it
 * are answered (and timed) or counted lost, until every client says drained or a bound
 * passes. The server keeps answering meanwhile. */
enum phase { PH_SETUP, PH_WARMUP, PH_MEASURE, PH_DRAIN, PH_STOP };

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

#define SIDE_NEVER_SLEEPS 0xffffffffULL /* recv_spin_ns of a receiver that never sleeps */

/* Counted by one side during the measured window only. */
struct side_counters {
	uint64_t tx_packets, rx_packets; /* datagrams, or send/receive calls that moved data */
	uint64_t tx_bytes, rx_bytes;
	uint64_t transactions; /* client: completed units (answers, connections); server: its own */
	uint64_t lost;	       /* requests unanswered after --timeout; udp-stream: gaps in sequence */
	uint64_t late;	       /* client: answers to requests already counted lost */
	uint64_t connects;     /* connect() calls (client) or accepted connections (server) */
	uint64_t syscalls;     /* system calls made on the data path */
	/* A stream's receivers (tcp-stream, udp-stream): how long a receive that found nothing
	 * tried again before it slept, as this side's host chose it (0: at once; SIDE_NEVER_SLEEPS:
	 * never); the largest of the parts. */
	uint64_t recv_spin_ns;
	uint64_t recv_spin_told; /* ... its receivers that told it (0: none; an older agent) */
	uint64_t retrans;      /* TCP: segments retransmitted (TCP_INFO) */
	uint64_t segs_out;     /* TCP: segments sent (TCP_INFO) */
	uint64_t zc_done;      /* zero-copy sends the kernel reported complete */
	uint64_t zc_copied;    /* ... of which it copied after all */
	uint64_t zc_unknown;   /* ... of which it did not say (io_uring before Linux 6.2) */
	uint64_t reordered;    /* datagrams that came after a later one of their flow */
	uint64_t dups;	       /* datagrams seen twice */
	uint64_t seq_unsure;   /* datagrams too late to tell from a duplicate (seq.h) */
	uint64_t jitter_ns;    /* udp-stream's receiver: its flows' jitter at the end, added */
	uint64_t jitter_flows; /* ... and how many flows that is (two datagrams or more) */
	uint64_t refused;      /* server: connections it had no slot or memory for, closed at once */
	uint64_t idle_flows;   /* client, many flows: flows that completed nothing in the window */
	uint64_t listen_drops; /* server: connections its own listener dropped (SO_MEMINFO) */
	/* server: connections its listener's accept queue held (established by the kernel, not
	 * yet accepted) when its window opened and when it closed (TCP_INFO of the listener) */
	uint64_t accept_queue_open, accept_queue_close;
	uint64_t unfinished;   /* client: connections of the window still in flight at its end */
	uint64_t scheduled;    /* open loop (--rate): requests the schedule put in the window */
	uint64_t issued;       /* ... of which the generator had taken by the window's end */
	uint64_t gen_dropped;  /* ... of which it dropped: its in-flight limit was full */
	/* Open loop: how far sends fell behind their scheduled times (ns). Added up as the
	 * largest of the parts: a process's own p99, and the largest p99 of the processes. */
	uint64_t lag_p99_ns, lag_max_ns;
	/* Open loop: the longest one send or connect call of the generator blocked, the server
	 * holding it up (a full send buffer, a SYN not yet answered); the largest of the parts. */
	uint64_t held_max_ns;
	/* TCP_INFO of each connection, read once at the end of the window (persistent
	 * connections) or before its close (tcp-crr: a sample), summed over them: how many,
	 * rtt, rttvar, min_rtt (us), snd_cwnd (segments), delivery rate (bytes/s), and
	 * tcpi_total_retrans over each connection's life; with the smallest and the largest. */
	uint64_t ti_conns, ti_rtt_sum, ti_rtt_min, ti_rtt_max, ti_rttvar_sum, ti_minrtt_sum,
		ti_minrtt_min, ti_cwnd_sum, ti_cwnd_min, ti_cwnd_max, ti_rate_sum, ti_rate_max,
		ti_retrans;
	uint64_t errors;       /* sum of err[] */
	uint64_t err[ERR_KINDS];
};

struct cJSON;

/* Same host (family and address; ports aside)? The agent answers only its controller's. */
bool same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);
/* Is a an address of this host, in this network namespace (loopback, or any interface's)?
 * Then what is sent to it never leaves this network stack, and its kernel counters count
 * both ends. */
bool addr_is_this_host(const struct sockaddr_storage *a);
struct server_ctx;
/* Traffic from a this server answers: its controller's host, or a client host of the test. */
bool peer_allowed(const struct server_ctx *s, const struct sockaddr_storage *a);
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
	_Atomic uint64_t units; /* units counted in the window so far (the progress line) */
	_Atomic uint64_t bytes; /* payload bytes sent and received in the window so far */
	char pad[40];
};

/* Shared memory between the coordinator and the client processes. */
struct shared {
	struct progress_slot *progress; /* clients x PROGRESS_SLOTS, mapped shared too */
	_Atomic int phase;     /* written by the coordinator */
	_Atomic int ready;     /* clients whose sockets are open */
	_Atomic int warm_done; /* count-based runs: clients done with their warm-up share */
	_Atomic int done;      /* count-based runs: clients done with their window share */
	/* An eventfd the coordinator waits on in a count-based phase: a client adds to it when
	 * it adds to warm_done or done (client_share_done), so the coordinator sleeps until
	 * then rather than waking every few ms beside the load. -1: none. */
	int wake_fd;
	_Atomic int drain_units, drained; /* PH_DRAIN: units, and those with nothing in flight */
	_Atomic bool drain_began;	  /* the window was followed by a drain */
	_Atomic int fatal;     /* an errno that ends the run (e.g. EADDRNOTAVAIL), 0 if none */
	_Atomic long fatal_after; /* connections completed when it happened */
	/* Interval reports (-i; NULL without): each client's latency histograms where the
	 * coordinator can read them during the window. A process that records in its report
	 * (udp-rr) has it here (reports[i]); a threaded one records in live[i * live_per + t],
	 * one per thread, and sets threaded[i] before its threads start. */
	struct client_report *reports;
	struct hist *live;
	int live_per;
	_Atomic bool *threaded;
};

/* What one client process sends back to the coordinator through its pipe. */
struct client_report {
	int err; /* 0, or the errno of a setup failure described in msg */
	char msg[256];
	bool began, ended; /* saw the window open / close */
	struct cpu_mark begin, end;
	struct side_counters c;
	/* Memory before the workload opened anything, and at the end of the window. */
	struct mem_use mem_before, mem_end;
	struct hist lat;  /* per unit: round trip, or connect start to last byte; ns */
	struct hist lat2; /* connect() alone, where the workload connects; ns */
	struct knobs_seen sock; /* the socket knobs in force, from one of its sockets */
	struct tcp_info_dist ti; /* tcp-crr: the spread of its sampled connections' TCP_INFO */
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
	struct sockaddr_storage peer;  /* the controller: the host the data sockets answer */
	struct sockaddr_storage *also; /* --clients-on: the client hosts they answer as well */
	int nalso;
	/* also[i]'s client agent asked this agent to vouch for the test and was told yes: only
	 * then is its traffic answered (a datagram's source can be forged; a VOUCH comes over
	 * TCP from the host itself), so no host is sent to that did not ask. */
	_Atomic bool *also_vouched;
	int port;	   /* the bound data port, set by server_open */
	/* Connections accepted from hosts not in the test and closed (tcp_accept), as they come:
	 * the agent's listener watch reads it while the workers count. */
	_Atomic uint64_t foreign_conns;
	int listen_fd;	   /* TCP: the data listener, whose own drops the agent watches; else -1 */
	uint64_t token;	   /* this test's random token (udp-stream's datagrams carry it) */
	_Atomic long mem_left; /* bytes of buffers the test may still take (serve --max-memory) */
	_Atomic int phase; /* written by the agent's control thread */
	struct side_counters c;
	struct knobs_seen sock; /* the socket knobs in force, from one of its sockets */
	struct tcp_info_dist ti; /* tcp-crr: the spread of its sampled connections' TCP_INFO */
	void *priv;
};

/* Our count of a kernel counter, for the cross-check printed beside the kernel's. */
struct kernel_pair {
	const char *name; /* the /proc name */
	uint64_t ours;
};

/* A buffer of the server side, charged to the test's --max-memory: NULL (nothing taken) when
 * it would go past it. Zeroed. srv_free gives it back. */
void *srv_alloc(struct server_ctx *s, size_t n);
void srv_free(struct server_ctx *s, void *p, size_t n);

#endif
