/* tcp_ops.c: TCP's data calls as back ends (tcp.h): the receive calls of --recv and the send
 * calls of --send. Each call counts, in io->syscalls, every system call it makes, where it
 * makes it, and returns bytes moved, 0 (a receive: the peer closed) or -errno (-EAGAIN:
 * nothing within the socket's timeout or the ring's wait).
 *
 * Zero-copy sends (--zerocopy: MSG_ZEROCOPY with send and sendmsg, IORING_OP_SEND_ZC with
 * uring) number their sends 0, 1, 2, ... (io->zc_id); the kernel's completions, read from the
 * socket's error queue or the ring, are handed to io->zc_fn as ranges of those numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/util.h"
#include "transport/tcp.h"

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif

#define EPOLL_WAIT_MS 50
#define ZC_REAP_EVERY 32 /* MSG_ZEROCOPY sends between looks at the error queue */

static ssize_t ret_of(ssize_t n)
{
	return n < 0 ? -errno : n;
}

/* ---- receive calls ---- */

/* recv, or recvmsg through the same signature, with io->spin_ns: non-blocking tries until
 * one finds something, fails, or spin_ns has passed since the first came back empty; then the
 * call that sleeps. */
static ssize_t rx_spin(struct tcp_io *io, int fd, void *buf, size_t len,
		       ssize_t (*call)(int fd, void *buf, size_t len, int flags))
{
	uint64_t t0 = 0;

	while (io->spin_ns) {
		io->syscalls++;
		ssize_t n = call(fd, buf, len, MSG_DONTWAIT);

		if (n >= 0 || errno != EAGAIN)
			return ret_of(n);
		if (io->spin_ns == TCP_NEVER_SLEEP)
			return -EAGAIN;
		uint64_t t = now_ns();

		if (!t0)
			t0 = t;
		else if (t - t0 >= io->spin_ns)
			break;
	}
	io->syscalls++;
	return ret_of(call(fd, buf, len, 0));
}

static ssize_t rx_recv(struct tcp_io *io, int fd, void *buf, size_t len)
{
	return rx_spin(io, fd, buf, len, recv);
}

static ssize_t rx_read(struct tcp_io *io, int fd, void *buf, size_t len)
{
	io->syscalls++;
	return ret_of(read(fd, buf, len));
}

static ssize_t one_recvmsg(int fd, void *buf, size_t len, int flags)
{
	struct iovec v = {.iov_base = buf, .iov_len = len};
	struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};

	return recvmsg(fd, &m, flags);
}

static ssize_t rx_recvmsg(struct tcp_io *io, int fd, void *buf, size_t len)
{
	return rx_spin(io, fd, buf, len, one_recvmsg);
}

static ssize_t rx_readv(struct tcp_io *io, int fd, void *buf, size_t len)
{
	struct iovec v = {.iov_base = buf, .iov_len = len};

	io->syscalls++;
	return ret_of(readv(fd, &v, 1));
}

static ssize_t rx_waitall(struct tcp_io *io, int fd, void *buf, size_t len)
{
	io->syscalls++;
	return ret_of(recv(fd, buf, len, MSG_WAITALL));
}

/* An event loop's receive: wait in epoll_wait until the socket is readable, then recv()
 * without blocking. One epoll instance per thread, closed when the thread ends; the socket is
 * added when it changes (tcp_close forgets it). */
static __thread int tl_epfd = -1, tl_epsock = -1;
static pthread_key_t ep_key;
static pthread_once_t ep_once = PTHREAD_ONCE_INIT;

static void ep_close(void *p)
{
	close((int)(intptr_t)p - 1);
}

static void ep_key_make(void)
{
	pthread_key_create(&ep_key, ep_close);
}

