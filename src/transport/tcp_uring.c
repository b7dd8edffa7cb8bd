/* tcp_uring.c: TCP receive and send through io_uring (--recv uring, tcp-stream --send uring).
 *
 * Each thread has a small ring of its own, made on first use and torn down when the thread
 * ends. A call queues one recv or send and waits for it in one io_uring_enter (submit and
 * wait). The wait is bounded like the socket timeouts of the other calls (50 ms), so the
 * callers see the end of a test: a call that times out returns EAGAIN and leaves its
 * operation in flight, and the caller's next call with the same socket and buffer waits for
 * it again. tcp_close cancels what is in flight on a socket before closing it. Every
 * io_uring_enter is counted in the caller's count of system calls.
 *
 * A zero-copy send (IORING_OP_SEND_ZC, tcp-stream --send uring --zerocopy) completes twice:
 * once when the bytes are queued (the send's result, with IORING_CQE_F_MORE), and once more,
 * a notification, when the kernel no longer needs the buffer; the notification says whether
 * the kernel copied after all (IORING_SEND_ZC_REPORT_USAGE, Linux 6.2). Each zero-copy send
 * carries its caller's id in the upper bits of its user data; notifications are handed to
 * the caller's function as they are reaped.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/tcp.h"
#include "base/util.h"

#ifdef HAVE_LIBURING
#include <liburing.h>

#define WAIT_NS (50 * 1000000LL)
#define CANCEL_WAIT_MS 1000
#define KIND_BITS 8 /* user data: kind | id << KIND_BITS */
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif

enum { OP_RECV, OP_SEND, OP_KINDS };

struct op {
	bool pending, done, more; /* more: a zero-copy notification follows */
	int fd, res;
	uint64_t ud;
	const void *buf;
	size_t len;
};

struct tring {
	struct io_uring ring;
	struct op op[OP_KINDS];
	struct tcp_io *zc_io; /* its zc_fn is told of zero-copy notifications */
	/* Zero-copy sends that moved nothing (an error, or a timeout of the socket's own) whose
	 * notification is still to come: it is told as no send's (copied -2). A few at most. */
	uint64_t void_id[8];
	int nvoid;
};

/* Was id a send that moved nothing (then forget it)? */
static bool void_taken(struct tring *t, uint64_t id)
{
	for (int i = 0; i < t->nvoid; i++)
		if (t->void_id[i] == id) {
			t->void_id[i] = t->void_id[--t->nvoid];
			return true;
		}
	return false;
}

/* The kernel refused IORING_SEND_ZC_REPORT_USAGE (before 6.2): send without it, and tell
 * the caller that a send's copying is unknown. */
static _Atomic bool zc_no_usage;
static pthread_key_t ring_key;
static pthread_once_t ring_once = PTHREAD_ONCE_INIT;
static __thread struct tring *tl_ring;

static void ring_free(void *p)
{
	struct tring *t = p;

	io_uring_queue_exit(&t->ring); /* cancels what is still in flight */
	free(t);
}

static void ring_key_make(void)
{
	pthread_key_create(&ring_key, ring_free);
}

static struct tring *ring_get(void)
{
	if (tl_ring)
		return tl_ring;
	struct tring *t = xcalloc(1, sizeof(*t));
	int ret = io_uring_queue_init(8, &t->ring, 0);

	if (ret < 0) {
		free(t);
		errno = -ret;
		return NULL;
	}
	pthread_once(&ring_once, ring_key_make);
	pthread_setspecific(ring_key, t);
	tl_ring = t;
	return t;
}

/* Take every completion that is there. */
static void reap(struct tring *t)
{
	struct io_uring_cqe *cqe;

	while (io_uring_peek_cqe(&t->ring, &cqe) == 0) {
		uint64_t ud = io_uring_cqe_get_data64(cqe), k = ud & ((1u << KIND_BITS) - 1);

		if (cqe->flags & IORING_CQE_F_NOTIF) {
			uint64_t id = ud >> KIND_BITS;

			if (t->zc_io && t->zc_io->zc_fn)
				t->zc_io->zc_fn(t->zc_io->zc_arg, id, id + 1,
						void_taken(t, id) ? -2
						: zc_no_usage	  ? -1
						: ((uint32_t)cqe->res & IORING_NOTIF_USAGE_ZC_COPIED) != 0);
		} else if (k < OP_KINDS && t->op[k].pending && t->op[k].ud == ud) {
			/* A zero-copy send that moved nothing still has its notification to come
			 * (seen under load: one in some hundred thousand sends) */
			if ((cqe->flags & IORING_CQE_F_MORE) && cqe->res <= 0 &&
			    t->nvoid < (int)(sizeof(t->void_id) / sizeof(t->void_id[0])))
				t->void_id[t->nvoid++] = ud >> KIND_BITS;
			t->op[k].done = true;
			t->op[k].res = cqe->res;
			t->op[k].more = cqe->flags & IORING_CQE_F_MORE;
		}
		io_uring_cqe_seen(&t->ring, cqe);
	}
}

