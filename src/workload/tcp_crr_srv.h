/* tcp_crr_srv.h: the parts of tcp-crr's server side: its threads and their accept loops
 * (tcp_crr_server.c) and what a connection goes through, from accepted to closed
 * (tcp_crr_conn.c). Not for use outside these two. */
#ifndef SB_TCP_CRR_SRV_H
#define SB_TCP_CRR_SRV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "measure/side.h"
#include "workload/tcp_crr.h"

#define MAX_SERVER_THREADS 64

enum crr_step { STEP_REQUEST, STEP_SEND, STEP_DRAIN, STEP_DONE, STEP_FAIL };

struct crr_conn {
	int fd;
	int pos;	   /* parked: its place in the owner's list */
	enum crr_step step;
	size_t left;	   /* bytes of the request, or of the messages, still to go */
	bool measuring;	   /* accepted in the window */
	uint64_t deadline; /* parked: no progress by then is a timeout */
	uint64_t rx_calls, tx_calls;
	enum err_kind why;
};

struct crr_worker {
	CACHE_ALIGNED struct crr_server *x; /* each thread's counters on lines of their own */
	int ep; /* the listener and the parked connections */
	int nparked;
	int *parked; /* the descriptors it has parked (tab holds their state) */
	/* Parked connections' state by descriptor: the server's table, or with a descriptor
	 * table of its own (own), one of its own too; cap: the most it parks, then it leaves
	 * the listener to the others (listening) until it is down to half. */
	struct crr_conn *tab;
	int tabn, cap;
	bool own, listening;
	uint64_t next_scan;
	struct side_counters cnt;
	struct tcp_info_dist ti; /* its sampled connections' TCP_INFO spread */
	char *buf;
	size_t buflen;
};

struct crr_server {
	int lfd; /* first: tcp_server_close */
	int nthreads;
	bool many; /* above CRR_MANY_ABOVE: a few epoll threads */
	/* Descriptor tables the connections in flight need (nofile_tables): above 1, each
	 * thread takes one of its own (unshare(CLONE_FILES)), as tcp-rr's server does. */
	int tables;
	struct crr_conn *tab; /* by descriptor: parked connections, each written by its owner */
	int tabn;
	pthread_t tid[MAX_SERVER_THREADS];
	struct crr_worker w[MAX_SERVER_THREADS];
	struct server_ctx *s;
	_Atomic int next;
};

/* A connection accepted (measuring: in the window): served as far as it goes without
 * waiting, then finished or parked. */
void crr_serve_new(struct crr_worker *w, int fd, bool measuring);
/* A parked connection's socket is ready: go on; done, failed, or parked again. */
void crr_resume(struct crr_worker *w, int fd);
/* Parked connections past their deadline: timed out (a scan now and then). */
void crr_expire(struct crr_worker *w);
/* Out of the owner's list (before the close that frees its descriptor). */
void crr_unpark(struct crr_worker *w, struct crr_conn *k);

#endif