static ssize_t rx_epoll(struct tcp_io *io, int fd, void *buf, size_t len)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	if (tl_epfd < 0) {
		io->syscalls++;
		if ((tl_epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
			return -errno;
		/* the key holds fd + 1: NULL means none */
		pthread_once(&ep_once, ep_key_make);
		pthread_setspecific(ep_key, (void *)(intptr_t)(tl_epfd + 1));
	}
	if (tl_epsock != fd) {
		io->syscalls++;
		if (epoll_ctl(tl_epfd, EPOLL_CTL_ADD, fd, &ev) < 0 && errno != EEXIST)
			return -errno;
		tl_epsock = fd;
	}
	io->syscalls++;
	int n = epoll_wait(tl_epfd, &ev, 1, EPOLL_WAIT_MS);

	if (n <= 0)
		return n == 0 ? -EAGAIN : -errno;
	io->syscalls++;
	return ret_of(recv(fd, buf, len, MSG_DONTWAIT));
}

static ssize_t rx_uring(struct tcp_io *io, int fd, void *buf, size_t len)
{
	return tcp_uring_recv(io, fd, buf, len);
}

#ifdef HAVE_LIBURING
#define URING_MISSING NULL
#else
#define URING_MISSING "io_uring is not built in (liburing was missing at build time)"
#endif

static const struct tcp_recv_ops recv_ops[] = {
	[RECV_RECV] = {"recv", rx_recv, NULL},
	[RECV_READ] = {"read", rx_read, NULL},
	[RECV_RECVMSG] = {"recvmsg", rx_recvmsg, NULL},
	[RECV_READV] = {"readv", rx_readv, NULL},
	[RECV_WAITALL] = {"waitall", rx_waitall, NULL},
	[RECV_EPOLL] = {"epoll", rx_epoll, NULL},
	[RECV_URING] = {"uring", rx_uring, URING_MISSING},
};

const struct tcp_recv_ops *tcp_recv_of(int kind)
{
	return kind >= 0 && (size_t)kind < ARRAY_SIZE(recv_ops) ? &recv_ops[kind] : NULL;
}

int tcp_recv_check(const struct opts *o, char *err, size_t errlen)
{
	const struct tcp_recv_ops *rx = tcp_recv_of(o->recv);

	if (!rx) {
		snprintf(err, errlen, "--recv %s is not a known call", OPT_WORD(o, recv));
		return -EINVAL;
	}
	if (rx->unavailable) {
		snprintf(err, errlen, "--recv %s is not applicable: %s", rx->name, rx->unavailable);
		return -EINVAL;
	}
	return 0;
}

void tcp_close(int fd, uint64_t *calls)
{
	uint64_t n = 1;

	tcp_uring_forget(fd, &n);
	if (fd == tl_epsock) /* closing it takes it out of the epoll set */
		tl_epsock = -1;
	close(fd);
	if (calls)
		*calls += n;
}

/* ---- zero-copy completions (MSG_ZEROCOPY): the socket's error queue ---- */

static void zc_reap_errqueue(struct tcp_io *io, int fd)
{
	char ctrl[256];

	for (;;) {
		struct msghdr m = {.msg_control = ctrl, .msg_controllen = sizeof(ctrl)};

		io->syscalls++;
		if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
			bool v4 = cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR;
			bool v6 = cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR;
			struct sock_extended_err e;

			if (!v4 && !v6)
				continue;
			memcpy(&e, CMSG_DATA(cm), sizeof(e));
			if (e.ee_origin != SO_EE_ORIGIN_ZEROCOPY || e.ee_errno)
				continue;
			/* ids [ee_info, ee_data], 32-bit, in order; ours count up from 0 */
			uint64_t base = io->zc_reaped_at & ~0xffffffffULL;
			uint64_t lo = base | e.ee_info, hi = (base | e.ee_data) + 1;

			if (hi <= lo)
				hi += 1ULL << 32;
			if (io->zc_fn)
				io->zc_fn(io->zc_arg, lo, hi,
					  (e.ee_code & SO_EE_CODE_ZEROCOPY_COPIED) != 0);
			io->zc_reaped_at = hi;
		}
	}
}

static void zc_settle_errqueue(struct tcp_io *io, int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = 0};

	io->syscalls++;
	poll(&p, 1, ms);
	zc_reap_errqueue(io, fd);
}

/* A MSG_ZEROCOPY send's result: its number, the error queue looked at now and then; ENOBUFS
 * (too many completions unread) waits a moment and reads them. */
static ssize_t zc_after(struct tcp_io *io, int fd, ssize_t w)
{
	if (w >= 0) {
		if (io->zerocopy && ++io->zc_id - io->zc_reaped_at >= ZC_REAP_EVERY)
			zc_reap_errqueue(io, fd);
		return w;
	}
	if (errno == ENOBUFS && io->zerocopy) {
		zc_settle_errqueue(io, fd, 1);
		return -EAGAIN;
	}
	return -errno;
}

/* ---- send calls ---- */

static int tx_open_plain(struct tcp_io *io, int fd, const char *buf, size_t len)
{
	int one = 1;

	(void)buf, (void)len;
	if (io->zerocopy && setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) < 0)
		return -errno;
	return 0;
}

