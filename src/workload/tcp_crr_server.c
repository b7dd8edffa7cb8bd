/* tcp_crr_server.c: tcp-crr's server side (wl_tcp_crr.c has the workload and its client):
 * its threads and their accept loops; a connection's steps are tcp_crr_conn.c's. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/nofile.h"
#include "base/util.h"
#include "transport/tcp.h"
#include "workload/tcp_crr_srv.h"

/* Server side: a pool of threads, each blocked in accept() on the one listening socket and
 * serving what it accepts at once with calls that never wait: the fast path is accept, the
 * sends, close. A connection that cannot go on (its request not in yet, the peer's window
 * full, its FIN not in) is parked in the thread's epoll set with a deadline of --timeout, and
 * the thread goes back to accepting; so no one connection, idle or slow, holds a thread up.
 * Up to CRR_MANY_ABOVE connections in flight a thread each; above, a few threads (as the
 * client's), each always in epoll_wait over the listener (non-blocking then) and its parked
 * connections, accepting what is queued at each wake. A parked connection's state is in a
 * table indexed by its descriptor (the epoll event's data.fd): found in O(1), whatever their
 * number. Every system call is counted where it is made.
 *    More in flight than one process may hold descriptors for: each thread takes a
 * descriptor table of its own and a state table to match (its descriptors are its own
 * numbers), and parks at most what its table holds, leaving the listener to the others while
 * it is full; still one process, its CPU and memory counted as ever. */

/* Threads: one a connection in flight up to CRR_MANY_ABOVE, else the client's count. */
static int server_threads(const struct opts *o)
{
	long n = o->clients * o->concurrency;

	return n <= CRR_MANY_ABOVE ? (int)n : crr_many_threads(o);
}

/* Descriptors the table covers: those in flight, twice over (a connection the client is done
 * with may not be closed here yet), and the agent's own. */
static int table_size(const struct opts *o)
{
	return (int)(2 * o->clients * o->concurrency + 1024);
}

int crr_server_open(struct server_ctx *s, char *err, size_t errlen)
{
	struct crr_server *x = xcalloc_lines(1, sizeof(*x));
	const struct opts *o = s->o;
	char what[64];

	s->priv = x;
	x->s = s;
	x->lfd = -1;
	x->nthreads = server_threads(o);
	x->many = o->clients * o->concurrency > CRR_MANY_ABOVE;
	x->tabn = table_size(o);
	snprintf(what, sizeof(what), "--concurrency %ld x --clients %ld", o->concurrency,
		 o->clients);
	if (!(x->tables = nofile_tables(o->clients * o->concurrency, what, err, errlen)))
		return -EMFILE;
	/* Past one table, room for twice the slots, as the shared table has: a connection the
	 * client is done with may not be closed here yet (--close client parks each until its
	 * FIN) while its slot's next one comes. */
	if (x->tables > 1 &&
	    !(x->tables = nofile_tables(2 * o->clients * o->concurrency, what, err, errlen)))
		return -EMFILE;
	if (x->tables > MAX_SERVER_THREADS) {
		snprintf(err, errlen, "%s: %d descriptor tables past this process's open-file limit, "
			 "more than the %d server threads: raise the limit", what, x->tables,
			 MAX_SERVER_THREADS);
		return -EMFILE;
	}
	if (x->tables > x->nthreads)
		x->nthreads = x->tables;
	if (x->tables > 1) /* each thread's own, as it starts */
		x->tabn = 0;
	x->tab = x->tabn ? srv_alloc(s, (size_t)x->tabn * sizeof(*x->tab)) : NULL;
	if (x->tabn && !x->tab) {
		snprintf(err, errlen, "no memory for %d connections' state (serve --max-memory)",
			 x->tabn);
		return -ENOMEM;
	}
	x->lfd = tcp_listen(s, (int)o->backlog, err, errlen);
	if (x->lfd < 0) {
		srv_free(s, x->tab, (size_t)x->tabn * sizeof(*x->tab));
		x->tab = NULL;
		return x->lfd;
	}
	if (x->many)
		fcntl(x->lfd, F_SETFL, fcntl(x->lfd, F_GETFL) | O_NONBLOCK);
	return 0;
}

