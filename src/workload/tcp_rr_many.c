/* tcp_rr_many.c: tcp-rr's client with many flows in a process (tcp_rr_many.h).
 *
 * A few threads (one per CPU) each hold a slice of the flows in an epoll set, level-triggered,
 * sockets non-blocking. An answer's bytes may come in pieces and several at once: a flow
 * counts how far its current answer is, and each whole one ends the transaction of the oldest
 * request in flight (answers come in order), timed from that request's send to this last
 * byte, and sends the next request at once. The requests are bytes the server does not read
 * (zeros), so a flow owes a count of them: one that the socket would not take all of waits
 * for EPOLLOUT with the rest. Per flow: its fd, three counts, and --window send times.
 *
 * A request is the window's when it went out after the thread saw the window open (its send
 * time says so): its answer is timed whenever it comes, and the drain after the window sends
 * nothing new and waits for those still in flight (a slot answered in the drain is emptied, 0);
 * one that fails or times out, or is still in flight when the drain is cut short, is counted
 * lost at what it waited. Answers to the warm-up's requests are not the window's.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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

enum { MF_OUT = 1, MF_DEAD = 2, MF_SEEN = 4 };

struct mf_flow {
	int fd;
	uint32_t rx_have; /* bytes of the current answer so far */
	uint32_t head;	  /* the oldest request in flight, in the flow's ring of send times */
	uint32_t flags;	  /* MF_* */
	uint64_t tx_owed; /* request bytes not yet taken by the socket */
	uint64_t last_ns; /* the flow's last progress (the --timeout watch) */
};

struct mf_thread {
	struct mf_flow *f;
	uint64_t *sent; /* nf x window send times */
	int nf, ep, live;
	char *buf;
	const char *zero;
	size_t chunk, window, request, response;
	uint64_t timeout_ns, next_watch;
	uint64_t open_ns;    /* when this thread saw the window open (0: not yet) */
	bool draining, drained;
	int pending;	     /* in the drain: flows with a request still in flight */
	struct tcp_io io;
	struct epoll_event ev[EVENTS];
};

static uint64_t *ring_of(const struct mf_thread *m, const struct mf_flow *f)
{
	return m->sent + (size_t)(f - m->f) * m->window;
}

/* A request of the window: sent once this thread saw it open (0: no request in the slot). */
static bool of_window(const struct mf_thread *m, uint64_t sent)
{
	return m->open_ns && sent >= m->open_ns;
}

/* In the drain, a flow with a request still in flight (its oldest slot holds one). */
static bool flow_pending(const struct mf_thread *m, const struct mf_flow *f)
{
	return m->draining && !(f->flags & MF_DEAD) && ring_of(m, f)[f->head];
}

/* The flow's requests of the window still in flight: lost, in the latencies at their wait. */
static void count_lost(struct client_thread *t, struct mf_thread *m, struct mf_flow *f)
{
	uint64_t *ring = ring_of(m, f), now = now_ns();

	for (size_t i = 0; i < m->window; i++) {
		if (!of_window(m, ring[i]))
			continue;
		t->cnt.lost++;
		hist_record_censored(t->lat, lost_wait(t->c->o, now > ring[i] ? now - ring[i] : 0));
		ring[i] = 0;
	}
}

static void flow_fail(struct client_thread *t, struct mf_thread *m, struct mf_flow *f,
		      enum err_kind why, bool measuring)
{
	count_err(&t->cnt, why, measuring);
	m->pending -= flow_pending(m, f);
	count_lost(t, m, f);
	epoll_ctl(m->ep, EPOLL_CTL_DEL, f->fd, NULL);
	f->flags |= MF_DEAD;
	m->live--;
}

static void want_out(struct mf_thread *m, struct mf_flow *f, bool on)
{
	struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = f};

	m->io.syscalls++;
	epoll_ctl(m->ep, EPOLL_CTL_MOD, f->fd, &ev);
	f->flags = on ? f->flags | MF_OUT : f->flags & ~(uint32_t)MF_OUT;
}

