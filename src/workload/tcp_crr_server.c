/* tcp_crr_server.c: tcp-crr's server side (wl_tcp_crr.c has the workload and its client). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/nofile.h"
#include "base/util.h"
#include "transport/tcp.h"
#include "workload/tcp_crr.h"

#define MAX_SERVER_THREADS 64

/* Server side: a pool of threads, each blocked in accept() on the one listening socket and
 * serving what it accepts at once with calls that never wait: the fast path is accept, the
 * sends, close. A connection that cannot go on (its request not in yet, the peer's window
 * full, its FIN not in) is parked in the thread's epoll set with a deadline of --timeout, and
 * the thread goes back to accepting; so no one connection, idle or slow, holds a thread up.
 * Up to CRR_MANY_ABOVE connections in flight a thread each; above, a few threads (as the
 * client's), each always in epoll_wait over the listener (non-blocking then) and its parked
 * connections, accepting what is queued at each wake. A parked connection's state is in a
 * table indexed by its descriptor (the epoll event's data.fd): found in O(1), whatever their
 * number. Every system call is counted where it is made. */

enum crr_step { STEP_REQUEST, STEP_SEND, STEP_DRAIN, STEP_DONE, STEP_FAIL };

struct crr_conn {
	int fd;
	int pos;	   /* parked: its place in the owner's list */
	enum crr_step step;
	size_t left;	   /* bytes of the request, or of the messages, still to go */
	bool measuring;	   /* accepted in the window */
	uint64_t deadline; /* parked: no progress by then is a timeout */
	uint64_t rx_calls, tx_calls;
	enum err_kind why;
};

struct crr_worker {
	CACHE_ALIGNED struct crr_server *x; /* each thread's counters on lines of their own */
	int ep; /* the listener and the parked connections */
	int nparked;
	int *parked; /* the descriptors it has parked (x->tab holds their state) */
	uint64_t next_scan;
	struct side_counters cnt;
	struct tcp_info_dist ti; /* its sampled connections' TCP_INFO spread */
	char *buf;
	size_t buflen;
};

