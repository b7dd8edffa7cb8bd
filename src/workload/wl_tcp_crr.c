/* wl_tcp_crr.c: TCP connect, receive, close, over and over (SCENARIOS.md A).
 *
 * Each connection: the client connects, optionally sends --request bytes, the server sends
 * --msgs messages of --size bytes, the client receives every byte with the --recv call, and
 * the connection is closed in the --close order. By default the window is a count of
 * connections (100,000 after 1,000 of warm-up), as in the report; --duration makes it a time.
 *
 * TIME_WAIT lands on the side that closes first. The default, --close server, keeps it off the
 * client's ephemeral ports, so 100,000 connections in a row do not run out of them; --close
 * client spreads the client over 16 source addresses on loopback (more when the connections in
 * flight need them: crr_src_addrs); if connect() still fails with EADDRNOTAVAIL the run stops
 * and says so (never a silent short count).
 *
 * Up to CRR_MANY_ABOVE connections in flight per client, a thread each runs them one after the
 * other with blocking calls (below); above, tcp_crr_many.c drives them from a few epoll threads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/nofile.h"
#include "measure/result.h"
#include "transport/tcp.h"
#include "transport/knobs.h"
#include "base/util.h"
#include "workload/openloop.h"
#include "workload/tcp_crr.h"
#include "workload/workload.h"

#define POLL_NS (50 * 1000000ULL) /* receive timeout between checks of the phase */

/* --close server: the client closes only once the server's FIN is in, so TIME_WAIT stays on
 * the server. The FIN often comes a moment after the last byte (the server closes after its
 * sends), so a client that waits for it sleeps once per connection; instead, a connection
 * whose bytes are all in waits here while the next ones run, and is closed (its FIN read,
 * then close: the same two calls) when CLOSING_MAX others wait behind it. */
#define CLOSING_MAX 8

struct crr_thread {
	CACHE_ALIGNED char *buf; /* each thread's on lines of its own */
	char *req;
	struct tcp_io io;
	unsigned next_src;
	int closing[CLOSING_MAX]; /* oldest first */
	int nclosing;
	struct ol_gen gen; /* --rate: this thread's schedule */
};

static void set_fatal(struct client_thread *t, int e)
{
	int zero = 0;

	if (atomic_compare_exchange_strong(&t->c->sh->fatal, &zero, e))
		atomic_store(&t->c->sh->fatal_after, (long)t->cnt.transactions);
}

/* One socket, bound to the next source address when spreading over several. Every system
 * call it makes is added to *calls. */
static int crr_socket(struct client_thread *t, struct crr_thread *x, uint64_t *calls)
{
	const struct opts *o = t->c->o;
	int fd = socket(t->c->server.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, e;

	++*calls;
	if (fd < 0)
		return -errno;
	/* A receive timeout only: the phase and --timeout are looked at between timed-out waits;
	 * the small request never fills a send buffer. */
	struct timeval tv = {.tv_usec = POLL_NS / 1000};

	if (tcp_sockopts_counted(fd, o, calls) || knobs_client(fd, o, NULL, calls) ||
	    (++*calls, setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))))
		goto fail;
	if (o->src_addrs > 1 && t->c->server.ss_family == AF_INET) {
		struct sockaddr_in a = {.sin_family = AF_INET};

		/* Let connect() pick the port, per source address (Linux 4.2+). */
		*calls += 2;
		setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
		a.sin_addr.s_addr = htonl(0x7f000001u + x->next_src++ % (unsigned)o->src_addrs);
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			goto fail;
	}
	return fd;
fail:
	e = errno;
	++*calls;
	close(fd);
	return -e;
}

