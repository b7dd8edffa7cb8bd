/* tcp.h: what the TCP workloads share: the receive-call table (--recv), socket options, and
 * exact-length send/receive that classify failures by kind and notice the end of a test. */
#ifndef SB_TCP_H
#define SB_TCP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/opts.h"
#include "measure/side.h"

/* One receive call: recv, read, recvmsg, readv or recv(MSG_WAITALL). */
typedef ssize_t (*recv_fn)(int fd, void *buf, size_t len);

/* The call named by --recv, or NULL. */
recv_fn tcp_recv_fn(const char *name);
/* Why a --recv call cannot run in this build, or NULL. */
const char *tcp_recv_not_applicable(const char *name);
/* io_uring recv and send of one buffer, a ring per thread (tcp_uring.c); -1 with errno
 * (EAGAIN after a 50 ms wait, the operation left in flight for the next call). */
ssize_t tcp_uring_recv(int fd, void *buf, size_t len);
ssize_t tcp_uring_send(int fd, const void *buf, size_t len);
/* A zero-copy send through io_uring (IORING_OP_SEND_ZC) with the caller's id: fn is told
 * (id, copied) when the kernel lets go of the buffer, as this thread's completions are
 * reaped, if *more says a notification follows (it may, even after a failure). copied: 1 the
 * kernel copied after all, 0 it did not, -1 unknown (a kernel before 6.2 does not say). */
typedef void (*tcp_zc_fn)(void *arg, uint64_t id, int copied);
ssize_t tcp_uring_send_zc(int fd, const void *buf, size_t len, uint64_t id, tcp_zc_fn fn,
			  void *arg, bool *more);
/* Wait up to ms for this thread's io_uring completions and take them (notifications). */
void tcp_uring_settle(int ms);
/* Cancel this thread's io_uring operations on fd (before closing it). */
void tcp_uring_forget(int fd);
/* System calls a receive call made beyond the one its caller counts (epoll_wait and
 * epoll_ctl before a recv), this thread; taking them resets the count. */
extern __thread uint64_t tcp_extra_syscalls;
static inline uint64_t tcp_extra_syscalls_take(void)
{
	uint64_t n = tcp_extra_syscalls;

	tcp_extra_syscalls = 0;
	return n;
}
/* --pin on the server side: pin the calling thread (the n-th server thread) from the last
 * CPU and steer fd's packets to it (SO_INCOMING_CPU; fd may be -1). */
void tcp_pin_server(const struct opts *o, int n, int fd);
/* Close a data socket: first end this thread's io_uring operations and epoll registration
 * on it. */
void tcp_close(int fd);
/* --rcvbuf, --sndbuf, --nodelay, --busy-poll, --rcvlowat on a socket. 0 or -errno. The
 * counted form adds each setsockopt() it makes to *calls. */
int tcp_sockopts(int fd, const struct opts *o);
int tcp_sockopts_counted(int fd, const struct opts *o, uint64_t *calls);
/* SO_RCVTIMEO and SO_SNDTIMEO. 0 or -errno. */
int tcp_timeouts(int fd, uint64_t ns);
/* Add (sign 1) or take away (sign -1) the socket's TCP_INFO retransmits and segments sent:
 * called at both edges of the window, it leaves their count over the window. */
void tcp_info_add(int fd, struct side_counters *c, int sign);
/* The error kind of a failed call's errno. */
enum err_kind tcp_err_kind(int err);

enum { TCP_OK = 0, TCP_FAIL = -1, TCP_STOPPED = -2 };

/* tcp-stream: the direction a connection's first byte names ('U' the client sends, 'D' the
 * server sends), or -1 for anything else. */
int stream_dir_of(const uint8_t *buf, size_t n);

struct tcp_io {
	recv_fn recv;
	size_t chunk;	     /* the most asked of one receive call */
	bool quickack;	     /* TCP_QUICKACK before each receive */
	_Atomic int *phase;  /* give up at PH_STOP, seen between timed-out waits; may be NULL */
	uint64_t timeout_ns; /* no progress this long: ERR_TIMEOUT */
	uint64_t rx_calls;   /* receive calls that moved data */
	uint64_t tx_calls;   /* send calls that moved data */
	uint64_t syscalls;   /* every system call made through this, moving data or not */
	uint64_t rx_bytes;   /* bytes the receive calls returned */
	uint64_t tx_bytes;   /* bytes the send calls took */
	enum err_kind why;   /* set when TCP_FAIL */
};

/* Receive exactly n bytes. TCP_OK, TCP_FAIL (io->why), or TCP_STOPPED. */
int tcp_recv_n(struct tcp_io *io, int fd, char *buf, size_t n);
/* Send exactly n bytes. Same returns. */
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
