/* tcp.c: see tcp.h. */
#include "transport/tcp.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/util.h"

#define LISTEN_POLL_NS (50 * 1000000ULL)

static ssize_t call_recv(int fd, void *buf, size_t len)
{
	return recv(fd, buf, len, 0);
}

static ssize_t call_read(int fd, void *buf, size_t len)
{
	return read(fd, buf, len);
}

static ssize_t call_recvmsg(int fd, void *buf, size_t len)
{
	struct iovec v = {.iov_base = buf, .iov_len = len};
	struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};

	return recvmsg(fd, &m, 0);
}

static ssize_t call_readv(int fd, void *buf, size_t len)
{
	struct iovec v = {.iov_base = buf, .iov_len = len};

	return readv(fd, &v, 1);
}

static ssize_t call_waitall(int fd, void *buf, size_t len)
{
	return recv(fd, buf, len, MSG_WAITALL);
}

/* An event loop's receive: wait in epoll_wait until the socket is readable, then recv()
 * without blocking. One epoll instance per thread; the socket is added when it changes (the
 * workloads close theirs with tcp_close, which forgets it). */
static __thread int tl_epfd = -1, tl_epsock = -1;
__thread uint64_t tcp_extra_syscalls;
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

static ssize_t call_epoll(int fd, void *buf, size_t len)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	if (tl_epfd < 0) {
		if ((tl_epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
			return -1;
		/* closed when the thread ends (the key holds fd + 1: NULL means none) */
		pthread_once(&ep_once, ep_key_make);
		pthread_setspecific(ep_key, (void *)(intptr_t)(tl_epfd + 1));
	}
	if (tl_epsock != fd) {
		tcp_extra_syscalls++;
		if (epoll_ctl(tl_epfd, EPOLL_CTL_ADD, fd, &ev) < 0 && errno != EEXIST)
			return -1;
		tl_epsock = fd;
	}
	tcp_extra_syscalls++; /* epoll_wait; the caller counts the recv */
	int n = epoll_wait(tl_epfd, &ev, 1, (int)(LISTEN_POLL_NS / 1000000));

	if (n <= 0) {
		if (n == 0)
			errno = EAGAIN;
		return -1;
	}
	return recv(fd, buf, len, MSG_DONTWAIT);
}

static const struct {
	const char *name;
	recv_fn fn;
} recv_calls[] = {
	{"recv", call_recv},	     {"read", call_read},	{"recvmsg", call_recvmsg},
	{"readv", call_readv},	     {"waitall", call_waitall}, {"epoll", call_epoll},
	{"uring", tcp_uring_recv},
};

const char *tcp_recv_not_applicable(const char *name)
{
#ifndef HAVE_LIBURING
	if (!strcmp(name, "uring"))
		return "io_uring is not built in (liburing was missing at build time)";
#endif
	(void)name;
	return NULL;
}

void tcp_pin_server(const struct opts *o, int n, int fd)
{
	int cpu = o->pin ? pin_self(n, true) : -1;

	if (cpu >= 0 && fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_INCOMING_CPU, &cpu, sizeof(cpu));
}

void tcp_close(int fd)
{
	tcp_uring_forget(fd);
	if (fd == tl_epsock) /* closing it takes it out of the epoll set */
		tl_epsock = -1;
	close(fd);
}

recv_fn tcp_recv_fn(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(recv_calls); i++)
		if (!strcmp(recv_calls[i].name, name))
			return recv_calls[i].fn;
	return NULL;
}

/* One option, counted as it is made. */
static int sockopt(int fd, int level, int name, long v, uint64_t *calls)
{
	int iv = (int)v;

	++*calls;
	return setsockopt(fd, level, name, &iv, sizeof(iv)) < 0 ? -errno : 0;
}

int tcp_sockopts_counted(int fd, const struct opts *o, uint64_t *calls)
{
	int r = 0;

	if (!r && o->rcvbuf)
		r = sockopt(fd, SOL_SOCKET, SO_RCVBUF, o->rcvbuf, calls);
	if (!r && o->sndbuf)
		r = sockopt(fd, SOL_SOCKET, SO_SNDBUF, o->sndbuf, calls);
	if (!r && o->nodelay)
		r = sockopt(fd, IPPROTO_TCP, TCP_NODELAY, 1, calls);
	if (!r && o->busy_poll)
		r = sockopt(fd, SOL_SOCKET, SO_BUSY_POLL, o->busy_poll, calls);
	if (!r && o->rcvlowat)
		r = sockopt(fd, SOL_SOCKET, SO_RCVLOWAT, o->rcvlowat, calls);
	return r;
}

int tcp_sockopts(int fd, const struct opts *o)
{
	uint64_t calls = 0;

	return tcp_sockopts_counted(fd, o, &calls);
}

int tcp_timeouts(int fd, uint64_t ns)
{
	struct timeval tv = {.tv_sec = (time_t)(ns / NSEC_PER_SEC),
			     .tv_usec = (suseconds_t)(ns % NSEC_PER_SEC / 1000)};

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	return 0;
}

