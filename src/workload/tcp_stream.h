/* tcp_stream.h: what wl_tcp_stream.c (the workload, its client and server) and
 * tcp_stream_conn.c (a connection's two ends) share. Not for use outside workload/. */
#ifndef SB_TCP_STREAM_H
#define SB_TCP_STREAM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "base/opts.h"
#include "measure/side.h"
#include "transport/tcp.h"

#define DIR_UP 'U'   /* client to server */
#define DIR_DOWN 'D' /* server to client */

struct client_thread;

struct stream_conn {
	CACHE_ALIGNED int fd; /* an array of them, one a thread: see xcalloc_lines */
	char dir;     /* DIR_UP or DIR_DOWN */
	bool sender;  /* this side sends on it */
	const struct opts *o;
	_Atomic int *phase;
	struct tcp_io io; /* the --send and --recv calls, and their count of system calls */
	char *buf;
	size_t buflen;
	struct server_ctx *srv; /* the server's: its buffers count against --max-memory */
	size_t size, chunk;
	/* Zero-copy: the numbers of the window's sends are [zc_lo, zc_hi) (io.zc_id counts
	 * them); zc_told: how many the kernel has reported done */
	uint64_t zc_lo, zc_hi, zc_told;
	bool zc_window_open, zc_window_closed;
	struct side_counters cnt;
	bool saw_measure;
	struct client_thread *t; /* client side: follows the phase for the CPU marks */
};

/* --wait auto: how long a receiver whose receive finds nothing tries again before it sleeps,
 * where stream_spin_why says it may. A 64 KB segment comes every ~20 us at 25 Gbit/s: 50 us
 * spans a gap between two, and a sender that stops (the window's end) costs 50 us of tries. */
#define STREAM_SPIN_NS 50000
/* The receiver's io.spin_ns by --wait: auto STREAM_SPIN_NS where stream_spin_why says so,
 * else 0; block 0; busy TCP_NEVER_SLEEP. */
uint64_t stream_spin_ns(const struct opts *o);
/* Why a receiver with --wait auto sleeps at once (NULL: it tries again first); and why it
 * waits as it does, in words, for the config. */
const char *stream_spin_why(const struct opts *o);
/* With o, whether --wait auto tries again is for the receiver's host's CPUs to decide. */
bool stream_spin_by_cpus(const struct opts *o);
const char *stream_wait_reason(const struct opts *o);

/* Buffers and the send call's files. 0 or -errno (-ENOMEM: past serve --max-memory). */
int conn_setup(struct stream_conn *k, const struct opts *o, _Atomic int *phase,
	       struct server_ctx *srv);
void conn_free(struct stream_conn *k);
/* Send, or receive, until the phase is PH_STOP or the connection ends. */
void run_sender(struct stream_conn *k);
/* -n: send for --warmup by this thread's clock, then t->share bytes in the window, each part
 * ended when the kernel has every byte acknowledged (the send queue empty: nothing of it left
 * to cross a window's edge), then wait for the end of the test. */
void run_sender_bytes(struct stream_conn *k, struct client_thread *t);
void run_receiver(struct stream_conn *k);

#endif
