/* tcp_crr_many.c: tcp-crr's client above CRR_MANY_ABOVE connections in flight per client.
 *
 * The same cycle as wl_tcp_crr.c's (connect, the request, receive --msgs x --size bytes, close
 * in the --close order), driven from a few threads, each an epoll loop over its share of the
 * connections: non-blocking connect(), then the socket's edges (EPOLLIN | EPOLLOUT, edge-
 * triggered: one epoll_ctl per connection, none to switch direction). A connection in flight
 * is a slot of 48 bytes (fd, step, bytes to go, its times); histograms and counters are the
 * thread's. Every system call is counted where it is made, as on the blocking path.
 *
 * Pacing: a connection whose first byte has not come is in the server's accept queue or being
 * served; each thread keeps at most its part of half the accept queue (the smaller of the
 * listen backlog and net.core.somaxconn, which caps it) in that state, so a burst of
 * thousands of connect() calls never overflows the listener (which ends the run).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/nofile.h"
#include "base/util.h"
#include "transport/tcp.h"
#include "workload/tcp_crr.h"
#include "workload/workload.h"

enum slot_step { SLOT_IDLE, SLOT_CONNECT, SLOT_REQUEST, SLOT_RECV, SLOT_FIN };

struct crr_slot {
	int fd;
	uint8_t step;
	bool measuring; /* started in the window */
	bool first;	/* no byte from the server yet (counted in nfirst) */
	uint64_t left;	/* bytes of the request, or of the messages, still to go */
	uint64_t t0;	/* connect() called */
	uint64_t t1;	/* connected */
	uint64_t last;	/* the last progress: --timeout runs from here */
};

#define EVENTS 256

struct many_thread {
	CACHE_ALIGNED struct crr_slot *slot;
	int *free_idx; /* idle slots, a stack */
	int nfree, nslot, nfirst, first_cap;
	int ep;
	char *buf, *req;
	size_t chunk;
	unsigned next_src;
	bool stop_starting; /* a fatal error: start no more */
	uint64_t next_scan;
	struct epoll_event evs[EVENTS];
};

int crr_many_threads(const struct opts *o)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long n = cpus < 1 ? 1 : cpus > 8 ? 8 : cpus;

	return (int)(n > o->concurrency ? o->concurrency : n);
}

static long read_somaxconn(void)
{
	long v = 4096; /* the kernel's default since 5.4 */
	FILE *f = fopen("/proc/sys/net/core/somaxconn", "re");

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 4096;
		fclose(f);
	}
	return v;
}

static void many_fatal(struct client_thread *t, struct many_thread *m, int e)
{
	int zero = 0;

	m->stop_starting = true;
	if (atomic_compare_exchange_strong(&t->c->sh->fatal, &zero, e))
		atomic_store(&t->c->sh->fatal_after, (long)t->cnt.transactions);
}

static void slot_release(struct many_thread *m, struct crr_slot *k, uint64_t *calls)
{
	++*calls;
	close(k->fd); /* takes it out of the epoll set */
	m->nfirst -= k->first;
	k->first = false;
	k->step = SLOT_IDLE;
	m->free_idx[m->nfree++] = (int)(k - m->slot);
}

/* A connection that failed or timed out: counted by kind, closed. */
static void slot_fail(struct client_thread *t, struct many_thread *m, struct crr_slot *k,
		      enum err_kind why)
{
	uint64_t calls = 0;

	slot_release(m, k, &calls);
	t->cnt.syscalls += k->measuring ? calls : 0;
	count_err(&t->cnt, why, k->measuring);
	if (k->measuring) { /* in the latencies at what it waited: a lower bound */
		uint64_t now = now_ns();

		t->cnt.lost++;
		hist_record_censored(t->lat, lost_wait(t->c->o, now > k->t0 ? now - k->t0 : 0));
	}
}

