/* io.c: the back-end registry and the --wait strategies the syscall back ends share. */
#include "transport/io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/util.h"

const struct io_ops *const io_registry[] = {
	&io_msg_ops,
	&io_mmsg_ops,
#ifdef HAVE_LIBURING
	&io_uring_ops,
#endif
	NULL,
};

const struct io_ops *io_find(const struct opts *o)
{
	const char *name = OPT_WORD(o, io);

	if (o->io == IO_AUTO)
		name = o->batch > 1 ? "mmsg" : "msg";
	for (int i = 0; io_registry[i]; i++)
		if (!strcmp(io_registry[i]->name, name))
			return io_registry[i];
	return NULL;
}

enum io_wait io_wait_of(const struct opts *o, bool server)
{
	switch (o->wait) {
	case WAIT_EPOLL:
		return IO_WAIT_EPOLL;
	case WAIT_BUSY:
		return IO_WAIT_BUSY;
	case WAIT_BLOCK:
		return IO_WAIT_BLOCK;
	case WAIT_POLL:
		return IO_WAIT_POLL;
	default: /* auto */
		return server ? IO_WAIT_BLOCK : IO_WAIT_POLL;
	}
}

enum io_wait io_client_wait(const struct opts *o, int nsock)
{
	if (o->wait != WAIT_AUTO)
		return io_wait_of(o, false);
	if (nsock > IO_READY_ABOVE)
		return IO_WAIT_EPOLL;
	/* Ping-pong (one socket, one request in flight, closed loop): nothing else to do while
	 * the answer is away, and a blocking receive is one call a transaction less than poll
	 * and receive (1.19x the transactions of poll here, 6 paired runs), as sockperf and netperf wait. */
	if (nsock == 1 && o->window == 1 && !o->rate)
		return IO_WAIT_BLOCK;
	return IO_WAIT_POLL;
}

const char *io_wait_name(enum io_wait w)
{
	static const char *const names[] = {"poll", "epoll", "busy", "block"};

	return (unsigned)w < sizeof(names) / sizeof(names[0]) ? names[w] : "?";
}

const char *io_client_wait_reason(const struct opts *o, int nsock)
{
	if (o->wait != WAIT_AUTO)
		return "as --wait gave it";
	switch (io_client_wait(o, nsock)) {
	case IO_WAIT_EPOLL:
		return "over 64 sockets a client: epoll_wait names the ready ones, where a receive on "
		       "each in turn would cost a call for every empty one";
	case IO_WAIT_BLOCK:
		return "one socket, one request in flight, closed loop: nothing to do while the answer "
		       "is away, and a blocking receive is 2 calls a transaction where poll takes 3";
	default:
		return "more than one socket or request in flight, or an open loop: poll() wakes for "
		       "whichever answer comes first, and the client sends between";
	}
}

/* Threads of the test that never sleep while it runs: each client and each server thread;
 * CPUs this process may run on. */
static int busy_threads(const struct opts *o)
{
	return (int)(o->clients + o->server_threads);
}

bool io_spin_by_cpus(const struct opts *o)
{
	return o->wait == WAIT_AUTO && !o->rate && !o->bitrate && !o->bidir;
}

uint32_t io_spin_ns(const struct opts *o)
{
	if (!io_spin_by_cpus(o))
		return 0;
	return cpus_each_own(o, o->clients, o->server_threads) ? IO_SPIN_NS : 0;
}

const char *io_spin_reason(const struct opts *o)
{
	if (o->wait != WAIT_AUTO)
		return "as --wait gave it";
	if (o->bidir)
		return "--bidir: one socket sends and receives, and waits in poll()";
	if (o->rate || o->bitrate)
		return "a paced sender leaves gaps longer than a retry would span: it sleeps at "
		       "once";
	if (io_spin_ns(o))
		return "every busy thread has a CPU of its own: it tries again for 5 us before it "
		       "sleeps, so the sender's CPU seldom pays for waking it (an empty try is one "
		       "more call, counted)";
	if (busy_threads(o) <= cpus_usable())
		return "--cpus or --pin puts two busy threads on one CPU: a retry would take the "
		       "CPU the sender needs, so it sleeps at once";
	return "more busy threads than CPUs: a retry would take a CPU the sender needs, so it "
	       "sleeps at once";
}

int io_recv_passes(struct io_ctx *c, struct io_msg *m, int n,
		   int (*pass)(struct io_ctx *c, struct io_msg *m, int n, int flags))
{
	uint64_t t0 = 0;
	int r;

	if (!c->spin_ns || c->wait != IO_WAIT_BLOCK)
		return pass(c, m, n, 0);
	while ((r = pass(c, m, n, MSG_DONTWAIT)) == 0) {
		uint64_t t = now_ns();

		if (!t0)
			t0 = t;
		else if (t - t0 >= c->spin_ns)
			return pass(c, m, n, 0);
	}
	return r;
}