/* Send what the flow owes, as far as the socket takes it. 0, or -1 when the flow failed. */
static int flush(struct client_thread *t, struct mf_thread *m, struct mf_flow *f, bool measuring)
{
	while (f->tx_owed) {
		size_t len = f->tx_owed < ZERO_CAP ? (size_t)f->tx_owed : ZERO_CAP;
		ssize_t w = m->io.tx->send(&m->io, f->fd, m->zero, len);

		if (w > 0) {
			m->io.tx_calls++;
			m->io.tx_bytes += (uint64_t)w;
			f->tx_owed -= (uint64_t)w;
			continue;
		}
		if (w == -EINTR)
			continue;
		if (w == -EAGAIN) {
			if (!(f->flags & MF_OUT))
				want_out(m, f, true);
			return 0;
		}
		flow_fail(t, m, f, w == -EPIPE || w == -ECONNRESET ? ERR_RESET : ERR_SEND, measuring);
		return -1;
	}
	if (f->flags & MF_OUT)
		want_out(m, f, false);
	return 0;
}

/* got bytes of answers arrived at now: end the transactions they complete, and queue the
 * next request of each (in the drain, none: the slot is emptied). */
static void take(struct client_thread *t, struct mf_thread *m, struct mf_flow *f, size_t got,
		 uint64_t now)
{
	uint64_t *ring = ring_of(m, f);

	while (got) {
		size_t need = m->response - f->rx_have, k = got < need ? got : need;

		got -= k;
		f->rx_have += (uint32_t)k;
		if (f->rx_have < m->response)
			break;
		f->rx_have = 0;
		if (of_window(m, ring[f->head])) {
			hist_record(t->lat, now - ring[f->head]);
			t->cnt.transactions++;
			f->flags |= MF_SEEN;
		}
		ring[f->head] = m->draining ? 0 : now;
		f->head = (uint32_t)((f->head + 1) % m->window);
		if (!m->draining)
			f->tx_owed += m->request;
		else if (!ring[f->head]) { /* its last of the window answered */
			m->pending--;
			break;
		}
	}
	f->last_ns = now;
}

/* The window closed: the flows' whole requests not yet sent never go out (the newest slots,
 * emptied; one partly sent goes on, its answer due), and the flows with one in flight are
 * waited for. */
static void begin_drain(struct mf_thread *m)
{
	m->draining = true;
	for (int i = 0; i < m->nf; i++) {
		struct mf_flow *f = &m->f[i];
		uint64_t *ring = ring_of(m, f), unsent = f->tx_owed / m->request;

		if (f->flags & MF_DEAD)
			continue;
		f->tx_owed -= unsent * m->request;
		for (uint64_t k = 1; k <= unsent && k <= m->window; k++)
			ring[(f->head + m->window - k) % m->window] = 0;
		m->pending += flow_pending(m, f);
	}
}