/* A buffer of the larger of a message and the request per server thread, the descriptor
 * table, and each thread's list of what it parked. */
double crr_server_bytes(const struct opts *o)
{
	double threads = server_threads(o), tab = table_size(o);

	return threads * (double)((o->size > o->request ? o->size : o->request) + 1) +
	       tab * (double)sizeof(struct crr_conn) + threads * tab * (double)sizeof(int);
}


/* Accept one connection (blocking with the listener's timeout, or non-blocking above
 * CRR_MANY_ABOVE) and serve it. false: none was there. */
static bool crr_take(struct crr_worker *w)
{
	struct crr_server *x = w->x;
	struct server_ctx *s = x->s;
	int fd = tcp_accept(s, x->lfd, &w->cnt, true);
	/* The phase once accepted (accept() may have slept across the window's start), as
	 * the client counts a connection by when it connected. */
	int ph = atomic_load_explicit(&s->phase, memory_order_acquire);

	if (fd < 0) {
		w->cnt.syscalls += ph == PH_MEASURE; /* an accept that timed out is a call too */
		/* EINVAL at the stop: the agent shut the listener down to end this wait. */
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED &&
		    !(errno == EINVAL && ph == PH_STOP) && !(errno == EMFILE && w->own))
			count_err(&w->cnt, ERR_CONNECT, ph == PH_MEASURE);
		if (errno == EMFILE && w->own) /* its table is full: leave the listener a while */
			w->cap = w->nparked;
		return false;
	}
	crr_serve_new(w, fd, ph == PH_MEASURE);
	return true;
}

/* Up to CRR_MANY_ABOVE: accept() blocks while nothing is parked. */
static void crr_loop_few(struct crr_worker *w)
{
	struct crr_server *x = w->x;
	struct server_ctx *s = x->s;
	struct epoll_event evs[16];

	while (atomic_load_explicit(&s->phase, memory_order_acquire) != PH_STOP) {
		bool take = true;

		if (w->nparked) {
			/* Something waits: watch it and the listener together. */
			int ph = atomic_load_explicit(&s->phase, memory_order_relaxed);
			int n = epoll_wait(w->ep, evs, ARRAY_SIZE(evs), 50);

			w->cnt.syscalls += ph == PH_MEASURE;
			take = false;
			for (int i = 0; i < n; i++) {
				if (evs[i].data.fd == x->lfd)
					take = true;
				else
					crr_resume(w, evs[i].data.fd);
			}
			crr_expire(w);
		}
		if (take)
			crr_take(w);
	}
}

/* A thread of its own table parks at most cap connections: past that the listener is left
 * to the others (its accepts would fail, EMFILE), and taken again once it is down to half. */
static void own_full(struct crr_worker *w)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.fd = w->x->lfd};

	if (!w->own)
		return;
	if (w->listening && w->nparked >= w->cap) {
		epoll_ctl(w->ep, EPOLL_CTL_DEL, w->x->lfd, NULL);
		w->listening = false;
	} else if (!w->listening && w->nparked <= w->cap / 2) {
		w->listening = epoll_ctl(w->ep, EPOLL_CTL_ADD, w->x->lfd, &ev) == 0;
	}
}

/* A thread's table: the server's, or past one table's room its own (descriptors and state,
 * sized to the open-file limit, which bounds its descriptors' numbers). 0 or -1. */
