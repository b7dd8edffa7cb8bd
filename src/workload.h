/* workload.h: what a workload is (a table entry, like neper's struct neper_fn), and what its
 * two sides share with the coordinator and the serve agent. */
#ifndef SB_WORKLOAD_H
#define SB_WORKLOAD_H

#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "hist.h"
#include "opts.h"
#include "rusage.h"

/* Phases of a run; both sides count only in PH_MEASURE. */
enum phase { PH_SETUP, PH_WARMUP, PH_MEASURE, PH_STOP };

/* Counted by one side during the measured window only. */
struct side_counters {
	uint64_t tx_packets, rx_packets;
	uint64_t transactions; /* client: answered requests; server: answers sent */
	uint64_t lost;	       /* client: requests unanswered after --timeout */
	uint64_t late;	       /* client: answers to requests already counted lost */
	uint64_t errors;       /* failed calls and malformed answers */
};

/* What one client process sends back to the coordinator through its pipe. */
struct client_report {
	int err; /* 0, or the errno of a setup failure described in msg */
	char msg[256];
	bool began, ended; /* saw the window open / close */
	struct cpu_mark begin, end;
	struct side_counters c;
	struct hist lat; /* round-trip times, ns */
};

struct client_ctx {
	const struct opts *o;
	int index; /* 0 .. clients-1 */
	int nsock; /* this client's share of --peers */
	struct sockaddr_storage server;
	socklen_t server_len;
	_Atomic int *phase; /* written by the coordinator, shared memory */
	_Atomic int *ready; /* clients increment it once their sockets are open */
	struct client_report *rep;
};

struct server_ctx {
	const struct opts *o;
	struct sockaddr_storage local; /* address to serve on; its port is --port */
	socklen_t local_len;
	int port;	    /* the bound data port, set by server_open */
	_Atomic int phase;  /* written by the agent's control thread */
	int wake_fd;	    /* eventfd, written after each phase change */
	struct side_counters c;
	void *priv;
};

struct workload {
	const char *name; /* the subcommand */
	const char *summary;
	const struct opt_def *opts;
	const char *snmp_proto; /* the /proc/net/snmp row to cross-check */
	/* Checks across options; may fill derived defaults. 0 or -EINVAL with err. */
	int (*check)(struct opts *o, char *err, size_t errlen);
	/* Server side, in the agent: open the data socket(s) (0 or -errno with err), serve until
	 * the phase is PH_STOP (in a thread of its own), close. */
	int (*server_open)(struct server_ctx *s, char *err, size_t errlen);
	void (*server_loop)(struct server_ctx *s);
	void (*server_close)(struct server_ctx *s);
	/* Client side: one process each; runs until PH_STOP and fills c->rep. 0 or -errno. */
	int (*client)(struct client_ctx *c);
};

extern const struct workload wl_udp_rr;
/* NULL-terminated table of every workload. */
extern const struct workload *const workloads[];
/* The workload of that name, or NULL. */
const struct workload *workload_find(const char *name);

#endif
