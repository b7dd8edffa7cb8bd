/* tcp.c: see tcp.h. */
#include "transport/tcp.h"

#include <errno.h>
#include <stdatomic.h>
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

#include "base/cpus.h"
#include "base/util.h"
#include "transport/knobs.h"

#define LISTEN_POLL_NS (50 * 1000000ULL)

void tcp_pin_server(const struct opts *o, int n, int fd)
{
	int cpu = cpus_pin(o, n, true);

	if (cpu >= 0 && fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_INCOMING_CPU, &cpu, sizeof(cpu));
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
	if (!r)
		r = knobs_set(fd, 0, o, calls);
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
		return -ECANCELED;
	if (now_ns() - *since >= io->timeout_ns) {
		io->why = ERR_TIMEOUT;
		return -EIO;
	}
	return 0;
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
		ssize_t got = io->rx->recv(io, fd, buf, ask);

		if (got > 0) {
			io->rx_calls++;
			io->rx_bytes += (uint64_t)got;
			n -= (size_t)got;
			since = 0;
			continue;
		}
		if (got == 0) {
			io->why = ERR_SHORT;
			return -EIO;
		}
		if (got == -EINTR)
			continue;
		if (got != -EAGAIN) {
			io->why = tcp_err_kind((int)-got);
			return -EIO;
		}
		int r = on_wait_timeout(io, &since);

		if (r)
			return r;
	}
	return 0;
}

int tcp_send_n(struct tcp_io *io, int fd, const char *buf, size_t n)
{
	uint64_t since = 0;

	while (n) {
		ssize_t w = io->tx->send(io, fd, buf, n);

		if (w > 0) {
			io->tx_calls++;
			io->tx_bytes += (uint64_t)w;
			n -= (size_t)w;
			buf += w;
			since = 0;
			continue;
		}
		if (w == -EINTR)
			continue;
		if (w < 0 && w != -EAGAIN) {
			io->why = w == -EPIPE || w == -ECONNRESET ? ERR_RESET : ERR_SEND;
			return -EIO;
		}
		int r = on_wait_timeout(io, &since);

		if (r)
			return r;
	}
	return 0;
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
	/* On the listener too: its connections take them from it, the MSS in the SYN-ACK too. */
	if ((errno = -knobs_set(fd, a.ss_family, s->o, NULL))) {
		snprintf(err, errlen, "server socket: --cc, --mss or --tos: %s", strerror(errno));
		close(fd);
		return -EINVAL;
	}
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
	if (!peer_allowed(s, &from)) {
		close(fd);
		count_err(c, ERR_FOREIGN, true);
		atomic_fetch_add_explicit(&s->foreign_conns, 1, memory_order_relaxed);
		errno = EAGAIN;
		return -1;
	}
	if (!room) {
		close(fd);
		c->refused++;
		errno = EAGAIN;
		return -1;
	}
	knobs_read(fd, &s->sock);
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
