/* tcp_rr_many_srv.c: tcp-rr's server side with many connections (tcp_rr_many.h).
 *
 * The agent's server thread accepts; each connection goes, non-blocking, to one of a few
 * worker threads (one per CPU, or --server-threads when given) in turn, into that worker's
 * epoll set with its state as the event's data (O(1) from event to connection, no scan). A
 * connection keeps how far its current request is and the answer bytes it still owes; the
 * answers are zeros from one buffer. Counters per worker, added up after the join.
 *
 * More connections than one process may hold descriptors for (the open-file limit; 20,000 in
 * some containers, where it cannot be raised): each worker takes a descriptor table of its own
 * (unshare(CLONE_FILES): the limit holds each table, not the process), accepts its share of
 * the connections itself from the shared, non-blocking listener (EPOLLEXCLUSIVE in its epoll
 * set: one worker woken a connection), and closes them before it ends. Still one process: its
 * CPU, switches and memory are the side's as before, and the counters stay in memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/nofile.h"
#include "base/util.h"
#include "transport/tcp.h"
#include "workload/flow_plan.h"
#include "workload/tcp_rr_many.h"
#include "workload/workload.h"

#define EVENTS 256
#define WAIT_MS 50
#define ZERO_CAP 65536

struct ms_conn {
	int fd;
	uint32_t rx_have; /* bytes of the current request so far */
	uint64_t tx_owed; /* answer bytes the socket has not taken yet */
	uint32_t out;	  /* waiting for EPOLLOUT */
};

struct ms_server;

struct ms_worker {
	CACHE_ALIGNED struct server_ctx *s; /* each worker's counters on lines of their own */
	struct ms_server *x;
	int ep, index;
	/* A table of its own: its slice of the connections, [first, first + quota), n taken. */
	int first, quota, n;
	bool own, listening;
	unsigned polls;
	pthread_t tid;
	bool started;
	char *buf;
	const char *zero;
	struct tcp_io io;
	struct side_counters cnt;
	struct epoll_event ev[EVENTS];
};

struct ms_server {
	int lfd; /* first: tcp_server_close */
	int n, max, nt;
	int tables;	   /* descriptor tables the connections need (nofile_tables): > 1, own */
	_Atomic int full;  /* workers of their own tables whose slice is full */
	struct side_counters strangers;
	struct ms_conn *conn; /* max of them, charged to --max-memory */
	struct ms_worker *w;
	char *zero;
};

static int server_threads(const struct opts *o)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (OPT_IS_SET(o, server_threads))
		return (int)o->server_threads;
	return flow_plan_threads(o->clients * o->flows, cpus > 0 ? (int)cpus : 1);
}

double tcp_rr_many_server_bytes(const struct opts *o)
{
	double chunk = (double)(o->request > o->response ? o->request : o->response);

	return (double)(o->clients * o->flows) * (double)sizeof(struct ms_conn) +
	       (double)server_threads(o) * chunk + ZERO_CAP;
}

static void drop(struct ms_worker *w, struct ms_conn *k, int why, bool measuring)
{
	/* The client closing its flows at the end is not an error. */
	if (why != ERR_SHORT && why != ERR_RESET)
		count_err(&w->cnt, (enum err_kind)why, measuring);
	epoll_ctl(w->ep, EPOLL_CTL_DEL, k->fd, NULL);
	close(k->fd);
	k->fd = -1;
}

static void want_out(struct ms_worker *w, struct ms_conn *k, bool on)
{
	struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = k};

	w->io.syscalls++;
	epoll_ctl(w->ep, EPOLL_CTL_MOD, k->fd, &ev);
	k->out = on;
}

static void flush(struct ms_worker *w, struct ms_conn *k, bool measuring)
{
	while (k->tx_owed) {
		size_t len = k->tx_owed < ZERO_CAP ? (size_t)k->tx_owed : ZERO_CAP;
		ssize_t n = w->io.tx->send(&w->io, k->fd, w->zero, len);

		if (n > 0) {
			w->io.tx_calls++;
			w->io.tx_bytes += (uint64_t)n;
			k->tx_owed -= (uint64_t)n;
		} else if (n == -EAGAIN) {
			if (!k->out)
				want_out(w, k, true);
			return;
		} else if (n != -EINTR) {
			drop(w, k, n == -EPIPE || n == -ECONNRESET ? ERR_RESET : ERR_SEND, measuring);
			return;
		}
	}
	if (k->out)
		want_out(w, k, false);
}

static void on_readable(struct ms_worker *w, struct ms_conn *k, bool measuring)
{
	const struct opts *o = w->s->o;
	ssize_t got = w->io.rx->recv(&w->io, k->fd, w->buf, (size_t)o->request);

	if (got == -EAGAIN || got == -EINTR)
		return;
	if (got <= 0) {
		drop(w, k, got == 0 ? ERR_SHORT : tcp_err_kind((int)-got), measuring);
		return;
	}
	w->io.rx_calls++;
	w->io.rx_bytes += (uint64_t)got;
	k->rx_have += (uint32_t)got;
	while (k->rx_have >= (uint64_t)o->request) { /* each whole request owes an answer */
		k->rx_have -= (uint32_t)o->request;
		k->tx_owed += (uint64_t)o->response;
		w->cnt.transactions += measuring;
	}
	if (!k->out)
		flush(w, k, measuring);
}

