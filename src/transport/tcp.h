/* tcp.h: what the TCP workloads share: the receive and send calls as ops tables (--recv,
 * --send; tcp_ops.c, tcp_uring.c), socket options, the listener and the one accept path, and
 * exact-length send/receive that classify failures by kind and notice the end of a test.
 * Every call counts the system calls it makes in the caller's tcp_io; a workload never tests
 * which call runs. Sockets and memory only: no reports, no phases beyond reading one. */
#ifndef SB_TCP_H
#define SB_TCP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>

#include "base/opts.h"
#include "measure/side.h"
#include "measure/tcp_info_sum.h"

struct tcp_io;

/* A receive call (--recv): recv, read, recvmsg, readv, recv(MSG_WAITALL), epoll_wait then
 * recv, or io_uring. Bytes, 0 when the peer closed, or -errno (-EAGAIN: nothing within the
 * socket's timeout or the ring's 50 ms wait); every system call made is added to
 * io->syscalls. */
struct tcp_recv_ops {
	const char *name;
	ssize_t (*recv)(struct tcp_io *io, int fd, void *buf, size_t len);
	const char *unavailable; /* why it cannot run in this build, or NULL */
};

/* A send call (--send): send, write, sendmsg, sendfile (from a memfd), splice (memfd, pipe,
 * socket), or io_uring. */
struct tcp_send_ops {
	const char *name;
	/* Ready a connection to send len bytes of buf (the memfd and pipe of sendfile and
	 * splice; SO_ZEROCOPY). 0 or -errno; tcp_io_close undoes it. */
	int (*open)(struct tcp_io *io, int fd, const char *buf, size_t len);
	/* Bytes taken, or -errno (-EAGAIN: nothing now); every system call counted. */
	ssize_t (*send)(struct tcp_io *io, int fd, const char *buf, size_t len);
	/* Wait up to ms for zero-copy completions and hand them to io->zc_fn. */
	void (*settle)(struct tcp_io *io, int fd, int ms);
	bool zerocopy;		 /* --zerocopy applies: MSG_ZEROCOPY, or IORING_OP_SEND_ZC */
	bool file;		 /* it sends from a memfd holding a copy of the buffer */
	const char *unavailable; /* why it cannot run in this build, or NULL */
};

/* The call of an option's value (RECV_*, SEND_*: opts.h), or NULL. */
const struct tcp_recv_ops *tcp_recv_of(int kind);
const struct tcp_send_ops *tcp_send_of(int kind);
/* --recv checked for a workload: 0, or -EINVAL with why in err. */
int tcp_recv_check(const struct opts *o, char *err, size_t errlen);
/* Zero-copy completions: sends [lo, hi) of a connection are done; copied: 1 the kernel
 * copied after all, 0 it did not, -1 it did not say (io_uring before Linux 6.2), -2 the send
 * moved nothing (an error or a timeout; io_uring): done, but no send to count. */
typedef void (*tcp_zc_fn)(void *arg, uint64_t lo, uint64_t hi, int copied);
/* io_uring's receive and send (tcp_uring.c), a ring per thread: the receive and send calls
 * "uring". A call that times out leaves its operation in flight for the next call. */
ssize_t tcp_uring_recv(struct tcp_io *io, int fd, void *buf, size_t len);
ssize_t tcp_uring_send(struct tcp_io *io, int fd, const char *buf, size_t len);
void tcp_uring_settle(struct tcp_io *io, int fd, int ms);
/* Cancel this thread's io_uring operations on fd; the system calls it took go to *calls. */
void tcp_uring_forget(int fd, uint64_t *calls);
/* --pin on the server side: pin the calling thread (the n-th server thread) from the last
 * CPU and steer fd's packets to it (SO_INCOMING_CPU; fd may be -1). */
void tcp_pin_server(const struct opts *o, int n, int fd);
/* Close a data socket: first end this thread's io_uring operations and epoll registration
 * on it; every system call it makes is added to *calls (may be NULL). */
void tcp_close(int fd, uint64_t *calls);
/* --rcvbuf, --sndbuf, --nodelay, --busy-poll, --rcvlowat on a socket. 0 or -errno. The
 * counted form adds each setsockopt() it makes to *calls. */
int tcp_sockopts(int fd, const struct opts *o);
int tcp_sockopts_counted(int fd, const struct opts *o, uint64_t *calls);
/* SO_RCVTIMEO and SO_SNDTIMEO. 0 or -errno. */
int tcp_timeouts(int fd, uint64_t ns);
/* Add (sign 1) or take away (sign -1) the socket's TCP_INFO retransmits and segments sent:
 * called at both edges of the window, it leaves their count over the window. */