struct waiter {
	struct pollfd *pfd;
	int epfd;
	struct epoll_event ev[64];
};

static int set_blocking(int fd, bool block, int block_ms)
{
	int fl = fcntl(fd, F_GETFL);
	struct timeval tv = {.tv_sec = block_ms / 1000, .tv_usec = (block_ms % 1000) * 1000};

	if (fl < 0 || fcntl(fd, F_SETFL, block ? fl & ~O_NONBLOCK : fl | O_NONBLOCK) < 0)
		return -errno;
	if (block && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	return 0;
}

int io_waiter_open(struct io_ctx *c, int block_ms)
{
	struct waiter *w = xcalloc(1, sizeof(*w));
	int ret;

	c->waiter = w;
	w->epfd = -1;
	for (int k = 0; k < c->nsock; k++)
		if ((ret = set_blocking(c->fds[k], c->wait == IO_WAIT_BLOCK, block_ms)))
			return ret;
	if (c->wait == IO_WAIT_POLL) {
		w->pfd = xcalloc((size_t)c->nsock, sizeof(*w->pfd));
		for (int k = 0; k < c->nsock; k++)
			w->pfd[k] = (struct pollfd){.fd = c->fds[k], .events = POLLIN};
	} else if (c->wait == IO_WAIT_EPOLL) {
		c->ready_only = c->nsock > IO_READY_ABOVE;
		w->epfd = epoll_create1(EPOLL_CLOEXEC);
		if (w->epfd < 0)
			return -errno;
		for (int k = 0; k < c->nsock; k++) {
			struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)k};

			if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, c->fds[k], &ev) < 0)
				return -errno;
		}
	}
	return 0;
}

/* After epoll_wait: the socket that woke us is read first; with many, only the ready ones. */
static void epoll_took(struct io_ctx *c, struct waiter *w, int r)
{
	if (r > 0)
		c->next = (int)w->ev[0].data.u32;
	if (c->ready_only) {
		c->rhead = 0;
		c->nready = r > 0 ? r : 0;
		for (int i = 0; i < c->nready; i++)
			c->ready[i] = (int)w->ev[i].data.u32;
	}
}

int io_waiter_wait(struct io_ctx *c, int timeout_ms)
{
	struct waiter *w = c->waiter;
	int r = 0;

	switch (c->wait) {
	case IO_WAIT_POLL:
		c->syscalls++;
		r = poll(w->pfd, (nfds_t)c->nsock, timeout_ms);
		break;
	case IO_WAIT_EPOLL:
		c->syscalls++;
		r = epoll_wait(w->epfd, w->ev, ARRAY_SIZE(w->ev), timeout_ms);
		epoll_took(c, w, r);
		break;
	case IO_WAIT_BUSY:  /* spin: the next recv() is the wait */
	case IO_WAIT_BLOCK: /* recv() itself sleeps */
		return 0;
	}
	return r < 0 && errno != EINTR ? -errno : 0;
}

int io_waiter_wait_ns(struct io_ctx *c, uint64_t timeout_ns)
{
	struct waiter *w = c->waiter;
	struct timespec ts = {.tv_sec = (time_t)(timeout_ns / 1000000000),
			      .tv_nsec = (long)(timeout_ns % 1000000000)};

	if (c->wait == IO_WAIT_EPOLL && c->ready_only) {
		/* epoll_pwait2 (Linux 5.11) to the nanosecond: a many-socket client waits in epoll
		 * where a few would ppoll; whole ms would make it spin between sends. */
		c->syscalls++;
		int r = epoll_pwait2(w->epfd, w->ev, ARRAY_SIZE(w->ev), &ts, NULL);

		if (r >= 0 || errno != ENOSYS) {
			epoll_took(c, w, r);
			return r < 0 && errno != EINTR ? -errno : 0;
		}
	}
	if (c->wait != IO_WAIT_POLL)
		return io_waiter_wait(c, (int)(timeout_ns / 1000000));
	c->syscalls++;
	int r = ppoll(w->pfd, (nfds_t)c->nsock, &ts, NULL);

	return r < 0 && errno != EINTR ? -errno : 0;
}

void io_waiter_close(struct io_ctx *c)
{
	struct waiter *w = c->waiter;

	if (!w)
		return;
	if (w->epfd >= 0)
		close(w->epfd);
	free(w->pfd);
	free(w);
	c->waiter = NULL;
}
