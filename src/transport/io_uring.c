/* io_uring.c: datagrams through io_uring (liburing). Each socket has a multishot recvmsg armed
 * on a ring of provided buffers, so arrivals need no system call to be picked up: recv() only
 * reads completions from the shared ring. Sends are queued as SQEs and submitted together, one
 * io_uring_enter per batch (none with --sqpoll while the kernel thread is awake). Payloads are
 * copied into the ring's own send slots, because an SQE may run after the caller reuses its
 * buffer. Needs Linux 6.0 (multishot recvmsg) and says so when the kernel lacks it.
 */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "transport/io.h"
#include "base/util.h"

#define NBUFS 512 /* provided receive buffers, a power of two */
#define BGID 7
#define TAG_SEND (1ULL << 62)

struct send_slot {
	struct msghdr h;
	struct iovec v;
	struct sockaddr_storage addr;
	char *buf;
};

/* A receive completion taken off the ring but not yet given to the caller. */
struct parked {
	int k;
	int res;
	unsigned flags;
};

struct uring {
	struct io_uring ring;
	struct parked park[2 * NBUFS];
	int park_head, park_n;
	struct io_uring_buf_ring *br;
	size_t br_size;
	char *bufs;
	size_t buf_len; /* one provided buffer: recvmsg_out header, name, payload */
	struct msghdr rx_h; /* the layout template for multishot recvmsg */
	struct send_slot *slots;
	int *free_slots, nfree, nslots;
	bool sqpoll;
};

static const char *uring_not_applicable(const struct opts *o)
{
	if (o->wait != WAIT_AUTO)
		return "io_uring waits in io_uring_enter: --wait applies to the msg and mmsg back ends";
	return NULL;
}

static int arm(struct uring *u, int k, int fd)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_recvmsg_multishot(sqe, fd, &u->rx_h, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	io_uring_sqe_set_data64(sqe, (uint64_t)k);
	return 0;
}

static void give_back(struct uring *u, unsigned bid)
{
	io_uring_buf_ring_add(u->br, u->bufs + (size_t)bid * u->buf_len, (unsigned)u->buf_len,
			      (unsigned short)bid, io_uring_buf_ring_mask(NBUFS), 0);
	io_uring_buf_ring_advance(u->br, 1);
}