/* Its slice is full (or its table is: EMFILE): the listener is left to the workers with
 * room; the last to fill keeps it, refusing what comes past --flows (not on EMFILE: it could
 * take nothing more, and would be woken for each). */
static void slice_full(struct ms_worker *w, bool emfile)
{
	struct ms_server *x = w->x;

	if (atomic_fetch_add(&x->full, 1) + 1 < x->nt || emfile) {
		epoll_ctl(w->ep, EPOLL_CTL_DEL, x->lfd, NULL);
		w->listening = false;
	}
	if (emfile)
		warnx_("server worker %d: its descriptor table is full (EMFILE) at %d of its %d "
		       "connections: the others take the rest while they have room", w->index, w->n,
		       w->quota);
}

/* A worker of its own table: the connections waiting, up to a batch (a level-triggered
 * listener wakes it again for the rest), into its slice. */
static void own_accept(struct ms_worker *w)
{
	struct ms_server *x = w->x;

	for (int b = 0; b < 64 && w->listening; b++) {
		int fd = tcp_accept(w->s, x->lfd, &w->cnt, w->n < w->quota);

		w->io.syscalls++;
		if (fd < 0 && errno == EMFILE && w->n < w->quota)
			slice_full(w, true);
		if (fd < 0)
			return;
		struct ms_conn *k = &x->conn[w->first + w->n];
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = k};

		*k = (struct ms_conn){.fd = fd};
		if (tcp_sockopts(fd, w->s->o) || fcntl(fd, F_SETFL, O_NONBLOCK) < 0 ||
		    epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			continue;
		}
		if (++w->n == w->quota)
			slice_full(w, false);
	}
}

/* Its own table: unshared, its epoll set made there (so no table holds the other workers'),
 * the listener in it (the connections come to it). Without a table of its own (unshare
 * refused) it still accepts its share, into the shared table, as far as the limit lets it. */
static void own_table(struct ms_worker *w)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = NULL};

	if (unshare(CLONE_FILES) < 0)
		warnx_("server worker %d: no descriptor table of its own (%s): its connections "
		       "share the process's, past whose limit they are refused", w->index,
		       strerror(errno));
	w->ep = epoll_create1(EPOLL_CLOEXEC);
	if (w->ep < 0 || epoll_ctl(w->ep, EPOLL_CTL_ADD, w->x->lfd, &ev) < 0) {
		warnx_("server worker %d: cannot watch the listener (%s): it accepts nothing",
		       w->index, strerror(errno));
		slice_full(w, false);
		return;
	}
	w->listening = true;
}

/* What a worker of its own table holds goes with it: each connection's TCP_INFO, then closed,
 * and its epoll set (its number is this table's, not the process's). */
static void own_close(struct ms_worker *w)
{
	if (w->ep >= 0)
		close(w->ep);
	w->ep = -1;
	for (int i = 0; i < w->n; i++) {
		struct ms_conn *k = &w->x->conn[w->first + i];

		if (k->fd >= 0) {
			tcp_info_sample(k->fd, &w->cnt, NULL, NULL); /* after the window */
			close(k->fd);
			k->fd = -1;
		}
	}
}