void tcp_info_add(int fd, struct side_counters *c, int sign);
/* Add the socket's TCP_INFO (rtt, rttvar, min_rtt, cwnd, delivery rate, retransmits) to c's
 * ti_* sums as one more connection, and its rtt, min_rtt and cwnd to d (may be NULL: the sums
 * only); *calls (may be NULL) counts the getsockopt. */
void tcp_info_sample(int fd, struct side_counters *c, struct tcp_info_dist *d, uint64_t *calls);
/* What io counted (bytes, calls, system calls) added to c. */
void tcp_io_count(struct side_counters *c, const struct tcp_io *io);
/* The error kind of a failed call's errno. */
enum err_kind tcp_err_kind(int err);

/* What the exact-length calls return: 0 done; -ECANCELED the test ended (PH_STOP) while
 * waiting; -EIO failed, with the kind in io->why. */
#define TCP_FAILED(r) ((r) < 0 && (r) != -ECANCELED)

/* tcp-stream: the direction a connection's first byte names ('U' the client sends, 'D' the
 * server sends), or -1 for anything else. */
int stream_dir_of(const uint8_t *buf, size_t n);

#define TCP_NEVER_SLEEP UINT64_MAX

/* A thread's (or a connection's) TCP calls and what they counted. */
struct tcp_io {
	const struct tcp_recv_ops *rx;
	const struct tcp_send_ops *tx;
	size_t chunk;	     /* the most asked of one receive call */
	bool quickack;	     /* TCP_QUICKACK before each receive */
	/* --recv recv and recvmsg: a receive that finds nothing tries again without sleeping
	 * for up to this long before it sleeps in the call (0: sleeps at once; TCP_NEVER_SLEEP:
	 * one try, -EAGAIN if it finds nothing); each try a counted call */
	uint64_t spin_ns;
	_Atomic int *phase;  /* give up at PH_STOP, seen between timed-out waits; may be NULL */
	uint64_t timeout_ns; /* no progress this long: ERR_TIMEOUT */
	uint64_t rx_calls;   /* receive calls that moved data */
	uint64_t tx_calls;   /* send calls that moved data */
	uint64_t syscalls;   /* every system call made through this, moving data or not */
	uint64_t rx_bytes;   /* bytes the receive calls returned */
	uint64_t tx_bytes;   /* bytes the send calls took */
	enum err_kind why;   /* set when a call fails (-EIO) */
	/* The send call's own: sendfile's and splice's memfd and pipe (-1: none). */
	int memfd, pipe[2];
	/* Zero-copy sends: numbered from 0 (zc_id: the next); the kernel's completions go to
	 * zc_fn(zc_arg, ...); zc_reaped_at: every number below it has been told (in order). */
	bool zerocopy;
	uint64_t zc_id, zc_reaped_at;
	tcp_zc_fn zc_fn;
	void *zc_arg;
};

/* Close what the send call's open made (memfd and pipe hold -1 where there is none). */
void tcp_io_close(struct tcp_io *io);

/* Receive exactly n bytes: 0, -EIO (io->why says why), or -ECANCELED. */
int tcp_recv_n(struct tcp_io *io, int fd, char *buf, size_t n);
/* Send exactly n bytes: the same returns. */
int tcp_send_n(struct tcp_io *io, int fd, const char *buf, size_t n);
/* Read until the peer closes (or resets, or timeout): before closing our end second. */
void tcp_drain_to_eof(struct tcp_io *io, int fd, char *buf, size_t cap);

/* Listen on the agent's address and --port (with a 50 ms accept timeout, so accept loops see
 * the end of a test); sets s->port and s->listen_fd. The fd, or -errno with err. */
int tcp_listen(struct server_ctx *s, int backlog, char *err, size_t errlen);
/* server_close of the TCP workloads, whose priv begins with the listening fd: close it and
 * free priv. */
void tcp_server_close(struct server_ctx *s);
/* The accept path of every TCP server: accept4, then close at once (and count) a connection
 * from a host other than the controller's (foreign) or one the test has no room for (!room:
 * refused), before the caller stores anything. The fd, or -1 (errno set; EAGAIN after a
 * timeout or a closed connection). */
int tcp_accept(struct server_ctx *s, int lfd, struct side_counters *c, bool room);

#endif