/* Wait up to ns for op to complete (submitting what is queued), the system call counted in
 * *calls. 0, or -errno (-ETIME). */
static int wait_op(struct tring *t, struct op *op, long long ns, uint64_t *calls)
{
	struct __kernel_timespec ts = {.tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL};
	struct io_uring_cqe *cqe;

	reap(t);
	if (op->done)
		return 0;
	++*calls;
	int ret = io_uring_submit_and_wait_timeout(&t->ring, &cqe, 1, &ts, NULL);

	reap(t);
	if (op->done)
		return 0;
	return ret < 0 ? ret : -ETIME;
}

/* Cancel an operation in flight and wait for it to end. */
static void cancel_op(struct tring *t, int kind, uint64_t *calls)
{
	struct op *op = &t->op[kind];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&t->ring);

	if (sqe) {
		io_uring_prep_cancel64(sqe, op->ud, 0);
		io_uring_sqe_set_data64(sqe, OP_KINDS); /* its own completion is not an op's */
	}
	for (int i = 0; i < CANCEL_WAIT_MS / 50 && !op->done; i++)
		wait_op(t, op, WAIT_NS, calls);
	op->pending = false;
}

/* One recv or send for io; more not NULL: a zero-copy send with id io->zc_id, *more set when
 * its notification is still to come (whatever the result). Bytes, or -errno; system calls
 * counted in io->syscalls. */
static ssize_t uring_call(struct tcp_io *io, int kind, int fd, const void *buf, size_t len,
			  bool *more)
{
	const uint64_t *zc = more ? &io->zc_id : NULL;
	uint64_t *calls = &io->syscalls;
	struct tring *t = ring_get();

	if (!t)
		return -errno;
	struct op *op = &t->op[kind];

	if (op->pending && (op->fd != fd || op->buf != buf || op->len != len))
		cancel_op(t, kind, calls);
	if (!op->pending) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&t->ring);

		if (!sqe)
			return -EBUSY;
		uint64_t ud = (uint64_t)kind | (zc ? *zc << KIND_BITS : 0);

		if (kind == OP_RECV)
			io_uring_prep_recv(sqe, fd, (void *)buf, len, 0);
		else if (zc)
			io_uring_prep_send_zc(sqe, fd, buf, len, MSG_NOSIGNAL,
					      zc_no_usage ? 0 : IORING_SEND_ZC_REPORT_USAGE);
		else
			io_uring_prep_send(sqe, fd, buf, len, MSG_NOSIGNAL);
		io_uring_sqe_set_data64(sqe, ud);
		*op = (struct op){.pending = true, .fd = fd, .buf = buf, .len = len, .ud = ud};
	}
	int ret = wait_op(t, op, WAIT_NS, calls);

	if (ret < 0)
		return ret == -ETIME || ret == -EINTR ? -EAGAIN : ret;
	op->pending = false;
	if (more)
		*more = op->more;
	if (zc && op->res == -EINVAL && !op->more && !zc_no_usage) {
		zc_no_usage = true; /* refused at preparation: again without the usage report */
		return uring_call(io, kind, fd, buf, len, more);
	}
	return op->res;
}

ssize_t tcp_uring_recv(struct tcp_io *io, int fd, void *buf, size_t len)
{
	return uring_call(io, OP_RECV, fd, buf, len, NULL);
}

ssize_t tcp_uring_send(struct tcp_io *io, int fd, const char *buf, size_t len)
{
	bool more = false;
	ssize_t w;

	if (!io->zerocopy)
		return uring_call(io, OP_SEND, fd, buf, len, NULL);
	struct tring *t = ring_get();

	if (!t)
		return -errno;
	t->zc_io = io;
	w = uring_call(io, OP_SEND, fd, buf, len, &more);
	io->zc_id += more; /* its notification will come, whatever the result */
	return w;
}

void tcp_uring_settle(struct tcp_io *io, int fd, int ms)
{
	struct tring *t = tl_ring;
	struct __kernel_timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	struct io_uring_cqe *cqe;

	(void)fd;
	if (!t)
		return;
	io->syscalls++;
	io_uring_submit_and_wait_timeout(&t->ring, &cqe, 1, &ts, NULL);
	reap(t);
}

void tcp_uring_forget(int fd, uint64_t *calls)
{
	struct tring *t = tl_ring;

	for (int k = 0; t && k < OP_KINDS; k++)
		if (t->op[k].pending && t->op[k].fd == fd)
			cancel_op(t, k, calls);
}

#else

ssize_t tcp_uring_recv(struct tcp_io *io, int fd, void *buf, size_t len)
{
	(void)io, (void)fd, (void)buf, (void)len;
	return -ENOSYS;
}

ssize_t tcp_uring_send(struct tcp_io *io, int fd, const char *buf, size_t len)
{
	(void)io, (void)fd, (void)buf, (void)len;
	return -ENOSYS;
}

void tcp_uring_settle(struct tcp_io *io, int fd, int ms)
{
	(void)io, (void)fd, (void)ms;
}

void tcp_uring_forget(int fd, uint64_t *calls)
{
	(void)fd, (void)calls;
}

#endif