enum err_kind tcp_err_kind(int err)
{
	switch (err) {
	case ECONNRESET:
	case EPIPE:
		return ERR_RESET;
	case EAGAIN:
	case ETIMEDOUT:
		return ERR_TIMEOUT;
	case ECONNREFUSED:
		return ERR_CONNECT;
	case EADDRNOTAVAIL:
		return ERR_ADDRNOTAVAIL;
	default:
		return ERR_RECV;
	}
}

/* After a timed-out wait: stop, give up, or wait again? *since is when the waiting began
 * (0: it begins now; the caller resets it after progress). */
static int on_wait_timeout(struct tcp_io *io, uint64_t *since)
{
	if (!*since)
		*since = now_ns();
	if (io->phase && atomic_load_explicit(io->phase, memory_order_relaxed) == PH_STOP)
		return TCP_STOPPED;
	if (now_ns() - *since >= io->timeout_ns) {
		io->why = ERR_TIMEOUT;
		return TCP_FAIL;
	}
	return TCP_OK;
}

int tcp_recv_n(struct tcp_io *io, int fd, char *buf, size_t n)
{
	uint64_t since = 0;
	int one = 1;

	while (n) {
		size_t ask = n < io->chunk ? n : io->chunk;

		if (io->quickack) {
			io->syscalls++;
			setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
		}
		ssize_t got = io->recv(fd, buf, ask);

		io->syscalls += 1 + tcp_extra_syscalls_take();

		if (got > 0) {
			io->rx_calls++;
			io->rx_bytes += (uint64_t)got;
			n -= (size_t)got;
			since = 0;
			continue;
		}
		if (got == 0) {
			io->why = ERR_SHORT;
			return TCP_FAIL;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			io->why = tcp_err_kind(errno);
			return TCP_FAIL;
		}
		int r = on_wait_timeout(io, &since);

		if (r)
			return r;
	}
	return TCP_OK;
}

int tcp_send_n(struct tcp_io *io, int fd, const char *buf, size_t n)
{
	uint64_t since = 0;

	while (n) {
		io->syscalls++;
		ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);

		if (w > 0) {
			io->tx_calls++;
			io->tx_bytes += (uint64_t)w;
			n -= (size_t)w;
			buf += w;
			since = 0;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN) {
			io->why = errno == EPIPE || errno == ECONNRESET ? ERR_RESET : ERR_SEND;
			return TCP_FAIL;
		}
		int r = on_wait_timeout(io, &since);

		if (r)
			return r;
	}
	return TCP_OK;
}

void tcp_drain_to_eof(struct tcp_io *io, int fd, char *buf, size_t cap)
{
	uint64_t since = now_ns();

	for (;;) {
		io->syscalls++;
		ssize_t got = recv(fd, buf, cap, 0);

		if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
			return;
		if (got < 0 && on_wait_timeout(io, &since))
			return;
	}
}

int tcp_listen(struct server_ctx *s, int backlog, char *err, size_t errlen)
{
	struct sockaddr_storage a = s->local;
	socklen_t alen = s->local_len;
	int one = 1, fd = socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		snprintf(err, errlen, "server socket: %s", strerror(errno));
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	((struct sockaddr_in *)&a)->sin_port = htons((uint16_t)s->o->port);
	if (bind(fd, (struct sockaddr *)&a, alen) < 0 || listen(fd, backlog) < 0 ||
	    tcp_timeouts(fd, LISTEN_POLL_NS) < 0) {
		int e = errno;

		close(fd);
		if (e == EADDRINUSE)
			snprintf(err, errlen,
				 "TCP port %ld is busy on the server: choose another with --port (0 picks a free one)",
				 s->o->port);
		else
			snprintf(err, errlen, "listen on TCP port %ld: %s", s->o->port, strerror(e));
		return -e;
	}
	getsockname(fd, (struct sockaddr *)&a, &alen);
	s->port = ntohs(((struct sockaddr_in *)&a)->sin_port);
	s->listen_fd = fd;
	return fd;
}


int tcp_accept(struct server_ctx *s, int lfd, struct side_counters *c, bool room)
{
	struct sockaddr_storage from;
	socklen_t len = sizeof(from);
	int fd = accept4(lfd, (struct sockaddr *)&from, &len, SOCK_CLOEXEC);

	if (fd < 0)
		return -1;
	if (!same_host(&from, &s->peer)) {
		close(fd);
		count_err(c, ERR_FOREIGN, true);
		errno = EAGAIN;
		return -1;
	}
	if (!room) {
		close(fd);
		c->refused++;
		errno = EAGAIN;
		return -1;
	}
	return fd;
}

void tcp_server_close(struct server_ctx *s)
{
	int *lfd = s->priv; /* the first member of the workload's server struct */

	if (!lfd)
		return;
	if (*lfd >= 0)
		close(*lfd);
	free(lfd);
	s->priv = NULL;
}