static void on_readable(struct client_thread *t, struct mf_thread *m, struct mf_flow *f,
			bool measuring)
{
	int one = 1;

	/* In the drain no request carries the ACK of the last answer: ACK at once, or a server's
	 * next answer waits for a delayed ACK (Nagle), 40 ms a drain (wl_tcp_rr.c does the same). */
	if (m->io.quickack || m->draining) {
		m->io.syscalls++;
		setsockopt(f->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
	}
	ssize_t got = m->io.rx->recv(&m->io, f->fd, m->buf, m->chunk);

	if (got > 0) {
		m->io.rx_calls++;
		m->io.rx_bytes += (uint64_t)got;
		take(t, m, f, (size_t)got, now_ns());
		if (f->tx_owed && !(f->flags & MF_OUT))
			flush(t, m, f, measuring);
	} else if (got != -EAGAIN && got != -EINTR) {
		flow_fail(t, m, f, got == 0 ? ERR_SHORT : tcp_err_kind((int)-got), measuring);
	}
}

static void count_io(struct side_counters *c, struct tcp_io *io)
{
	tcp_io_count(c, io);
	io->rx_calls = io->tx_calls = io->syscalls = io->rx_bytes = io->tx_bytes = 0;
}

/* A flow with requests in flight and no answer for --timeout is an error (a scan, about four
 * times a timeout: off the per-transaction path). */
static void watch(struct client_thread *t, struct mf_thread *m, uint64_t now, bool measuring)
{
	if (now < m->next_watch)
		return;
	m->next_watch = now + m->timeout_ns / 4;
	for (int i = 0; i < m->nf; i++) {
		struct mf_flow *f = &m->f[i];

		if (!(f->flags & MF_DEAD) && now - f->last_ns > m->timeout_ns &&
		    (!m->draining || flow_pending(m, f)))
			flow_fail(t, m, f, ERR_TIMEOUT, measuring);
	}
}

/* The first request of each slot goes out unmeasured at the warm-up; then one per answer. */
static void start_flows(struct client_thread *t, struct mf_thread *m)
{
	uint64_t now = now_ns();

	for (int i = 0; i < m->nf; i++) {
		struct mf_flow *f = &m->f[i];

		for (size_t k = 0; k < m->window; k++)
			m->sent[(size_t)i * m->window + k] = now;
		f->last_ns = now;
		f->tx_owed = m->window * m->request;
		flush(t, m, f, false);
	}
	m->io.rx_calls = m->io.tx_calls = m->io.syscalls = m->io.rx_bytes = m->io.tx_bytes = 0;
}

/* The window's open (the window's requests are those sent after it) and the drain's start,
 * as this thread sees the phase: before and after each wait, so answers that came across an
 * edge queue their next request on the right side of it. */
static void edge_seen(struct mf_thread *m, int ph)
{
	if (ph == PH_MEASURE && !m->open_ns)
		m->open_ns = now_ns();
	if (ph == PH_DRAIN && !m->draining)
		begin_drain(m);
}

/* The edges, and the drain's end (true: nothing of the window in flight, the coordinator
 * told, the thread waits for the stop). */
static bool edges(struct client_thread *t, struct mf_thread *m, int ph)
{
	edge_seen(m, ph);
	if (!m->draining || m->pending > 0)
		return false;
	m->drained = true;
	drain_done(t->c);
	thread_wait_phase(t, PH_STOP);
	return true;
}

/* The thread's end: a drain cut short (the coordinator's bound, a signal) or not begun by
 * this thread loses what the window still has in flight; a run that had no drain (Ctrl-C)
 * lost nothing. */
static void thread_end(struct client_thread *t, struct mf_thread *m)
{
	if (!m->drained && (m->draining || atomic_load(&t->c->sh->drain_began))) {
		if (!m->draining)
			begin_drain(m); /* what was never sent is not lost */
		for (int i = 0; i < m->nf; i++)
			if (!(m->f[i].flags & MF_DEAD))
				count_lost(t, m, &m->f[i]);
	}
	if (!m->drained)
		drain_done(t->c);
	for (int i = 0; i < m->nf; i++) { /* flows that carried nothing in the window */
		t->cnt.idle_flows += t->saw_measure && !(m->f[i].flags & MF_SEEN);
		if (!(m->f[i].flags & MF_DEAD)) /* TCP_INFO of each, after the window */
			tcp_info_sample(m->f[i].fd, &t->cnt, NULL, NULL);
	}
}

/* Past some thousands of flows a flow's state has left the caches by its next turn (the
 * kernel's socket work between evicts it): its line and its send times' are asked for early. */
static inline void prefetch_flow(const struct mf_thread *m, const struct mf_flow *f)
{
	__builtin_prefetch(f, 1);
	__builtin_prefetch(m->sent + (size_t)(f - m->f) * m->window, 1);
}

static void *mf_thread_main(void *arg)
{
	struct client_thread *t = arg;
	struct mf_thread *m = t->priv;
	int ph = thread_wait_phase(t, PH_WARMUP);

	start_flows(t, m);
	m->next_watch = now_ns() + m->timeout_ns / 4;
	while (m->live > 0 && (ph = thread_phase(t)) != PH_STOP && !edges(t, m, ph)) {
		bool measuring = ph == PH_MEASURE;
		int n = epoll_wait(m->ep, m->ev, EVENTS, WAIT_MS);

		m->io.syscalls++;
		edge_seen(m, thread_phase(t));
		for (int k = 0; k < n; k++) {
			struct mf_flow *f = m->ev[k].data.ptr;

			if (k + 1 < n) /* the next flow's state, in while this one's calls run */
				prefetch_flow(m, m->ev[k + 1].data.ptr);
			if (f->flags & MF_DEAD)
				continue;
			if (m->ev[k].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
				on_readable(t, m, f, measuring);
			if (!(f->flags & MF_DEAD) && (m->ev[k].events & EPOLLOUT))
				flush(t, m, f, measuring);
		}
		if (measuring)
			count_io(&t->cnt, &m->io);
		else
			m->io.rx_calls = m->io.tx_calls = m->io.syscalls = m->io.rx_bytes =
				m->io.tx_bytes = 0;
		watch(t, m, now_ns(), measuring);
	}
	thread_end(t, m);
	return NULL;
}

static void thread_setup(struct client_ctx *c, struct mf_thread *m, const char *zero)
{
	const struct opts *o = c->o;

	m->ep = epoll_create1(EPOLL_CLOEXEC);
	m->live = m->nf;
	m->window = (size_t)o->window;
	m->request = (size_t)o->request;
	m->response = (size_t)o->response;
	m->chunk = o->read_size ? (size_t)o->read_size : (size_t)o->response;
	m->buf = xmalloc_io(m->chunk);
	m->zero = zero;
	m->timeout_ns = (uint64_t)o->timeout * 1000000;
	m->io = (struct tcp_io){.rx = tcp_recv_of(o->recv), .tx = tcp_send_of(SEND_SEND),
				.chunk = m->chunk, .quickack = o->quickack, .phase = &c->sh->phase,
				.timeout_ns = m->timeout_ns, .memfd = -1, .pipe = {-1, -1}};
	for (int i = 0; i < m->nf; i++) {
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &m->f[i]};

		if (epoll_ctl(m->ep, EPOLL_CTL_ADD, m->f[i].fd, &ev) < 0)
			m->f[i].flags |= MF_DEAD, m->live--;
	}
}

/* The flows cut into nt slices, a thread each. */
static struct mf_thread *threads_setup(struct client_ctx *c, struct mf_flow *f, uint64_t *sent,
				       int n, int nt, const char *zero)
{
	struct mf_thread *m = xcalloc_lines((size_t)nt, sizeof(*m));
	int at = 0;

	for (int k = 0; k < nt; k++) {
		m[k].nf = (int)share_of(n, nt, k);
		m[k].f = f + at;
		m[k].sent = sent + (size_t)at * (size_t)c->o->window;
		at += m[k].nf;
		thread_setup(c, &m[k], zero);
	}
	return m;
}

static int client_threads(const struct opts *o)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN) / o->clients;

	return flow_plan_threads(o->flows, cpus > 0 ? (int)cpus : 1);
}