static ssize_t tx_send(struct tcp_io *io, int fd, const char *buf, size_t len)
{
	io->syscalls++;
	return zc_after(io, fd, send(fd, buf, len, MSG_NOSIGNAL | (io->zerocopy ? MSG_ZEROCOPY : 0)));
}

static ssize_t tx_write(struct tcp_io *io, int fd, const char *buf, size_t len)
{
	io->syscalls++;
	return ret_of(write(fd, buf, len));
}

static ssize_t tx_sendmsg(struct tcp_io *io, int fd, const char *buf, size_t len)
{
	struct iovec v = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};

	io->syscalls++;
	return zc_after(io, fd, sendmsg(fd, &m, MSG_NOSIGNAL | (io->zerocopy ? MSG_ZEROCOPY : 0)));
}

/* sendfile and splice send len bytes of a memfd that holds a copy of the buffer. */
static int tx_open_file(struct tcp_io *io, int fd, const char *buf, size_t len)
{
	(void)fd;
	io->memfd = memfd_create("sockbench-stream", MFD_CLOEXEC);
	if (io->memfd < 0 || write(io->memfd, buf, len) != (ssize_t)len)
		return -errno;
	return 0;
}

static int tx_open_splice(struct tcp_io *io, int fd, const char *buf, size_t len)
{
	int ret = tx_open_file(io, fd, buf, len);

	if (ret)
		return ret;
	if (pipe2(io->pipe, O_CLOEXEC) < 0)
		return -errno;
	fcntl(io->pipe[1], F_SETPIPE_SZ, (int)(len < (1 << 20) ? len : (1 << 20)));
	return 0;
}

static ssize_t tx_sendfile(struct tcp_io *io, int fd, const char *buf, size_t len)
{
	off_t off = 0;

	(void)buf;
	io->syscalls++;
	return ret_of(sendfile(fd, io->memfd, &off, len));
}

static ssize_t tx_splice(struct tcp_io *io, int fd, const char *buf, size_t len)
{
	loff_t fo = 0;

	(void)buf;
	io->syscalls++;
	ssize_t in = splice(io->memfd, &fo, io->pipe[1], NULL, len, SPLICE_F_MOVE);

	if (in <= 0)
		return in < 0 ? -errno : -EIO;
	/* Whatever the pipe holds must leave before the next call fills it again. */
	for (ssize_t left = in; left > 0;) {
		io->syscalls++;
		ssize_t w = splice(io->pipe[0], NULL, fd, NULL, (size_t)left, SPLICE_F_MOVE);

		if (w > 0) {
			left -= w;
			continue;
		}
		if (w < 0 && (errno == EAGAIN || errno == EINTR) &&
		    (!io->phase || atomic_load_explicit(io->phase, memory_order_relaxed) != PH_STOP))
			continue;
		return w < 0 ? -errno : -EIO;
	}
	return in;
}

static ssize_t tx_uring(struct tcp_io *io, int fd, const char *buf, size_t len)
{
	return tcp_uring_send(io, fd, buf, len);
}

static void settle_none(struct tcp_io *io, int fd, int ms)
{
	(void)io, (void)fd, (void)ms;
}

static const struct tcp_send_ops send_ops[] = {
	[SEND_SEND] = {"send", tx_open_plain, tx_send, zc_settle_errqueue, true, false, NULL},
	[SEND_WRITE] = {"write", tx_open_plain, tx_write, settle_none, false, false, NULL},
	[SEND_SENDMSG] = {"sendmsg", tx_open_plain, tx_sendmsg, zc_settle_errqueue, true, false, NULL},
	[SEND_SENDFILE] = {"sendfile", tx_open_file, tx_sendfile, settle_none, false, true, NULL},
	[SEND_SPLICE] = {"splice", tx_open_splice, tx_splice, settle_none, false, true, NULL},
	[SEND_URING] = {"uring", tx_open_plain, tx_uring, tcp_uring_settle, true, false, URING_MISSING},
};

const struct tcp_send_ops *tcp_send_of(int kind)
{
	return kind >= 0 && (size_t)kind < ARRAY_SIZE(send_ops) ? &send_ops[kind] : NULL;
}

void tcp_io_close(struct tcp_io *io)
{
	if (io->memfd >= 0)
		close(io->memfd);
	if (io->pipe[0] >= 0) {
		close(io->pipe[0]);
		close(io->pipe[1]);
	}
	io->memfd = io->pipe[0] = io->pipe[1] = -1;
}