/* Socket, options, source address, connect(): the slot is in flight, or the failure counted. */
static void slot_start(struct client_thread *t, struct many_thread *m, bool measuring)
{
	const struct opts *o = t->c->o;
	struct crr_slot *k = &m->slot[m->free_idx[--m->nfree]];
	uint64_t calls = 1;
	int one = 1, fd = socket(t->c->server.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	enum err_kind why = ERR_CONNECT;

	*k = (struct crr_slot){.fd = fd, .step = SLOT_CONNECT, .measuring = measuring,
			       .first = true};
	m->nfirst++;
	if (fd < 0)
		goto fail_nofd;
	if (tcp_sockopts_counted(fd, o, &calls))
		goto fail;
	if (o->src_addrs > 1 && t->c->server.ss_family == AF_INET) {
		struct sockaddr_in a = {.sin_family = AF_INET};

		calls += 2;
		setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
		a.sin_addr.s_addr = htonl(0x7f000001u + m->next_src++ % (unsigned)o->src_addrs);
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			goto fail;
	}
	struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = k};

	calls += 2;
	k->t0 = k->last = now_ns();
	if (connect(fd, (struct sockaddr *)&t->c->server, t->c->server_len) < 0 &&
	    errno != EINPROGRESS)
		goto fail;
	if (epoll_ctl(m->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		goto fail;
	t->cnt.syscalls += measuring ? calls : 0;
	return;
fail_nofd: /* the failed socket() is a call too */
	k->fd = -1;
fail:;
	int e = errno;

	if (e == EADDRNOTAVAIL)
		why = ERR_ADDRNOTAVAIL;
	else if (e == ETIMEDOUT)
		why = ERR_TIMEOUT;
	if (e == EMFILE || e == ENFILE || e == EADDRNOTAVAIL)
		many_fatal(t, m, e);
	if (fd >= 0) {
		slot_release(m, k, &calls);
	} else {
		m->nfirst--;
		k->step = SLOT_IDLE;
		m->free_idx[m->nfree++] = (int)(k - m->slot);
	}
	t->cnt.syscalls += measuring ? calls : 0;
	count_err(&t->cnt, why, measuring);
	if (measuring) {
		t->cnt.lost++;
		hist_record_censored(t->lat, lost_wait(t->c->o, k->t0 && now_ns() > k->t0 ? now_ns() - k->t0 : 0));
	}
}

/* The bytes are all in: the connection is counted (one in CRR_TCP_INFO_EVERY of the thread's
 * has its TCP_INFO read, as the blocking client's), then closed in the --close order (--close
 * server: once the server's FIN is in, so TIME_WAIT stays there). */
static void slot_done(struct client_thread *t, struct many_thread *m, struct crr_slot *k,
		      uint64_t *calls)
{
	const struct opts *o = t->c->o;
	uint64_t t2 = now_ns();

	if (k->measuring) {
		hist_record(t->lat, t2 - k->t0);
		hist_record(&t->lat2, k->t1 - k->t0);
		if (t->cnt.transactions % CRR_TCP_INFO_EVERY == 0)
			tcp_info_sample(k->fd, &t->cnt, &t->ti, calls);
		t->cnt.transactions++;
	}
	if (o->close == CLOSE_SERVER) {
		k->step = SLOT_FIN;
		return;
	}
	if (o->close == CLOSE_RESET) {
		struct linger l = {.l_onoff = 1, .l_linger = 0};

		++*calls;
		setsockopt(k->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	slot_release(m, k, calls);
}

/* Receive as far as the socket has bytes (edge-triggered: up to EAGAIN, or the end). */
static void slot_recv(struct client_thread *t, struct many_thread *m, struct crr_slot *k,
		      uint64_t *calls)
{
	struct side_counters *c = &t->cnt;

	while (k->step == SLOT_RECV || k->step == SLOT_FIN) {
		size_t ask = k->step == SLOT_FIN || k->left > m->chunk ? m->chunk : (size_t)k->left;
		ssize_t n = recv(k->fd, m->buf, ask, 0);

		++*calls;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (k->step == SLOT_FIN && n <= 0) { /* the server's FIN (or a reset): close */
			slot_release(m, k, calls);
			return;
		}
		if (k->step == SLOT_FIN)
			continue; /* more than asked for: not ours to count */
		if (n <= 0) {
			t->cnt.syscalls += k->measuring ? *calls : 0;
			*calls = 0;
			slot_fail(t, m, k, n == 0 ? ERR_SHORT : tcp_err_kind(errno));
			return;
		}
		if (k->first) {
			k->first = false;
			m->nfirst--;
		}
		k->left -= (uint64_t)n;
		k->last = now_ns();
		c->rx_bytes += k->measuring ? (uint64_t)n : 0;
		c->rx_packets += k->measuring;
		if (!k->left)
			slot_done(t, m, k, calls);
	}
}

/* The request, as far as the socket takes it (the next EPOLLOUT edge goes on), then the
 * server's bytes. */
static void slot_request(struct client_thread *t, struct many_thread *m, struct crr_slot *k,
			 uint64_t *calls)
{
	const struct opts *o = t->c->o;

	while (k->step == SLOT_REQUEST) {
		ssize_t n = send(k->fd, m->req, (size_t)k->left, MSG_NOSIGNAL);

		++*calls;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) {
			t->cnt.syscalls += k->measuring ? *calls : 0;
			*calls = 0;
			slot_fail(t, m, k, errno == EPIPE || errno == ECONNRESET ? ERR_RESET : ERR_SEND);
			return;
		}
		t->cnt.tx_bytes += k->measuring ? (uint64_t)n : 0;
		t->cnt.tx_packets += k->measuring;
		k->left -= (uint64_t)n;
		if (!k->left) {
			k->step = SLOT_RECV;
			k->left = (uint64_t)(o->msgs * o->size);
		}
	}
}

/* The first EPOLLOUT (or an error) after connect(): connected, or failed with SO_ERROR's
 * errno. */
static void slot_connected(struct client_thread *t, struct many_thread *m, struct crr_slot *k,
			   uint32_t events, uint64_t *calls)
{
	const struct opts *o = t->c->o;

	if (events & (EPOLLERR | EPOLLHUP)) {
		int e = 0;
		socklen_t len = sizeof(e);

		++*calls;
		getsockopt(k->fd, SOL_SOCKET, SO_ERROR, &e, &len);
		t->cnt.syscalls += k->measuring ? *calls : 0;
		*calls = 0;
		if (e == EADDRNOTAVAIL)
			many_fatal(t, m, e);
		slot_fail(t, m, k, e == EADDRNOTAVAIL ? ERR_ADDRNOTAVAIL
				   : e == ETIMEDOUT   ? ERR_TIMEOUT
						      : ERR_CONNECT);
		return;
	}
	k->t1 = k->last = now_ns();
	t->cnt.connects += k->measuring;
	k->step = SLOT_RECV;
	k->left = (uint64_t)(o->msgs * o->size);
	if (o->request) {
		k->step = SLOT_REQUEST;
		k->left = (uint64_t)o->request;
		slot_request(t, m, k, calls);
	}
}

static void slot_event(struct client_thread *t, struct many_thread *m, struct epoll_event *ev)
{
	struct crr_slot *k = ev->data.ptr;
	uint64_t calls = 0;
	bool measuring = k->measuring;

	if (k->step == SLOT_CONNECT || k->step == SLOT_REQUEST) {
		if (!(ev->events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return; /* bytes before the request is out: read once it is */
		if (k->step == SLOT_CONNECT)
			slot_connected(t, m, k, ev->events, &calls);
		else
			slot_request(t, m, k, &calls);
	}
	if (k->step == SLOT_RECV || k->step == SLOT_FIN)
		slot_recv(t, m, k, &calls);
	t->cnt.syscalls += measuring ? calls : 0;
}

/* Slots with no progress for --timeout: a timeout each (a scan every tenth of it). */
static void slots_expire(struct client_thread *t, struct many_thread *m)
{
	uint64_t now = now_ns(), limit = (uint64_t)t->c->o->timeout * 1000000;

	if (now < m->next_scan)
		return;
	m->next_scan = now + limit / 10;
	for (int i = 0; i < m->nslot; i++) {
		struct crr_slot *k = &m->slot[i];

		if (k->step != SLOT_IDLE && now - k->last > limit)
			slot_fail(t, m, k, k->step == SLOT_FIN ? ERR_SHORT : ERR_TIMEOUT);
	}
}

/* Closes what is still in flight; those started in the window are counted as unfinished (and
 * one still connecting as a connect() call too: its SYN went out, as the kernel counts). */
static void slots_abandon(struct client_thread *t, struct many_thread *m)
{
	for (int i = 0; i < m->nslot; i++) {
		struct crr_slot *k = &m->slot[i];
		uint64_t calls = 0;

		if (k->step == SLOT_IDLE)
			continue;
		/* FIN: its bytes are in and it is counted; only the close was left. One of the
		 * window still in flight when its drain ran out got no answer in it: lost. */
		t->cnt.unfinished += k->measuring && k->step != SLOT_FIN;
		if (k->measuring && k->step != SLOT_FIN && atomic_load(&t->c->sh->drain_began)) {
			uint64_t now = now_ns();

			t->cnt.lost++;
			hist_record_censored(t->lat, lost_wait(t->c->o, now > k->t0 ? now - k->t0 : 0));
		}
		t->cnt.connects += k->measuring && k->step == SLOT_CONNECT;
		slot_release(m, k, &calls);
		t->cnt.syscalls += k->measuring ? calls : 0;
	}
}

/* Run connections while the phase is ph: up to `limit` started (count-based), then wait for
 * those in flight. limit < 0 (a time-based run): from the warm-up to the end, each connection
 * counted when it started in the window. */
static void many_run(struct client_thread *t, struct many_thread *m, int ph, long limit)
{
	long started = 0;

	for (;;) {
		int now_ph = thread_phase(t);
		bool measuring = limit < 0 ? now_ph == PH_MEASURE : ph == PH_MEASURE;
		bool more = (limit < 0 ? now_ph < PH_DRAIN : now_ph == ph && started < limit) &&
			    !m->stop_starting;

		/* The phase looked at before each start: a burst of connect() calls takes long
		 * enough that a window's edge falls inside it. */
		while (more && m->nfree && m->nfirst < m->first_cap &&
		       (limit < 0 || started < limit) &&
		       atomic_load_explicit(&t->c->sh->phase, memory_order_acquire) == now_ph) {
			slot_start(t, m, measuring);
			started++;
		}
		if (m->nfree == m->nslot && !more)
			return;
		if (now_ph == PH_STOP)
			return; /* the run is over: slots_abandon counts what is left */
		int n = epoll_wait(m->ep, m->evs, EVENTS, 10);

		t->cnt.syscalls += measuring;
		for (int i = 0; i < n; i++)
			slot_event(t, m, &m->evs[i]);
		slots_expire(t, m);
	}
}

static void *many_thread_main(void *arg)
{
	struct client_thread *t = arg;
	struct many_thread *m = t->priv;
	const struct opts *o = t->c->o;

	thread_wait_phase(t, PH_WARMUP);
	if (o->conns) {
		many_run(t, m, PH_WARMUP, t->warm_share);
		thread_warm_done(t);
		if (thread_wait_phase(t, PH_MEASURE) == PH_MEASURE)
			many_run(t, m, PH_MEASURE, t->share);
		slots_abandon(t, m);
		thread_done(t);
		return NULL;
	}
	many_run(t, m, PH_WARMUP, -1); /* returns once the drain found nothing in flight */
	drain_done(t->c);
	thread_wait_phase(t, PH_STOP);
	slots_abandon(t, m);
	return NULL;
}

int crr_first_cap(long backlog, long somaxconn, long clients, int threads, int nslot)
{
	long queue = backlog < somaxconn ? backlog : somaxconn;
	long cap = queue / 2 / (clients * threads);

	return cap < 1 ? 1 : cap > nslot ? nslot : (int)cap;
}

static int many_setup(struct client_ctx *c, struct many_thread *m, int n, int i)
{
	const struct opts *o = c->o;

	m->nslot = (int)share_of(o->concurrency, n, i);
	m->first_cap = crr_first_cap(o->backlog, read_somaxconn(), o->clients, n, m->nslot);
	m->slot = xcalloc((size_t)m->nslot, sizeof(*m->slot));
	m->free_idx = xcalloc((size_t)m->nslot, sizeof(int));
	for (int s = 0; s < m->nslot; s++)
		m->free_idx[m->nfree++] = m->nslot - 1 - s;
	m->chunk = o->read_size ? (size_t)o->read_size : (size_t)o->size;
	m->buf = xmalloc_io(m->chunk);
	m->req = xcalloc(1, (size_t)o->request + 1);
	m->next_src = (unsigned)i;
	m->ep = epoll_create1(EPOLL_CLOEXEC);
	return m->ep < 0 ? -errno : 0;
}

int crr_many_client(struct client_ctx *c)
{
	const struct opts *o = c->o;
	int n = crr_many_threads(o), ret = 0;
	struct client_thread *t = xcalloc_lines((size_t)n, sizeof(*t));
	struct many_thread *m = xcalloc_lines((size_t)n, sizeof(*m));
	char what[64];

	snprintf(what, sizeof(what), "--concurrency %ld", o->concurrency);
	ret = nofile_ensure(o->concurrency, what, c->rep->msg, sizeof(c->rep->msg));
	for (int i = 0; i < n && !ret; i++) {
		ret = many_setup(c, &m[i], n, i);
		t[i].priv = &m[i];
	}
	if (!ret) /* a time-based run drains: each thread a unit */
		ret = client_go(c, 0, &(struct client_run){.t = t, .n = n, .drain = o->conns ? 0 : n,
						       .warm = o->warmup_conns, .units = o->conns,
						       .fn = many_thread_main});
	for (int i = 0; i < n; i++) {
		if (m[i].ep > 0)
			close(m[i].ep);
		free(m[i].slot);
		free(m[i].free_idx);
		free(m[i].buf);
		free(m[i].req);
	}
	free(m);
	free(t);
	return ret;
}