int tcp_rr_many_client(struct client_ctx *c)
{
	const struct opts *o = c->o;
	int n = (int)o->flows, nt = client_threads(o), ret;
	char what[64];

	snprintf(what, sizeof(what), "--flows %d", n);
	if ((ret = nofile_ensure(n, what, c->rep->msg, sizeof(c->rep->msg))))
		return ret;
	int *fds = xcalloc((size_t)n, sizeof(*fds));

	if ((ret = tcp_rr_connect_all(c, fds, n, c->rep->msg, sizeof(c->rep->msg)))) {
		for (int i = 0; i < n; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		free(fds);
		return ret;
	}
	struct mf_flow *f = xcalloc((size_t)n, sizeof(*f));
	uint64_t *sent = xcalloc((size_t)n * (size_t)o->window, sizeof(*sent));
	char *zero = xcalloc(1, ZERO_CAP);

	for (int i = 0; i < n; i++)
		f[i].fd = fds[i];
	free(fds);
	struct mf_thread *m = threads_setup(c, f, sent, n, nt, zero);
	struct client_thread *t = xcalloc_lines((size_t)nt, sizeof(*t));

	for (int k = 0; k < nt; k++)
		t[k].priv = &m[k];
	ret = client_go(c, 0, &(struct client_run){.t = t, .n = nt, .drain = nt, .fn = mf_thread_main});
	for (int k = 0; k < nt; k++) {
		close(m[k].ep);
		free(m[k].buf);
	}
	for (int i = 0; i < n; i++)
		close(f[i].fd);
	free(t);
	free(m);
	free(zero);
	free(sent);
	free(f);
	return ret;
}
