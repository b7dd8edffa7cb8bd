/* tcp_rr_open.c: tcp-rr driven open loop (--rate).
 *
 * Each connection carries rate / (clients x flows) requests per second on a schedule of its
 * own (openloop.h) and has two threads: a sender, which sleeps until the next request is due
 * and sends it whatever the answers do (requests pipeline on the connection, up to
 * TCP_OL_INFLIGHT in flight), and a receiver, which takes the answers, in order, and times
 * each from its request's scheduled send (lat) and actual send (lat2). They share a ring of
 * those two times, one writer and one reader, published with release/acquire stores of
 * their counts: no lock. The sender waits on the server only when the connection's send
 * buffer is full (a server that stopped reading): that wait is schedule lag, and counts in the
 * latency of every request behind it, timed from its scheduled send.
 * A request due in the window is the window's: after it closes the sender stops, and the
 * receiver times the window's last answers (the drain); what is still unanswered when the
 * connection fails or the drain ends is lost, in the latencies at its wait.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "transport/tcp.h"
#include "transport/knobs.h"
#include "workload/openloop.h"
#include "workload/tcp_rr_open.h"
#include "workload/workload.h"

#define POLL_NS (50 * 1000000ULL)
#define NAP_MAX_NS (10 * 1000000ULL) /* a sender looks at the phase at least this often */

struct tro_times {
	uint64_t due, sent;
	bool counted; /* due in the window */
};

struct tro_flow {
	CACHE_ALIGNED int fd;
	char *req, *buf;
	struct tro_times *ring;
	double rate;
	uint64_t start_ns, seed;
	struct tcp_io rio, tio;
	struct ol_gen gen;
	CACHE_ALIGNED _Atomic uint64_t sent; /* written by the sender */
	_Atomic bool stopped;		      /* the sender sends no more (the drain) */
	CACHE_ALIGNED _Atomic uint64_t done; /* written by the receiver */
	_Atomic bool drained;		      /* drain_done said for this flow */
};

/* Once the sender has stopped and every request it sent is answered, the flow is drained:
 * whichever thread sees both first says so (each writes its part before reading the other's). */
static void flow_drain_check(struct client_ctx *c, struct tro_flow *f)
{
	bool no = false;

	if (atomic_load(&f->stopped) && atomic_load(&f->done) == atomic_load(&f->sent) &&
	    atomic_compare_exchange_strong(&f->drained, &no, true))
		drain_done(c);
}

/* The window's requests still unanswered when the receiver ends (its connection failed, or
 * the drain ran out): lost, in the latencies at what each waited. */
static void flow_count_lost(struct client_thread *t, struct tro_flow *f, uint64_t from)
{
	uint64_t now = now_ns(), to = atomic_load(&f->sent);

	for (uint64_t s = from; s < to; s++) {
		const struct tro_times *e = &f->ring[s % TCP_OL_INFLIGHT];

		if (!e->counted)
			continue;
		t->cnt.lost++;
		hist_record_censored(t->lat, lost_wait(t->c->o, now > e->due ? now - e->due : 0));
		hist_record_censored(&t->lat2, lost_wait(t->c->o, now > e->sent ? now - e->sent : 0));
	}
}

int tcp_rr_connect_flow(struct client_ctx *c, int *fd, int i)
{
	const struct sockaddr *to = (const struct sockaddr *)&c->server;

	*fd = socket(c->server.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0 || tcp_sockopts(*fd, c->o) || knobs_client(*fd, c->o, NULL, NULL) ||
	    tcp_timeouts(*fd, POLL_NS) || connect(*fd, to, c->server_len) < 0) {
		int ret = -errno;

		snprintf(c->rep->msg, sizeof(c->rep->msg), "connect flow %d: %s", i + 1,
			 strerror(-ret));
		return ret;
	}
	knobs_read(*fd, &c->rep->sock);
	return 0;
}


static void *receiver(struct client_thread *t)
{
	struct tro_flow *f = t->priv;
	size_t n = (size_t)t->c->o->response;
	uint64_t seq = 0;
	int r = 0, ph = thread_wait_phase(t, PH_WARMUP);
	bool saw_drain = false;

	while (!r && (ph = thread_phase(t)) != PH_STOP) {
		saw_drain |= ph == PH_DRAIN;
		if (atomic_load(&f->drained)) {
			thread_wait_phase(t, PH_STOP);
			break;
		}
		f->rio.rx_calls = f->rio.syscalls = f->rio.rx_bytes = 0;
		r = tcp_recv_n(&f->rio, f->fd, f->buf, n);
		if (r)
			break;
		uint64_t now = now_ns();
		bool measuring = thread_phase(t) == PH_MEASURE;

		if (seq >= atomic_load_explicit(&f->sent, memory_order_acquire)) {
			count_err(&t->cnt, ERR_RECV, measuring); /* an answer to nothing we sent */
			break;
		}
		struct tro_times e = f->ring[seq % TCP_OL_INFLIGHT];

		atomic_store(&f->done, ++seq);
		if (e.counted) {
			ol_record(t->lat, &t->lat2, e.due, e.sent, now);
			t->cnt.transactions++;
		}
		if (measuring)
			tcp_io_count(&t->cnt, &f->rio);
		flow_drain_check(t->c, f);
	}
	if (TCP_FAILED(r))
		count_err(&t->cnt, f->rio.why, thread_phase(t) == PH_MEASURE);
	/* A receive blocked across the drain saw no PH_DRAIN itself; a connection the server
	 * closed at the run's end (Ctrl-C, no drain) lost nothing. */
	saw_drain |= atomic_load(&t->c->sh->drain_began);
	if ((TCP_FAILED(r) && (saw_drain || thread_phase(t) < PH_STOP)) || saw_drain)
		flow_count_lost(t, f, seq);
	if (!atomic_exchange(&f->drained, true))
		drain_done(t->c);
	tcp_info_sample(f->fd, &t->cnt, NULL, NULL);
	return NULL;
}