static int setup_buffers(struct uring *u, struct io_ctx *c, char *err, size_t errlen)
{
	struct io_uring_buf_reg reg = {.ring_entries = NBUFS, .bgid = BGID};
	int ret;

	u->buf_len = sizeof(struct io_uring_recvmsg_out) + sizeof(struct sockaddr_storage) + c->cap;
	u->bufs = xmalloc(u->buf_len * NBUFS);
	u->br_size = NBUFS * sizeof(struct io_uring_buf);
	u->br = mmap(NULL, u->br_size, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (u->br == MAP_FAILED) {
		u->br = NULL;
		return -ENOMEM;
	}
	reg.ring_addr = (unsigned long)u->br;
	ret = io_uring_register_buf_ring(&u->ring, &reg, 0);
	if (ret) {
		snprintf(err, errlen,
			 "io_uring: this kernel has no provided-buffer rings (%s; needs Linux 5.19, "
			 "and 6.0 for multishot recvmsg)",
			 strerror(-ret));
		return ret;
	}
	io_uring_buf_ring_init(u->br);
	for (unsigned i = 0; i < NBUFS; i++)
		give_back(u, i);
	u->rx_h.msg_namelen = sizeof(struct sockaddr_storage);
	return 0;
}

static int uring_open(struct io_ctx *c, char *err, size_t errlen)
{
	struct uring *u = xcalloc(1, sizeof(*u));
	struct io_uring_params p = {0};
	unsigned entries = (unsigned)(c->depth + c->batch + c->nsock) + 64;
	int ret;

	c->priv = u;
	u->sqpoll = c->o->sqpoll;
	if (u->sqpoll) {
		p.flags |= IORING_SETUP_SQPOLL;
		p.sq_thread_idle = 100;
	}
	p.flags |= IORING_SETUP_CQSIZE;
	p.cq_entries = 4 * NBUFS;
	ret = io_uring_queue_init_params(entries, &u->ring, &p);
	if (ret) {
		snprintf(err, errlen, "io_uring_queue_init: %s%s", strerror(-ret),
			 ret == -ENOSYS || ret == -EPERM ? " (io_uring disabled on this machine?)" : "");
		free(u);
		c->priv = NULL;
		return ret;
	}
	c->syscalls++;
	ret = setup_buffers(u, c, err, errlen);
	if (ret)
		return ret;
	u->nslots = (int)entries;
	u->slots = xcalloc((size_t)u->nslots, sizeof(*u->slots));
	u->free_slots = xcalloc((size_t)u->nslots, sizeof(int));
	for (int i = 0; i < u->nslots; i++) {
		u->slots[i].buf = xmalloc(c->cap);
		u->free_slots[u->nfree++] = i;
	}
	for (int k = 0; k < c->nsock; k++)
		if ((ret = arm(u, k, c->fds[k])))
			return ret;
	c->syscalls++;
	ret = io_uring_submit(&u->ring);
	return ret < 0 ? ret : 0;
}

/* Submit what is queued; counts the io_uring_enter it takes (none when SQPOLL is awake). */
static int submit(struct io_ctx *c, struct uring *u)
{
	if (!u->sqpoll || (IO_URING_READ_ONCE(*u->ring.sq.kflags) & IORING_SQ_NEED_WAKEUP))
		c->syscalls++;
	return io_uring_submit(&u->ring);
}

/* One receive completion into m; returns 1 if it carried a datagram. */
static int take_recv(struct uring *u, int k, int res, unsigned flags,
		     struct io_msg *m)
{
	if (res < 0 || !(flags & IORING_CQE_F_BUFFER))
		return 0;
	unsigned bid = flags >> IORING_CQE_BUFFER_SHIFT;
	char *b = u->bufs + (size_t)bid * u->buf_len;
	struct io_uring_recvmsg_out *o = io_uring_recvmsg_validate(b, res, &u->rx_h);
	int got = 0;

	if (o) {
		size_t len = io_uring_recvmsg_payload_length(o, res, &u->rx_h);

		m->len = len < m->cap ? len : m->cap;
		m->trunc = o->flags & MSG_TRUNC;
		memcpy(m->buf, io_uring_recvmsg_payload(o, &u->rx_h), m->len);
		m->addrlen = o->namelen < sizeof(m->addr) ? o->namelen : sizeof(m->addr);
		memcpy(&m->addr, io_uring_recvmsg_name(o), m->addrlen);
		m->sock = k;
		got = 1;
	}
	give_back(u, bid);
	return got;
}

/* Take every completion there is: sends free their slots, receives fill m (up to n) and the
 * rest are parked. Returns how many receives went into m. No system call: the completion ring
 * is memory shared with the kernel. */
static int reap(struct io_ctx *c, struct uring *u, struct io_msg *m, int n)
{
	struct io_uring_cqe *cqe;
	int got = 0;

	while (io_uring_peek_cqe(&u->ring, &cqe) == 0) {
		uint64_t tag = io_uring_cqe_get_data64(cqe);

		if (tag & TAG_SEND) {
			u->free_slots[u->nfree++] = (int)(tag & ~TAG_SEND);
			c->send_failed += cqe->res < 0; /* taken off what was counted sent */
		} else {
			int k = (int)tag;

			if (!(cqe->flags & IORING_CQE_F_MORE))
				arm(u, k, c->fds[k]); /* the multishot ended (out of buffers): re-arm */
			if (got < n) {
				got += take_recv(u, k, cqe->res, cqe->flags, &m[got]);
			} else if (u->park_n < (int)ARRAY_SIZE(u->park)) {
				int at = (u->park_head + u->park_n++) % (int)ARRAY_SIZE(u->park);

				u->park[at] = (struct parked){k, cqe->res, cqe->flags};
			}
		}
		io_uring_cqe_seen(&u->ring, cqe);
	}
	return got;
}

static int uring_recv(struct io_ctx *c, struct io_msg *m, int n)
{
	struct uring *u = c->priv;
	int got = 0;

	/* First what an earlier call parked, in order. */
	while (got < n && u->park_n) {
		struct parked *p = &u->park[u->park_head];

		got += take_recv(u, p->k, p->res, p->flags, &m[got]);
		u->park_head = (u->park_head + 1) % (int)ARRAY_SIZE(u->park);
		u->park_n--;
	}
	got += reap(c, u, m + got, n - got);
	if (io_uring_sq_ready(&u->ring))
		submit(c, u); /* re-arms queued above */
	return got;
}

/* Out of send slots or SQEs: submit what is queued and wait for a completion to free one. */
static int make_room(struct io_ctx *c, struct uring *u)
{
	struct io_uring_cqe *cqe;

	c->syscalls++;
	int ret = io_uring_submit_and_wait(&u->ring, 1);

	if (ret < 0 && ret != -EINTR)
		return ret;
	if (io_uring_peek_cqe(&u->ring, &cqe) == 0)
		reap(c, u, NULL, 0);
	return 0;
}

static int uring_send(struct io_ctx *c, struct io_msg *m, int n)
{
	struct uring *u = c->priv;
	int queued = 0;

	for (; queued < n; queued++) {
		struct io_uring_sqe *sqe = u->nfree ? io_uring_get_sqe(&u->ring) : NULL;

		/* Backpressure, not loss: wait for the kernel to finish earlier sends. */
		while (!sqe) {
			int ret = make_room(c, u);

			if (ret < 0)
				return queued ? queued : ret;
			sqe = u->nfree ? io_uring_get_sqe(&u->ring) : NULL;
		}
		int i = u->free_slots[--u->nfree];
		struct send_slot *s = &u->slots[i];
		size_t len = m[queued].len < c->cap ? m[queued].len : c->cap;

		memcpy(s->buf, m[queued].buf, len);
		s->v = (struct iovec){.iov_base = s->buf, .iov_len = len};
		s->addr = m[queued].addr;
		s->h = (struct msghdr){.msg_name = c->connected ? NULL : &s->addr,
				       .msg_namelen = c->connected ? 0 : m[queued].addrlen,
				       .msg_iov = &s->v,
				       .msg_iovlen = 1};
		io_uring_prep_sendmsg(sqe, c->fds[m[queued].sock], &s->h, 0);
		io_uring_sqe_set_data64(sqe, TAG_SEND | (uint64_t)i);
	}
	int ret = submit(c, u);

	return ret < 0 ? ret : queued;
}

static int uring_wait(struct io_ctx *c, int timeout_ms)
{
	struct uring *u = c->priv;
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts = {.tv_sec = timeout_ms / 1000,
				       .tv_nsec = (long long)(timeout_ms % 1000) * 1000000};

	/* A completion already there is taken from shared memory, with no system call. */
	if (io_uring_peek_cqe(&u->ring, &cqe) == 0)
		return 0;
	c->syscalls++;
	int ret = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);

	return ret == -ETIME || ret == -EINTR ? 0 : ret;
}

static void uring_close(struct io_ctx *c)
{
	struct uring *u = c->priv;

	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	if (u->br)
		munmap(u->br, u->br_size);
	for (int i = 0; i < u->nslots; i++)
		free(u->slots[i].buf);
	free(u->slots);
	free(u->free_slots);
	free(u->bufs);
	free(u);
	c->priv = NULL;
}

const struct io_ops io_uring_ops = {
	.name = "uring",
	.not_applicable = uring_not_applicable,
	.open = uring_open,
	.recv = uring_recv,
	.send = uring_send,
	.wait = uring_wait,
	.close = uring_close,
};