static void crr_close(const struct opts *o, int fd, uint64_t *calls)
{
	if (o->close == CLOSE_RESET) {
		struct linger l = {.l_onoff = 1, .l_linger = 0};

		++*calls;
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	tcp_close(fd, calls);
}

/* The oldest waiting connection: read to the server's FIN (by now almost always in), close. */
static void crr_close_oldest(struct crr_thread *x, const struct opts *o, uint64_t *calls)
{
	int fd = x->closing[0];
	uint64_t before = x->io.syscalls;

	tcp_drain_to_eof(&x->io, fd, x->buf, x->io.chunk);
	*calls += x->io.syscalls - before;
	x->io.syscalls = before;
	crr_close(o, fd, calls);
	memmove(x->closing, x->closing + 1, (size_t)--x->nclosing * sizeof(int));
}

/* Close every waiting connection (the end of a thread's share), counting when measuring. */
static void crr_close_all(struct client_thread *t, struct crr_thread *x, bool measuring)
{
	uint64_t calls = 0;

	while (x->nclosing)
		crr_close_oldest(x, t->c->o, &calls);
	t->cnt.syscalls += measuring ? calls : 0;
}

/* A connection of the window that failed: in the latencies at what it waited since it was
 * due (or began), a lower bound; and lost (no answer). */
static void crr_failed(struct client_thread *t, bool measuring, uint64_t from, uint64_t t0)
{
	uint64_t now = now_ns();

	/* A connection the server closed at the run's end (Ctrl-C, no drain) lost nothing. */
	if (!measuring || (atomic_load(&t->c->sh->phase) >= PH_STOP &&
			   !atomic_load(&t->c->sh->drain_began)))
		return;
	t->cnt.lost++;
	hist_record_censored(t->lat, lost_wait(t->c->o, now > from ? now - from : 0));
	/* Open loop: the thread's next arrival waited on this one too (the server's hold). */
	if (t->c->o->rate && t0 && now - t0 > t->cnt.held_max_ns)
		t->cnt.held_max_ns = now - t0;
}

/* One connection; counted when `measuring`. Its spans, as docs/workloads.md defines them: connect()
 * from its call to its return, and the connection from the call of connect() to the last byte
 * received (before the wait for the server's FIN and the close). Every system call is counted
 * where it is made. */
static void crr_one(struct client_thread *t, struct crr_thread *x, bool measuring, uint64_t due)
{
	const struct opts *o = t->c->o;
	struct side_counters *c = &t->cnt;
	uint64_t t0, t1, t2, calls = 0;
	int fd = crr_socket(t, x, &calls);

	if (fd < 0) {
		c->syscalls += measuring ? calls : 0;
		count_err(c, fd == -EADDRNOTAVAIL ? ERR_ADDRNOTAVAIL : ERR_CONNECT, measuring);
		crr_failed(t, measuring, due ? due : now_ns(), 0);
		if (fd == -EMFILE || fd == -ENFILE || fd == -EADDRNOTAVAIL)
			set_fatal(t, -fd);
		return;
	}
	calls++;
	t0 = now_ns();
	if (connect(fd, (struct sockaddr *)&t->c->server, t->c->server_len) < 0) {
		int e = errno;

		calls++;
		close(fd);
		c->syscalls += measuring ? calls : 0;
		count_err(c, tcp_err_kind(e) == ERR_TIMEOUT ? ERR_TIMEOUT : tcp_err_kind(e), measuring);
		crr_failed(t, measuring, due ? due : t0, t0);
		if (e == EADDRNOTAVAIL)
			set_fatal(t, e);
		return;
	}
	t1 = now_ns();
	knobs_read(fd, &t->c->rep->sock);
	c->connects += measuring;
	x->io.rx_calls = x->io.tx_calls = x->io.syscalls = x->io.rx_bytes = x->io.tx_bytes = 0;
	int r = 0;
	size_t total = (size_t)o->msgs * (size_t)o->size;

	if (o->request)
		r = tcp_send_n(&x->io, fd, x->req, (size_t)o->request);
	if (!r)
		r = tcp_recv_n(&x->io, fd, x->buf, total);
	t2 = now_ns();
	if (!r && measuring && c->transactions % CRR_TCP_INFO_EVERY == 0) /* a sample: see tcp.h */
		tcp_info_sample(fd, c, &t->ti, &calls);
	/* --close server: closed once the server's FIN is in, after the next connections (see
	 * CLOSING_MAX); closing as soon as the bytes are in would race the server's close, and the
	 * client would then get TIME_WAIT. */
	if (!r && o->close == CLOSE_SERVER) {
		if (x->nclosing == CLOSING_MAX)
			crr_close_oldest(x, o, &calls);
		x->closing[x->nclosing++] = fd;
	} else {
		crr_close(o, fd, &calls);
	}
	if (!measuring)
		return;
	c->syscalls += calls + x->io.syscalls;
	c->tx_bytes += x->io.tx_bytes;
	c->rx_bytes += x->io.rx_bytes;
	c->rx_packets += x->io.rx_calls;
	c->tx_packets += x->io.tx_calls;
	if (TCP_FAILED(r))
		count_err(c, x->io.why, measuring);
	/* Failed, or still in flight when the drain after the window ran out. */
	if (TCP_FAILED(r) || (r && atomic_load(&t->c->sh->drain_began))) {
		c->unfinished += !TCP_FAILED(r);
		crr_failed(t, measuring, due ? due : t0, t0);
	}
	if (r)
		return;
	if (due) { /* open loop: from its scheduled time, and from connect() (service) */
		ol_lag_note(&x->gen.lag, due, t0);
		if (t2 - t0 > c->held_max_ns) /* the thread's next arrival waits on this one */
			c->held_max_ns = t2 - t0;
		ol_record(t->lat, &t->lat2, due, t0, t2);
	} else {
		hist_record(t->lat, t2 - t0);
		hist_record(&t->lat2, t1 - t0);
	}
	c->transactions++;
}

/* --rate: the thread takes every --concurrency-th arrival of its client's schedule (a
 * schedule of its own at rate / (clients x concurrency), interleaved with the others'); one
 * due while the thread is still on the previous connection starts late, and that wait counts
 * in its latency, timed from its scheduled time, and as lag. */
static void crr_open_loop(struct client_thread *t, struct crr_thread *x)
{
	const struct opts *o = t->c->o;
	long g = t->c->index * o->concurrency + t->index;
	struct timespec nap;

	ol_sched_init(&x->gen.sched, (double)o->rate / (double)(o->clients * o->concurrency),
		      o->arrivals, (uint64_t)g + 1, now_ns() + (uint64_t)(1e9 * (double)g / (double)o->rate));
	for (int ph; (ph = thread_phase(t)) < PH_DRAIN;) {
		uint64_t now = now_ns();

		ol_gen_follow(&x->gen, ph == PH_MEASURE, now, &t->cnt);
		if (x->gen.sched.next_ns <= now) {
			crr_one(t, x, ph == PH_MEASURE, ol_gen_take(&x->gen));
			continue;
		}
		nap.tv_nsec = (long)(x->gen.sched.next_ns - now < 10000000 ? x->gen.sched.next_ns - now
									 : 10000000);
		nap.tv_sec = 0;
		nanosleep(&nap, NULL);
	}
	ol_gen_follow(&x->gen, false, now_ns(), &t->cnt);
}

static void *crr_thread_main(void *arg)
{
	struct client_thread *t = arg;
	struct crr_thread *x = t->priv;
	const struct opts *o = t->c->o;

	thread_wait_phase(t, PH_WARMUP);
	if (o->rate) {
		crr_open_loop(t, x);
		crr_close_all(t, x, false);
		return NULL;
	}
	if (o->conns) {
		for (long i = 0; i < t->warm_share && thread_phase(t) == PH_WARMUP; i++)
			crr_one(t, x, false, 0);
		crr_close_all(t, x, false);
		thread_warm_done(t);
		if (thread_wait_phase(t, PH_MEASURE) == PH_MEASURE)
			for (long i = 0; i < t->share && thread_phase(t) == PH_MEASURE; i++)
				crr_one(t, x, true, 0);
		crr_close_all(t, x, true); /* the window's own connections */
		thread_done(t);
		return NULL;
	}
	for (int ph; (ph = thread_phase(t)) < PH_DRAIN;)
		crr_one(t, x, ph == PH_MEASURE, 0);
	crr_close_all(t, x, false);
	return NULL;
}

/* Each thread is a unit of the drain: once it returns, nothing of the window is in flight. */
static void *crr_thread_drained(void *arg)
{
	struct client_thread *t = arg;
	void *ret = crr_thread_main(t);

	drain_done(t->c);
	return ret;
}

static int crr_client(struct client_ctx *c)
{
	const struct opts *o = c->o;

	/* Before any thread's state is allocated: a thread's is large (its histograms), and
	 * 20,000 of them zeroed and freed took 7 s of page faults before the first connect. */
	if (o->concurrency > CRR_MANY_ABOVE)
		return crr_many_client(c);
	int n = (int)o->concurrency, ret;
	struct client_thread *t = xcalloc_lines((size_t)n, sizeof(*t));
	struct crr_thread *x = xcalloc_lines((size_t)n, sizeof(*x));
	size_t chunk = o->read_size ? (size_t)o->read_size : (size_t)o->size;

	for (int i = 0; i < n; i++) {
		x[i].buf = xmalloc_io(chunk);
		x[i].req = xcalloc(1, (size_t)o->request + 1);
		x[i].io = (struct tcp_io){.rx = tcp_recv_of(o->recv),
					  .tx = tcp_send_of(SEND_SEND), .chunk = chunk,
					  .quickack = o->quickack, .phase = &c->sh->phase,
					  .timeout_ns = (uint64_t)o->timeout * 1000000};
		x[i].gen.lag.h = xmalloc(sizeof(*x[i].gen.lag.h));
		hist_reset(x[i].gen.lag.h);
		t[i].priv = &x[i];
	}
	ret = client_go(c, 0, &(struct client_run){.t = t, .n = n, .drain = n, .warm = o->warmup_conns,
					       .units = o->conns, .fn = crr_thread_drained});
	for (int i = 0; i < n; i++) {
		free(x[i].buf);
		free(x[i].req);
		free(x[i].gen.lag.h);
	}
	free(x);
	free(t);
	return ret;
}

static const struct strategy crr_strategies[] = {
	{"abortive close (RST, no TIME_WAIT)", "close", "--close reset", true},
	{"TCP_NODELAY", "nodelay", "--nodelay", false},
	{"recv with MSG_WAITALL", "recv", "--recv waitall", false},
	{"epoll_wait, then recv", "recv", "--recv epoll", false},
	{"io_uring recv", "recv", "--recv uring", false},
	{"64 KB per receive call", "readsize", "--read-size 65536", false},
	{"SO_RCVLOWAT: wake once a message is in", "lowat", "--rcvlowat 10000", false},
	{"TCP_QUICKACK", "quickack", "--quickack", false},
	{"4 connections in flight", "concurrency", "--concurrency 4", true},
	STRATEGIES_EVERY_SERVER,
	{0},
};

const struct workload wl_tcp_crr = {
	.name = "tcp-crr",
	.summary = "TCP connect, receive, close, over and over (defaults: the classic report, "
		   "100,000 connections, the server sends 2 x 10,000 bytes on each).",
	.opts = opts_tcp_crr,
	.overrides = crr_overrides,
	.unit = "connection",
	.latency_label = "connection",
	.snmp_proto = "Tcp",
	.shows = SHOWS_CONNECTIONS | SHOWS_ACCEPT_QUEUE,
	.tcp_info_every = CRR_TCP_INFO_EVERY,
	.check = crr_check,
	.count_based = crr_count_based,
	.describe = crr_describe,
	.headline = ol_headline,
	.drains = true,
	.kernel_pairs = crr_kernel_pairs,
	.server_open = crr_server_open,
	.server_bytes = crr_server_bytes,
	.server_loop = crr_server_loop,
	.server_close = tcp_server_close,
	.client = crr_client,
	.strategies = crr_strategies,
};
