/* io_mmsg.c: batches of datagrams per system call, recvmmsg()/sendmmsg(). A batch of answers
 * to many peers goes out in one sendmmsg, as the report's author wished for. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "transport/io.h"
#include "base/util.h"

struct mmsg {
	struct mmsghdr *h;
	struct iovec *v;
};

static int mmsg_open(struct io_ctx *c, char *err, size_t errlen)
{
	struct mmsg *x = xcalloc(1, sizeof(*x));

	(void)err;
	(void)errlen;
	c->priv = x;
	x->h = xcalloc((size_t)c->batch, sizeof(*x->h));
	x->v = xcalloc((size_t)c->batch, sizeof(*x->v));
	return io_waiter_open(c, 50);
}

static int mmsg_recv_sock(struct io_ctx *c, int k, struct io_msg *m, int n, int flags)
{
	struct mmsg *x = c->priv;

	for (int i = 0; i < n; i++) {
		x->v[i] = (struct iovec){.iov_base = m[i].buf, .iov_len = m[i].cap};
		x->h[i].msg_hdr = (struct msghdr){.msg_name = &m[i].addr,
						  .msg_namelen = sizeof(m[i].addr),
						  .msg_iov = &x->v[i],
						  .msg_iovlen = 1};
	}
	for (;;) {
		c->syscalls++;
		int r = recvmmsg(c->fds[k], x->h, (unsigned)n, flags, NULL);

		if (r >= 0) {
			for (int i = 0; i < r; i++) {
				m[i].len = x->h[i].msg_len;
				m[i].sock = k;
				m[i].addrlen = x->h[i].msg_hdr.msg_namelen;
				m[i].trunc = x->h[i].msg_hdr.msg_flags & MSG_TRUNC;
			}
			return r;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

/* Many sockets: only those the last epoll_wait found ready; a short batch means empty. */
static int mmsg_recv_ready(struct io_ctx *c, struct io_msg *m, int n)
{
	int got = 0, k;

	while (got < n && (k = io_ready_peek(c)) >= 0) {
		int r = mmsg_recv_sock(c, k, m + got, n - got, MSG_DONTWAIT);

		if (r < 0)
			return got ? got : r;
		got += r;
		if (got < n)
			io_ready_drop(c);
	}
	return got;
}

/* One pass over the sockets until n arrived or every socket would block; without
 * MSG_DONTWAIT on IO_WAIT_BLOCK, MSG_WAITFORONE: sleep for the first datagram only, one call. */
static int mmsg_pass(struct io_ctx *c, struct io_msg *m, int n, int flags)
{
	int got = 0, misses = 0;
	bool may_sleep = c->wait == IO_WAIT_BLOCK && !(flags & MSG_DONTWAIT);

	flags = may_sleep ? MSG_WAITFORONE : MSG_DONTWAIT;
	while (got < n && misses < c->nsock) {
		int k = c->next, r = mmsg_recv_sock(c, k, m + got, n - got, flags);

		if (r < 0)
			return got ? got : r;
		got += r;
		/* A short batch means that socket is empty for now. */
		if (got < n) {
			misses = r ? 1 : misses + 1;
			c->next = (k + 1) % c->nsock;
		}
		flags = MSG_DONTWAIT;
		if (may_sleep && got == 0)
			break;
	}
	return got;
}

static int mmsg_recv(struct io_ctx *c, struct io_msg *m, int n)
{
	if (n > c->batch)
		n = c->batch;
	if (c->ready_only)
		return mmsg_recv_ready(c, m, n);
	return io_recv_passes(c, m, n, mmsg_pass);
}

/* Runs of messages for the same socket go out in one sendmmsg each. */
static int mmsg_send(struct io_ctx *c, struct io_msg *m, int n)
{
	struct mmsg *x = c->priv;
	int done = 0;

	while (done < n) {
		int k = m[done].sock, run = 0;

		while (done + run < n && run < c->batch && m[done + run].sock == k) {
			struct io_msg *p = &m[done + run];

			x->v[run] = (struct iovec){.iov_base = p->buf, .iov_len = p->len};
			x->h[run].msg_hdr = (struct msghdr){.msg_name = c->connected ? NULL : &p->addr,
							    .msg_namelen = c->connected ? 0 : p->addrlen,
							    .msg_iov = &x->v[run],
							    .msg_iovlen = 1};
			run++;
		}
		c->syscalls++;
		int r = sendmmsg(c->fds[k], x->h, (unsigned)run, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return done ? done : (errno == EAGAIN || errno == ENOBUFS ? 0 : -errno);
		done += r;
		if (r < run)
			return done; /* the rest would block */
	}
	return done;
}

static void mmsg_close(struct io_ctx *c)
{
	struct mmsg *x = c->priv;

	io_waiter_close(c);
	if (!x)
		return;
	free(x->h);
	free(x->v);
	free(x);
	c->priv = NULL;
}

const struct io_ops io_mmsg_ops = {
	.name = "mmsg",
	.open = mmsg_open,
	.recv = mmsg_recv,
	.send = mmsg_send,
	.wait = io_waiter_wait,
	.wait_ns = io_waiter_wait_ns,
	.close = mmsg_close,
};
