/* io_msg.c: one datagram per system call, sendmsg()/recvmsg() (the report's program); on a
 * connected socket send()/recvfrom(), as iperf3 and netperf do. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "transport/io.h"
#include "base/util.h"

static int msg_open(struct io_ctx *c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return io_waiter_open(c, 50);
}

/* One recvmsg; 1, 0 when it would block (or timed out blocking), or -errno. */
static int recv_one(struct io_ctx *c, int k, struct io_msg *m, int flags)
{
	struct iovec v = {.iov_base = m->buf, .iov_len = m->cap};
	struct msghdr h = {.msg_name = &m->addr, .msg_namelen = sizeof(m->addr), .msg_iov = &v,
			   .msg_iovlen = 1};

	for (;;) {
		c->syscalls++;
		/* Connected: recvfrom(), no message header to copy in; MSG_TRUNC makes it return the
		 * datagram's whole length, so a cut one is told as recvmsg tells it. */
		ssize_t n = c->connected ? recvfrom(c->fds[k], m->buf, m->cap, flags | MSG_TRUNC,
						    (struct sockaddr *)&m->addr, &h.msg_namelen)
					 : recvmsg(c->fds[k], &h, flags);

		if (n >= 0) {
			m->len = (size_t)n < m->cap ? (size_t)n : m->cap;
			m->sock = k;
			m->addrlen = h.msg_namelen;
			m->trunc = c->connected ? (size_t)n > m->cap : (h.msg_flags & MSG_TRUNC) != 0;
			return 1;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

/* Many sockets: only those the last epoll_wait found ready, each until it is empty. */
static int msg_recv_ready(struct io_ctx *c, struct io_msg *m, int n)
{
	int got = 0, k;

	while (got < n && (k = io_ready_peek(c)) >= 0) {
		int r = recv_one(c, k, &m[got], MSG_DONTWAIT);

		if (r < 0)
			return got ? got : r;
		if (r == 0)
			io_ready_drop(c);
		got += r;
	}
	return got;
}

/* One pass over the sockets, from where the last stopped, until n arrived or every socket
 * would block. A first call without MSG_DONTWAIT on a blocking socket (IO_WAIT_BLOCK) may
 * sleep, and then it is the only call. */
static int msg_pass(struct io_ctx *c, struct io_msg *m, int n, int flags)
{
	int got = 0, misses = 0;
	bool may_sleep = c->wait == IO_WAIT_BLOCK && !(flags & MSG_DONTWAIT);

	while (got < n && misses < c->nsock) {
		int k = c->next, r = recv_one(c, k, &m[got], flags);

		if (r < 0)
			return got ? got : r;
		if (r == 0) {
			misses++;
			c->next = (k + 1) % c->nsock;
		} else {
			misses = 0;
			got++;
		}
		flags = MSG_DONTWAIT;
		if (may_sleep && got == 0)
			break; /* a receive timeout: let the caller look at its clock */
	}
	return got;
}

static int msg_recv(struct io_ctx *c, struct io_msg *m, int n)
{
	if (c->ready_only)
		return msg_recv_ready(c, m, n);
	return io_recv_passes(c, m, n, msg_pass);
}

static int msg_send(struct io_ctx *c, struct io_msg *m, int n)
{
	for (int i = 0; i < n; i++) {
		struct iovec v = {.iov_base = m[i].buf, .iov_len = m[i].len};
		struct msghdr h = {.msg_name = c->connected ? NULL : &m[i].addr,
				   .msg_namelen = c->connected ? 0 : m[i].addrlen,
				   .msg_iov = &v,
				   .msg_iovlen = 1};

		c->syscalls++;
		/* Connected: send(), the call iperf3 and netperf make (no message header to copy
		 * in), the same datagram. */
		if ((c->connected ? send(c->fds[m[i].sock], m[i].buf, m[i].len, 0)
				  : sendmsg(c->fds[m[i].sock], &h, 0)) < 0) {
			if (errno == EINTR) {
				i--;
				continue;
			}
			return i ? i : (errno == EAGAIN || errno == ENOBUFS ? 0 : -errno);
		}
	}
	return n;
}

static void msg_close(struct io_ctx *c)
{
	io_waiter_close(c);
}

const struct io_ops io_msg_ops = {
	.name = "msg",
	.open = msg_open,
	.recv = msg_recv,
	.send = msg_send,
	.wait = io_waiter_wait,
	.wait_ns = io_waiter_wait_ns,
	.close = msg_close,
};
