/* udp.h: what the UDP workloads share: sockets with the workload's options, the server's
 * bound socket(s), CPU pinning, message arrays, and the little-endian tag in a payload.
 * Sockets and memory only: no phases, no reports.
 */
#ifndef SB_UDP_H
#define SB_UDP_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "transport/io.h"
#include "measure/side.h"

/* The checks of --io, --batch and --sqpoll that both UDP workloads make. 0 or -EINVAL. */
int udp_io_check(const struct opts *o, char *err, size_t errlen);
/* A non-blocking UDP socket of that family with --no-check and --busy-poll. fd or -errno. */
int udp_socket(int family, const struct opts *o);
/* n messages with buffers of cap bytes each, allocated once; and freeing them. */
struct io_msg *msgs_alloc(int n, size_t cap);
void msgs_free(struct io_msg *m, int n);
/* A tag in the first min(size, 8) bytes of a payload, little-endian. */
void put_tag(uint8_t *buf, size_t size, uint64_t tag);
uint64_t get_tag(const uint8_t *buf, size_t size);
/* udp-rr: which request an answer of len bytes answers, from the tag in its first bytes: 0
 * with its slot (< window) and generation; 1 a slot past the window (late, or not ours); -1
 * malformed (not --size bytes). */
int udp_rr_tag(const uint8_t *buf, size_t len, size_t size, uint32_t window, uint32_t *slot,
	       uint32_t *gen);
/* The tag of slot's request of generation gen (the generation as far as size leaves room). */
uint64_t udp_rr_tag_make(size_t size, uint32_t window, uint32_t slot, uint32_t gen);

#define UDP_RX_BURST 64	      /* datagrams taken per receive call when not batching */
#define UDP_SERVER_WAIT_MS 50 /* a server looks at the phase at least this often */

/* The window as one side's loop follows it: measuring now, the back end's syscall count when
 * it opened, and its count of failed sends when last looked at. */
struct udp_window {
	uint64_t base, failed;
	bool measuring;
};

/* Follow phase ph: keep c->syscalls at the syscalls the back end made since the window
 * opened; sends it has since reported failed (io_uring completions) are taken off c's sent
 * datagrams and counted as send errors. Returns ph. */
int udp_window_follow(struct udp_window *w, int ph, const struct io_ctx *io,
		      struct side_counters *c);

/* The server side of the UDP workloads: a thread per socket, all on the agent's port
 * (SO_REUSEPORT with --server-threads > 1; the kernel spreads the peers over them). */
#define UDP_MAX_SERVER_THREADS 64

struct udp_srv_thread {
	CACHE_ALIGNED struct server_ctx *s; /* each thread's counters on lines of their own */
	int index, fd;
	pthread_t tid;
	struct side_counters c;
	void *priv; /* the workload's, freed by udp_server_close */
	struct udp_window win;
};

struct udp_server {
	int n;
	uint32_t spin_ns; /* a receiving thread's retries before it sleeps (io_ctx.spin_ns) */
	struct udp_srv_thread t[UDP_MAX_SERVER_THREADS];
};

/* Open and bind --server-threads sockets into s->priv; prepare (may be NULL) sets a socket's
 * options before its bind. 0 or -errno with err. */
int udp_server_open(struct server_ctx *s,
		    int (*prepare)(struct udp_srv_thread *t, char *err, size_t errlen), char *err,
		    size_t errlen);
/* Run serve in a thread per socket, each pinned with --pin and with its own io back end for
 * datagrams up to cap bytes, batch per call, depth sends in flight; then add up their
 * counters into s->c. sends: the server mostly sends (udp-stream --reverse), so its receive
 * calls never block (the client's --wait is the receiver's). */
void udp_server_run(struct server_ctx *s, size_t cap, int batch, int depth, bool sends,
		    void (*serve)(struct udp_srv_thread *t, const struct io_ops *ops,
				  struct io_ctx *io));
/* Close the sockets and free s->priv (and each thread's priv). */
void udp_server_close(struct server_ctx *s);
/* In a serve loop: the phase now, keeping t->c.syscalls at the back end's count over the
 * window. */
int udp_server_phase(struct udp_srv_thread *t, const struct io_ctx *io);
/* In a serve loop: take up to n datagrams, or (none there) count a failed call and wait up
 * to UDP_SERVER_WAIT_MS. How many came. */
int udp_server_recv(struct udp_srv_thread *t, const struct io_ops *ops, struct io_ctx *io,
		    struct io_msg *m, int n);

#endif