struct crr_server {
	int lfd; /* first: tcp_server_close */
	int nthreads;
	bool many; /* above CRR_MANY_ABOVE: a few epoll threads */
	struct crr_conn *tab; /* by descriptor: parked connections, each written by its owner */
	int tabn;
	pthread_t tid[MAX_SERVER_THREADS];
	struct crr_worker w[MAX_SERVER_THREADS];
	struct server_ctx *s;
	_Atomic int next;
};

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
	int ret;

	s->priv = x;
	x->s = s;
	x->lfd = -1;
	x->nthreads = server_threads(o);
	x->many = o->clients * o->concurrency > CRR_MANY_ABOVE;
	x->tabn = table_size(o);
	snprintf(what, sizeof(what), "--concurrency %ld x --clients %ld", o->concurrency,
		 o->clients);
	if ((ret = nofile_ensure(o->clients * o->concurrency, what, err, errlen)))
		return ret;
	x->tab = srv_alloc(s, (size_t)x->tabn * sizeof(*x->tab));
	if (!x->tab) {
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

/* --server-fault: half the bytes then a clean close, or an abort (RST). */
static void serve_fault(struct crr_worker *w, const struct opts *o, int fd)
{
	size_t half = (size_t)(o->msgs * o->size / 2);

	if (o->server_fault == FAULT_RESET) {
		struct linger l = {.l_onoff = 1, .l_linger = 0};

		w->cnt.syscalls++;
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		half = 0;
	}
	while (half) {
		w->cnt.syscalls++;
		ssize_t n = send(fd, w->buf, half < (size_t)o->size ? half : (size_t)o->size,
				 MSG_NOSIGNAL);

		if (n <= 0)
			break;
		half -= (size_t)n;
	}
}

/* The request is in (or there is none), or every message is out: what comes next. */
static void crr_next_step(struct crr_worker *w, struct crr_conn *k)
{
	const struct opts *o = w->x->s->o;

	if (k->step == STEP_REQUEST && o->server_fault != FAULT_NONE) {
		serve_fault(w, o, k->fd);
		k->step = STEP_DONE;
	} else if (k->step == STEP_REQUEST) {
		k->step = STEP_SEND;
		k->left = (size_t)(o->msgs * o->size);
	} else {
		/* The side that closes first keeps TIME_WAIT: the server, unless the client closes. */
		k->step = o->close != CLOSE_SERVER ? STEP_DRAIN : STEP_DONE;
	}
}

/* Take one step's calls as far as they go without waiting. */
static void crr_advance(struct crr_worker *w, struct crr_conn *k)
{
	const struct opts *o = w->x->s->o;
	size_t msg = (size_t)o->size;

	while (k->step < STEP_DONE) {
		ssize_t n;

		if (!k->left && k->step != STEP_DRAIN) {
			crr_next_step(w, k);
			continue;
		}
		w->cnt.syscalls += k->measuring;
		if (k->step == STEP_SEND) {
			/* One message per call, as a blocking server writes them. */
			size_t off = (size_t)(o->msgs * o->size) - k->left, in = msg - off % msg;

			n = send(k->fd, w->buf, in < k->left ? in : k->left, MSG_DONTWAIT | MSG_NOSIGNAL);
		} else {
			size_t ask = k->step == STEP_REQUEST && k->left < w->buflen ? k->left : w->buflen;

			n = recv(k->fd, w->buf, ask, MSG_DONTWAIT);
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return; /* park */
		if (n < 0 && k->step == STEP_DRAIN) {
			k->step = STEP_DONE; /* a reset instead of a FIN (--close reset) ends it too */
			return;
		}
		if (n < 0 || (n == 0 && k->step == STEP_REQUEST)) {
			k->why = n == 0 ? ERR_SHORT : k->step == STEP_SEND && errno != EPIPE &&
							       errno != ECONNRESET ? ERR_SEND
											 : tcp_err_kind(errno);
			k->step = STEP_FAIL;
			return;
		}
		if (k->step == STEP_DRAIN) {
			k->step = n == 0 ? STEP_DONE : STEP_DRAIN;
			continue;
		}
		if (k->step == STEP_SEND)
			k->tx_calls++;
		else
			k->rx_calls++;
		k->left -= (size_t)n;
		k->deadline = now_ns() + (uint64_t)o->timeout * 1000000;
	}
}

/* A connection is done (or failed): close it and count it. k is a copy: once closed, its
 * descriptor (and its slot in the table) may be another thread's. One in CRR_TCP_INFO_EVERY
 * of the thread's completed connections of the window has its TCP_INFO read first, as the
 * client's are (the getsockopt counted with its calls). */
static void crr_finish(struct crr_worker *w, struct crr_conn k)
{
	const struct opts *o = w->x->s->o;
	struct side_counters *c = &w->cnt;
	uint64_t calls = 0;

	if (k.step != STEP_FAIL && k.measuring && c->transactions % CRR_TCP_INFO_EVERY == 0)
		tcp_info_sample(k.fd, c, &w->ti, &calls);
	close(k.fd);
	c->syscalls += k.measuring + calls;
	if (k.step == STEP_FAIL) {
		count_err(c, k.why, k.measuring);
		return;
	}
	if (!k.measuring)
		return;
	c->transactions++;
	c->tx_bytes += o->server_fault != FAULT_NONE ? 0 : (uint64_t)(o->msgs * o->size);
	c->rx_bytes += (uint64_t)o->request;
	c->tx_packets += k.tx_calls;
	c->rx_packets += k.rx_calls;
}

/* Park a connection until its socket is ready, or refuse it when it has no slot. */
static void crr_park(struct crr_worker *w, struct crr_conn *k)
{
	struct crr_server *x = w->x;
	struct epoll_event ev = {.events = k->step == STEP_SEND ? EPOLLOUT : EPOLLIN,
				 .data.fd = k->fd};

	w->cnt.syscalls += k->measuring;
	if (k->fd >= x->tabn || epoll_ctl(w->ep, EPOLL_CTL_ADD, k->fd, &ev) < 0) {
		close(k->fd);
		w->cnt.refused++;
		return;
	}
	k->pos = w->nparked;
	w->parked[w->nparked++] = k->fd;
	x->tab[k->fd] = *k;
}

/* Out of the owner's list (before the close that frees its descriptor). */
static void crr_unpark(struct crr_worker *w, struct crr_conn *k)
{
	int last = w->parked[--w->nparked];

	w->parked[k->pos] = last;
	w->x->tab[last].pos = k->pos;
}

/* A parked connection's socket is ready: go on; done, failed, or parked again (for the other
 * direction, if it changed). */
static void crr_resume(struct crr_worker *w, int fd)
{
	struct crr_conn *k = &w->x->tab[fd];
	enum crr_step was = k->step;

	crr_advance(w, k);
	if (k->step >= STEP_DONE) {
		crr_unpark(w, k);
		crr_finish(w, *k); /* closing it takes it out of the epoll set */
	} else if ((was == STEP_SEND) != (k->step == STEP_SEND)) {
		struct epoll_event ev = {.events = k->step == STEP_SEND ? EPOLLOUT : EPOLLIN,
					 .data.fd = k->fd};

		w->cnt.syscalls += k->measuring;
		epoll_ctl(w->ep, EPOLL_CTL_MOD, k->fd, &ev);
	}
}

static void crr_serve_new(struct crr_worker *w, int fd, bool measuring)
{
	const struct opts *o = w->x->s->o;
	struct crr_conn k = {.fd = fd, .measuring = measuring, .why = ERR_RECV,
			     .step = STEP_REQUEST, .left = (size_t)o->request,
			     .deadline = now_ns() + (uint64_t)o->timeout * 1000000};
	uint64_t calls = 0;

	w->cnt.connects += measuring;
	w->cnt.syscalls += measuring; /* the accept */
	if (tcp_sockopts_counted(fd, o, &calls)) {
		k.step = STEP_FAIL;
		k.why = ERR_RECV;
	}
	w->cnt.syscalls += measuring ? calls : 0;
	crr_advance(w, &k);
	if (k.step >= STEP_DONE)
		crr_finish(w, k);
	else
		crr_park(w, &k);
}

/* Parked connections past their deadline: timed out. A scan at most every tenth of
 * --timeout (and 50 ms), so many parked connections cost no scan per wake. */
static void crr_expire(struct crr_worker *w)
{
	uint64_t now = now_ns(), every = (uint64_t)w->x->s->o->timeout * 100000;

	if (now < w->next_scan)
		return;
	w->next_scan = now + (every < 50000000 ? every : 50000000);
	for (int i = w->nparked - 1; i >= 0; i--) {
		struct crr_conn *k = &w->x->tab[w->parked[i]];

		if (k->deadline > now)
			continue;
		k->step = STEP_FAIL;
		k->why = ERR_TIMEOUT;
		crr_unpark(w, k);
		crr_finish(w, *k);
	}
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
		    !(errno == EINVAL && ph == PH_STOP))
			count_err(&w->cnt, ERR_CONNECT, ph == PH_MEASURE);
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
			for (int k = 0; k < 64 && crr_take(w); k++)
				;
		}
		crr_expire(w);
	}
}

static void *crr_accept_loop(void *arg)
{
	struct crr_server *x = arg;
	struct server_ctx *s = x->s;
	int me = atomic_fetch_add(&x->next, 1);
	struct crr_worker *w = &x->w[me];
	struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.fd = x->lfd};
	size_t plen = (size_t)x->tabn * sizeof(int);

	w->x = x;
	w->buflen = (size_t)(s->o->size > s->o->request ? s->o->size : s->o->request) + 1;
	w->buf = srv_alloc(s, w->buflen);
	w->parked = srv_alloc(s, plen);
	w->ep = epoll_create1(EPOLL_CLOEXEC);
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

		crr_unpark(w, &x->tab[fd]);
		close(fd);
	}
	if (w->ep >= 0)
		close(w->ep);
	srv_free(s, w->buf, w->buflen);
	srv_free(s, w->parked, plen);
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