static void *worker_main(void *arg)
{
	struct ms_worker *w = arg;
	_Atomic int *phase = &w->s->phase;
	int ph;

	tcp_pin_server(w->s->o, w->index, -1);
	if (w->own)
		own_table(w);
	while ((ph = atomic_load_explicit(phase, memory_order_acquire)) != PH_STOP) {
		bool measuring = ph == PH_MEASURE;
		int n = epoll_wait(w->ep, w->ev, EVENTS, WAIT_MS);

		w->io.syscalls++;
		/* The listener wakes one worker a connection (EPOLLEXCLUSIVE): one that filled its
		 * slice on the way leaves the rest queued, so those with room look now and then. */
		if (w->listening && w->n < w->quota && (n == 0 || (++w->polls & 15) == 0))
			own_accept(w);
		for (int i = 0; i < n; i++) {
			struct ms_conn *k = w->ev[i].data.ptr;

			/* the next connection's state, in while this one's calls run (many flows:
			 * the kernel's work between a connection's turns evicts it) */
			if (i + 1 < n)
				__builtin_prefetch(w->ev[i + 1].data.ptr, 1);
			if (!k) {
				own_accept(w);
				continue;
			}
			if (k->fd >= 0 && (w->ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
				on_readable(w, k, measuring);
			if (k->fd >= 0 && (w->ev[i].events & EPOLLOUT))
				flush(w, k, measuring);
		}
		if (measuring) {
			w->cnt.rx_bytes += w->io.rx_bytes;
			w->cnt.tx_bytes += w->io.tx_bytes;
			w->cnt.rx_packets += w->io.rx_calls;
			w->cnt.tx_packets += w->io.tx_calls;
			w->cnt.syscalls += w->io.syscalls;
		}
		w->io.rx_calls = w->io.tx_calls = w->io.syscalls = w->io.rx_bytes = w->io.tx_bytes = 0;
	}
	if (w->own)
		own_close(w);
	return NULL;
}

/* A warning, not a refusal: the clients pace their connects to what the kernel allows. */
static void warn_somaxconn(long backlog)
{
	FILE *f = fopen("/proc/sys/net/core/somaxconn", "re");
	long max = 0;

	if (f && fscanf(f, "%ld", &max) == 1 && max < backlog)
		warnx_("net.core.somaxconn is %ld, below the listen backlog of %ld these flows ask "
		       "for: the listener gets %ld (raise it with --sysctl net.core.somaxconn=%ld)",
		       max, backlog, max, backlog);
	if (f)
		fclose(f);
}

int tcp_rr_many_server_open(struct server_ctx *s, char *err, size_t errlen)
{
	const struct opts *o = s->o;
	long max = o->clients * o->flows, backlog = flow_plan_backlog(max, o->clients);
	struct ms_server *x = xcalloc_lines(1, sizeof(*x));
	char what[80];
	int first = 0;

	s->priv = x;
	x->lfd = -1;
	x->max = (int)max;
	x->nt = server_threads(o);
	snprintf(what, sizeof(what), "--clients x --flows %ld", max);
	if (!(x->tables = nofile_tables(max, what, err, errlen)))
		return -EMFILE;
	if (x->tables > x->nt)
		x->nt = x->tables;
	x->conn = srv_alloc(s, (size_t)max * sizeof(*x->conn));
	if (!x->conn) {
		snprintf(err, errlen, "%ld connections' state is past the agent's --max-memory", max);
		return -ENOMEM;
	}
	x->zero = xcalloc(1, ZERO_CAP);
	x->w = xcalloc_lines((size_t)x->nt, sizeof(*x->w));
	for (int i = 0; i < x->nt; i++) {
		struct ms_worker *w = &x->w[i];

		*w = (struct ms_worker){.s = s, .x = x, .index = i, .zero = x->zero,
					.buf = xmalloc((size_t)o->request),
					.ep = x->tables > 1 ? -1 : epoll_create1(EPOLL_CLOEXEC),
					.own = x->tables > 1,
					.first = first, .quota = (int)share_of(max, x->nt, i)};
		w->io = (struct tcp_io){.rx = tcp_recv_of(RECV_RECV), .tx = tcp_send_of(SEND_SEND),
					.chunk = (size_t)o->request, .memfd = -1, .pipe = {-1, -1}};
		first += w->quota;
	}
	warn_somaxconn(backlog);
	x->lfd = tcp_listen(s, (int)backlog, err, errlen);
	/* Workers of their own tables accept from it as it wakes them: it must not block. */
	if (x->lfd >= 0 && x->tables > 1 && fcntl(x->lfd, F_SETFL, O_NONBLOCK) < 0)
		return -errno;
	return x->lfd < 0 ? x->lfd : 0;
}

/* Hand an accepted connection to the next worker. */
static void place(struct server_ctx *s, struct ms_server *x, int fd)
{
	struct ms_conn *k = &x->conn[x->n]; /* there is room: tcp_accept said so */
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = k};

	*k = (struct ms_conn){.fd = fd};
	if (tcp_sockopts(fd, s->o) || fcntl(fd, F_SETFL, O_NONBLOCK) < 0 ||
	    epoll_ctl(x->w[x->n % x->nt].ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(fd);
		return;
	}
	x->n++;
}

void tcp_rr_many_server_loop(struct server_ctx *s)
{
	struct ms_server *x = s->priv;

	for (int i = 0; i < x->nt; i++)
		x->w[i].started = !pthread_create(&x->w[i].tid, NULL, worker_main, &x->w[i]);
	/* Workers of their own tables accept for themselves: this thread waits for their end. */
	while (x->tables == 1 && atomic_load_explicit(&s->phase, memory_order_acquire) != PH_STOP) {
		int fd = tcp_accept(s, x->lfd, &x->strangers, x->n < x->max);

		if (fd >= 0)
			place(s, x, fd);
	}
	for (int i = 0; i < x->nt; i++) {
		if (x->w[i].started)
			pthread_join(x->w[i].tid, NULL);
		side_counters_add(&s->c, &x->w[i].cnt);
		if (x->w[i].ep >= 0) /* a worker of its own table closed its own */
			close(x->w[i].ep);
		free(x->w[i].buf);
	}
	for (int i = 0; i < x->n; i++)
		if (x->conn[i].fd >= 0) {
			tcp_info_sample(x->conn[i].fd, &s->c, NULL, NULL); /* after the window */
			close(x->conn[i].fd);
		}
	side_counters_add(&s->c, &x->strangers);
	srv_free(s, x->conn, (size_t)x->max * sizeof(*x->conn));
	free(x->w);
	free(x->zero);
	x->conn = NULL;
	x->w = NULL;
}