static int take_table(struct crr_worker *w)
{
	struct crr_server *x = w->x;
	struct rlimit rl;

	w->tab = x->tab;
	w->tabn = x->tabn;
	if (x->tables == 1)
		return 0;
	if (unshare(CLONE_FILES) < 0 || getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -1;
	w->own = true;
	w->tabn = (int)rl.rlim_cur;
	w->cap = w->tabn - 2 * NOFILE_SPARE; /* and what it inherited, and an accept batch */
	w->tab = srv_alloc(x->s, (size_t)w->tabn * sizeof(*w->tab));
	return w->tab ? 0 : -1;
}

/* Above: always in epoll_wait; at the listener's wake, accept what is queued (up to 64). */
static void crr_loop_many(struct crr_worker *w)
{
	struct crr_server *x = w->x;
	struct server_ctx *s = x->s;
	struct epoll_event evs[256];

	while (atomic_load_explicit(&s->phase, memory_order_acquire) != PH_STOP) {
		int ph = atomic_load_explicit(&s->phase, memory_order_relaxed);
		int n = epoll_wait(w->ep, evs, ARRAY_SIZE(evs), 50);

		w->cnt.syscalls += ph == PH_MEASURE;
		for (int i = 0; i < n; i++) {
			if (evs[i].data.fd != x->lfd) {
				crr_resume(w, evs[i].data.fd);
				continue;
			}
			for (int k = 0; k < 64 && w->listening && crr_take(w); k++)
				own_full(w);
		}
		/* The listener wakes one thread a connection (EPOLLEXCLUSIVE): one that left it on
		 * the way leaves the rest queued, so the others look when they wake idle. */
		if (n == 0 && w->own && w->listening)
			for (int k = 0; k < 64 && w->listening && crr_take(w); k++)
				own_full(w);
		crr_expire(w);
		own_full(w);
	}
}

static void *crr_accept_loop(void *arg)
{
	struct crr_server *x = arg;
	struct server_ctx *s = x->s;
	int me = atomic_fetch_add(&x->next, 1);
	struct crr_worker *w = &x->w[me];
	struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.fd = x->lfd};
	size_t plen = 0;

	w->x = x;
	w->ep = -1;
	if (take_table(w) < 0) {
		warnx_("tcp-crr server thread %d: no descriptor table of its own (%s): it serves "
		       "nothing", me, strerror(errno));
		count_err(&w->cnt, ERR_RECV, true);
		goto out;
	}
	plen = (size_t)w->tabn * sizeof(int);
	w->buflen = (size_t)(s->o->size > s->o->request ? s->o->size : s->o->request) + 1;
	w->buf = srv_alloc(s, w->buflen);
	w->parked = srv_alloc(s, plen);
	w->ep = epoll_create1(EPOLL_CLOEXEC);
	w->listening = true;
	if (!w->buf || !w->parked || w->ep < 0 || epoll_ctl(w->ep, EPOLL_CTL_ADD, x->lfd, &ev) < 0) {
		w->cnt.refused += !w->buf || !w->parked;
		count_err(&w->cnt, ERR_RECV, true);
		goto out;
	}
	memset(w->buf, 'x', w->buflen);
	tcp_pin_server(s->o, me, -1);
	if (x->many)
		crr_loop_many(w);
	else
		crr_loop_few(w);
out:
	while (w->nparked) {
		int fd = w->parked[w->nparked - 1];

		crr_unpark(w, &w->tab[fd]);
		close(fd);
	}
	if (w->ep >= 0)
		close(w->ep);
	srv_free(s, w->buf, w->buflen);
	srv_free(s, w->parked, plen);
	if (w->own)
		srv_free(s, w->tab, (size_t)w->tabn * sizeof(*w->tab));
	return NULL;
}

void crr_server_loop(struct server_ctx *s)
{
	struct crr_server *x = s->priv;
	int started = 0;

	while (started < x->nthreads && !pthread_create(&x->tid[started], NULL, crr_accept_loop, x))
		started++;
	for (int i = 0; i < started; i++) {
		pthread_join(x->tid[i], NULL);
		side_counters_add(&s->c, &x->w[i].cnt);
		tcp_info_dist_merge(&s->ti, &x->w[i].ti);
	}
	srv_free(s, x->tab, (size_t)x->tabn * sizeof(*x->tab));
	x->tab = NULL;
}