static void nap_until(uint64_t due, uint64_t now)
{
	uint64_t dt = due - now < NAP_MAX_NS ? due - now : NAP_MAX_NS;
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)dt};

	nanosleep(&ts, NULL);
}

/* Send the request due now on this connection, or drop it when the ring is full. */
static int send_one(struct client_thread *t, struct tro_flow *f, bool measuring, uint64_t now)
{
	uint64_t due = ol_gen_take(&f->gen), seq = atomic_load_explicit(&f->sent, memory_order_relaxed);

	if (seq - atomic_load_explicit(&f->done, memory_order_acquire) >= TCP_OL_INFLIGHT) {
		t->cnt.gen_dropped += measuring;
		return 0;
	}
	f->ring[seq % TCP_OL_INFLIGHT] = (struct tro_times){.due = due, .sent = now,
							    .counted = measuring};
	atomic_store_explicit(&f->sent, seq + 1, memory_order_release);
	f->tio.tx_calls = f->tio.syscalls = f->tio.tx_bytes = 0;
	int r = tcp_send_n(&f->tio, f->fd, f->req, (size_t)t->c->o->request);

	if (measuring) {
		uint64_t held = now_ns() - now; /* a full send buffer: the server's doing */

		ol_lag_note(&f->gen.lag, due, now);
		tcp_io_count(&t->cnt, &f->tio);
		if (held > t->cnt.held_max_ns)
			t->cnt.held_max_ns = held;
	}
	return r;
}

static void *sender(struct client_thread *t)
{
	struct tro_flow *f = t->priv;
	int r = 0, ph = thread_wait_phase(t, PH_WARMUP);
	bool was;

	ol_sched_init(&f->gen.sched, f->rate, t->c->o->arrivals, f->seed, now_ns() + f->start_ns);
	while (!r && (ph = thread_phase(t)) < PH_DRAIN) {
		bool measuring = ph == PH_MEASURE;
		uint64_t now = now_ns();

		ol_gen_follow(&f->gen, measuring, now, &t->cnt);
		if (f->gen.sched.next_ns > now)
			nap_until(f->gen.sched.next_ns, now);
		else
			r = send_one(t, f, measuring, now);
	}
	was = f->gen.measuring;
	ol_gen_follow(&f->gen, false, now_ns(), &t->cnt);
	if (TCP_FAILED(r))
		count_err(&t->cnt, f->tio.why, was);
	atomic_store(&f->stopped, true);
	flow_drain_check(t->c, f);
	return NULL;
}

/* Threads 0..flows-1 take the answers, flows..2 flows-1 send. */
static void *tro_main(void *arg)
{
	struct client_thread *t = arg;

	return t->index < t->c->o->flows ? receiver(t) : sender(t);
}

static void flow_init(struct client_ctx *c, struct tro_flow *f, int i)
{
	const struct opts *o = c->o;
	size_t chunk = o->read_size ? (size_t)o->read_size : (size_t)o->response;
	long g = c->index * o->flows + i; /* this connection among all of the test's */

	f->fd = -1;
	f->req = xcalloc(1, (size_t)o->request);
	f->buf = xmalloc_io(chunk);
	f->ring = xcalloc(TCP_OL_INFLIGHT, sizeof(*f->ring));
	f->rate = (double)o->rate / (double)(o->clients * o->flows);
	f->start_ns = (uint64_t)(1e9 * (double)g / (double)o->rate); /* interleaved */
	f->seed = (uint64_t)g + 1;
	f->gen.lag.h = xmalloc(sizeof(*f->gen.lag.h));
	hist_reset(f->gen.lag.h);
	f->rio = (struct tcp_io){.rx = tcp_recv_of(o->recv), .tx = tcp_send_of(SEND_SEND),
				 .chunk = chunk, .quickack = o->quickack, .phase = &c->sh->phase,
				 .timeout_ns = UINT64_MAX / 2};
	f->tio = f->rio;
}

static void tro_flows_free(struct tro_flow *f, int n)
{
	for (int i = 0; i < n; i++) {
		if (f[i].fd >= 0)
			close(f[i].fd);
		free(f[i].req);
		free(f[i].buf);
		free(f[i].ring);
		free(f[i].gen.lag.h);
	}
	free(f);
}

/* Two threads a flow: t[i] receives its answers, t[n + i] sends on its schedule. */
int tcp_rr_open_client(struct client_ctx *c)
{
	int n = (int)c->o->flows, ret = 0;
	struct client_thread *t = xcalloc_lines((size_t)(2 * n), sizeof(*t));
	struct tro_flow *f = xcalloc_lines((size_t)n, sizeof(*f));

	for (int i = 0; i < n; i++) {
		flow_init(c, &f[i], i);
		t[i].priv = t[n + i].priv = &f[i];
		ret = ret ? ret : tcp_rr_connect_flow(c, &f[i].fd, i);
	}
	ret = client_go(c, ret, &(struct client_run){.t = t, .n = 2 * n, .drain = n, .fn = tro_main});
	tro_flows_free(f, n);
	free(t);
	return ret;
}

int tcp_rr_open_check(const struct opts *o, char *err, size_t errlen)
{
	const char *why = ol_check(o, "4096 in flight per connection", 1);

	if (!why && o->rate && (o->recv == RECV_EPOLL || o->recv == RECV_URING))
		why = "--recv epoll and uring are not applicable with --rate yet: each connection's "
		      "answers are taken by a thread of its own";
	if (why)
		snprintf(err, errlen, "%s", why);
	return why ? -EINVAL : 0;
}
