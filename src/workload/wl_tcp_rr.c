/* wl_tcp_rr.c: TCP request/response on persistent connections (netperf TCP_RR, neper tcp_rr).
 *
 * Each client process opens --flows connections; a flow keeps --window requests of --request
 * bytes in flight and the server answers each with --response bytes. A transaction's latency
 * runs from the send of its request to the last byte of its answer. Up to
 * FLOW_PLAN_THREADED_MAX flows a process (and connections on the server), a thread each, here;
 * beyond, a few epoll threads drive them all (tcp_rr_many.c, tcp_rr_many_srv.c).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/result.h"
#include "transport/tcp.h"
#include "base/util.h"
#include "base/nofile.h"
#include "workload/flow_plan.h"
#include "workload/openloop.h"
#include "workload/tcp_rr_many.h"
#include "workload/tcp_rr_open.h"
#include "workload/workload.h"

#define MAX_FLOWS 100000

static const struct opt_override rr_overrides[] = {
	{.field = "clients", .def = "1", .help = NULL},
	{.field = "window", .def = "1", .help = "requests in flight per flow"},
	{.field = "size", .def = "1", .help = "bytes in each request and each answer (-q and -r "
					    "set one of them)"},
	{.field = "request", .def = "1", .help = "bytes in each request"},
	{.field = "rate", .help = "open loop: requests per second over all connections, each sent "
				  "on its schedule whatever the answers do (0: closed loop, --window)"},
	{.field = "timeout", .def = "5000", .help = "a flow making no progress this long is an error (timeout)"},
	{.field = "flows", .min = 1, .max = MAX_FLOWS,
	 .help = "persistent connections per client (above 64, a few epoll threads drive them)"},
	{.field = "src_addrs", .help = "spread the client's connections over loopback source "
				       "addresses 127.0.0.1..N (0: as many as the flows need for "
				       "ephemeral ports, ip_local_port_range)"},
	{0},
};

/* Many flows: the calls the epoll threads can make, the source addresses a local run needs,
 * and the open-file limit (here, before anything starts, so a short one is a usage error;
 * a local run's server and clients inherit it). */
static int rr_many_check(struct opts *o, char *err, size_t errlen)
{
	bool many = o->flows > FLOW_PLAN_THREADED_MAX || o->clients * o->flows > FLOW_PLAN_THREADED_MAX;
	long need = o->server ? o->flows : o->clients * o->flows;
	char what[80];

	if (o->rate && o->flows > 1024) {
		snprintf(err, errlen, "--rate drives a thread pair per flow: at most 1024 flows a "
			 "client with --rate (more flows: leave --rate out, or use --clients)");
		return -EINVAL;
	}
	if (many && !o->rate && (o->recv == RECV_EPOLL || o->recv == RECV_URING)) {
		snprintf(err, errlen, "--recv %s: with more than %d flows, epoll threads drive the "
			 "flows with recv-like calls; use --recv recv, read, recvmsg, readv or waitall",
			 OPT_WORD(o, recv), FLOW_PLAN_THREADED_MAX);
		return -EINVAL;
	}
	if (!o->src_addrs)
		o->src_addrs = o->server || o->ipv6 ? 1
						    : flow_plan_src_addrs(o->clients * o->flows, flow_plan_local_ports());
	if (o->src_addrs > 1 && (o->server || o->ipv6)) {
		snprintf(err, errlen, "--src-addrs %ld: loopback IPv4 only (127.0.0.1..N); a remote "
			 "server's connections spread over its ports", o->src_addrs);
		return -EINVAL;
	}
	/* Each client process holds its flows; a local server all of them, over as many
	 * descriptor tables as the limit asks (tcp_rr_many_srv.c). */
	snprintf(what, sizeof(what), "--flows %ld", o->flows);
	if (nofile_ensure(o->flows, what, err, errlen)) {
		nofile_suggest_clients(o->flows, o->clients, "flows", err, errlen);
		return -EINVAL;
	}
	snprintf(what, sizeof(what), "--clients x --flows %ld", need);
	return need > o->flows && !nofile_tables(need, what, err, errlen) ? -EINVAL : 0;
}

static int rr_check(struct opts *o, char *err, size_t errlen)
{
	if (tcp_recv_check(o, err, errlen) || tcp_rr_open_check(o, err, errlen))
		return -EINVAL;
	/* Open loop pipelines requests on a connection, and Nagle's algorithm with delayed ACKs
	 * then holds each answer until the next request brings the ACK of the one before: a
	 * whole interval (p50 1.1 ms at 1,000/s against 44 us, here), the load generator's
	 * artefact, not the server's latency. So --rate sets TCP_NODELAY on both ends (the
	 * config says so), as wrk and mutilate do. */
	if (o->rate)
		o->nodelay = true;
	/* -m sets both sizes, as in the other workloads; -q or -r given beside it wins. (An agent
	 * gets every key set, so this happens once, on the controller.) */
	if (OPT_IS_SET(o, size) && !OPT_IS_SET(o, request))
		o->request = o->size;
	if (OPT_IS_SET(o, size) && !OPT_IS_SET(o, response))
		o->response = o->size;
	if (!OPT_IS_SET(o, size))
		o->size = o->request; /* the config's size: the request's */
	if (o->request < 1) {
		snprintf(err, errlen, "--request 0: tcp-rr needs requests of 1 byte or more");
		return -EINVAL;
	}
	if (o->clients * o->flows > MAX_FLOWS) {
		snprintf(err, errlen, "--clients x --flows is %ld: at most %d connections",
			 o->clients * o->flows, MAX_FLOWS);
		return -EINVAL;
	}
	return rr_many_check(o, err, errlen);
}

static void rr_describe(const struct opts *o, char *buf, size_t len)
{
	char per[48];
	size_t k;

	snprintf(per, sizeof(per), "%ld flow%s x ", o->flows, o->flows > 1 ? "s" : "");
	k = ol_describe_load(o, per, "in flight", buf, len);
	snprintf(buf + k, len - k, ", %ld-byte requests, %ld-byte answers, client %s", o->request,
		 o->response, OPT_WORD(o, recv));
}

static int rr_kernel_pairs(const struct result *r, struct kernel_pair *out)
{
	(void)r;
	(void)out;
	return 0; /* connections open before the window: no Tcp counter moves with our count */
}

/* Client side: one thread per flow. */
struct rr_flow {
	CACHE_ALIGNED int fd; /* each thread's counters on lines of their own */
	char *req, *buf;
	uint64_t *sent; /* send times of the requests in flight, a ring */
	bool *counted;	/* ... and whether each was sent in the window */
	struct tcp_io io;
};

/* The requests of the window still in flight when the flow ends (its connection failed, or
 * the drain ran out): each lost, in the latencies at what it waited. */
static void rr_count_lost(struct client_thread *t, struct rr_flow *f, size_t w, size_t head,
			  size_t inflight)
{
	uint64_t now = now_ns();

	for (size_t k = 0; k < inflight; k++) {
		size_t i = (head + k) % w;

		if (!f->counted[i])
			continue;
		f->counted[i] = false;
		t->cnt.lost++;
		hist_record_censored(t->lat, lost_wait(t->c->o, now - f->sent[i]));
	}
}

/* Requests in flight whose answers are still to be timed (sent in the window). */
static size_t rr_unanswered(const struct rr_flow *f, size_t w, size_t head, size_t inflight)
{
	size_t left = 0;

	for (size_t k = 0; k < inflight; k++)
		left += f->counted[(head + k) % w];
	return left;
}

/* A transaction of the window: the calls and bytes of its receive and send (f->io's since
 * they were set to 0) into the thread's counts. */
static void rr_count_io(struct client_thread *t, const struct tcp_io *io)
{
	t->cnt.rx_bytes += io->rx_bytes;
	t->cnt.tx_bytes += io->tx_bytes;
	t->cnt.rx_packets += io->rx_calls;
	t->cnt.tx_packets += io->tx_calls;
	t->cnt.syscalls += io->syscalls;
}

static void *rr_thread_main(void *arg)
{
	struct client_thread *t = arg;
	struct rr_flow *f = t->priv;
	const struct opts *o = t->c->o;
	size_t w = (size_t)o->window, head = 0, inflight = 0;
	uint64_t now = 0;
	int r = 0, ph = thread_wait_phase(t, PH_WARMUP);
	bool drained = false, saw_drain = false;

	/* The first request of each slot goes out unmeasured; then one per answer. A request
	 * sent in the window is timed however late its answer (the drain sends nothing new). */
	for (size_t i = 0; i < w && !r; i++, inflight++) {
		f->sent[i] = now_ns();
		f->counted[i] = false;
		r = tcp_send_n(&f->io, f->fd, f->req, (size_t)o->request);
	}
	while (!r && (ph = thread_phase(t)) != PH_STOP) {
		bool measuring = ph == PH_MEASURE;

		saw_drain |= ph == PH_DRAIN;
		if (ph == PH_DRAIN && !drained && !rr_unanswered(f, w, head, inflight)) {
			drained = true;
			drain_done(t->c);
		}
		if (drained) {
			thread_wait_phase(t, PH_STOP);
			break;
		}
		/* In the drain no request carries the ACK of the last answer: ACK at once, or the
		 * server's next answer waits for a delayed ACK (Nagle), 40 ms a drain. */
		if (ph == PH_DRAIN)
			setsockopt(f->fd, IPPROTO_TCP, TCP_QUICKACK, &(int){1}, sizeof(int));
		f->io.rx_calls = f->io.tx_calls = f->io.syscalls = f->io.rx_bytes = f->io.tx_bytes = 0;
		r = tcp_recv_n(&f->io, f->fd, f->buf, (size_t)o->response);
		if (r)
			break;
		now = now_ns();
		if (f->counted[head]) {
			hist_record(t->lat, now - f->sent[head]);
			t->cnt.transactions++;
		}
		inflight--;
		/* The phase as it is now, after a receive that may have waited across an edge: the
		 * next request is the window's only if the window is still open. */
		ph = thread_phase(t);
		if (ph >= PH_DRAIN) {
			saw_drain |= ph == PH_DRAIN;
			f->counted[head] = false;
			head = (head + 1) % w;
			continue;
		}
		f->sent[head] = now;
		f->counted[head] = ph == PH_MEASURE;
		head = (head + 1) % w;
		inflight++;
		r = tcp_send_n(&f->io, f->fd, f->req, (size_t)o->request);
		if (measuring)
			rr_count_io(t, &f->io);
	}
	if (TCP_FAILED(r))
		count_err(&t->cnt, f->io.why, thread_phase(t) == PH_MEASURE);
	/* A failed connection, or a drain cut short: what the window still had in flight (a
	 * receive blocked across the drain saw no PH_DRAIN itself). A connection the server
	 * closed at the run's end (Ctrl-C, no drain) lost nothing. */
	saw_drain |= atomic_load(&t->c->sh->drain_began);
	if ((TCP_FAILED(r) && (saw_drain || thread_phase(t) < PH_STOP)) || saw_drain)
		rr_count_lost(t, f, w, head, inflight);
	if (!drained)
		drain_done(t->c);
	tcp_info_sample(f->fd, &t->cnt, NULL, NULL);
	t->cnt.idle_flows += t->saw_measure && !t->cnt.transactions; /* a thread is a flow */
	return NULL;
}

static void rr_flow_init(struct client_ctx *c, struct rr_flow *f)
{
	const struct opts *o = c->o;
	size_t chunk = o->read_size ? (size_t)o->read_size : (size_t)o->response;

	size_t w = (size_t)o->window;
	/* One block a flow: the send times first (malloc's alignment), then the marks, the
	 * request and the receive buffer. */
	char *mem = xcalloc(1, w * (sizeof(*f->sent) + sizeof(*f->counted)) + (size_t)o->request +
				       chunk);

	f->fd = -1;
	f->sent = (uint64_t *)(void *)mem;
	f->counted = (bool *)(f->sent + w);
	f->req = (char *)(f->counted + w);
	f->buf = f->req + o->request;
	f->io = (struct tcp_io){.rx = tcp_recv_of(o->recv), .tx = tcp_send_of(SEND_SEND),
				.chunk = chunk, .quickack = o->quickack, .phase = &c->sh->phase,
				.timeout_ns = (uint64_t)o->timeout * 1000000};
}

static void rr_flows_free(struct rr_flow *f, int n)
{
	for (int i = 0; i < n; i++) {
		if (f[i].fd >= 0)
			close(f[i].fd);
		free(f[i].sent); /* the flow's block */
	}
	free(f);
}

static int rr_client(struct client_ctx *c)
{
	if (c->o->rate) /* open loop: tcp_rr_open.c */
		return tcp_rr_open_client(c);
	if (c->o->flows > FLOW_PLAN_THREADED_MAX)
		return tcp_rr_many_client(c);

	int n = (int)c->o->flows, ret = 0;
	struct client_thread *t = xcalloc_lines((size_t)n, sizeof(*t));
	struct rr_flow *f = xcalloc_lines((size_t)n, sizeof(*f));

	for (int i = 0; i < n; i++) {
		rr_flow_init(c, &f[i]);
		t[i].priv = &f[i];
		ret = ret ? ret : tcp_rr_connect_flow(c, &f[i].fd, i);
	}
	ret = client_go(c, ret, &(struct client_run){.t = t, .n = n, .drain = n, .fn = rr_thread_main});
	rr_flows_free(f, n);
	free(t);
	return ret;
}

/* Server side: an accept thread, then a thread per connection answering its requests. */
struct rr_conn {
	CACHE_ALIGNED struct server_ctx *s; /* each thread's counters on lines of their own */
	int fd, index;
	pthread_t tid;
	struct side_counters cnt;
};

struct rr_server {
	int lfd; /* first: tcp_server_close */
	int n, max; /* connections taken; the test's flows, all it may take */
	struct side_counters strangers;
	struct rr_conn conn[];
};

static void *rr_serve_conn(void *arg)
{
	struct rr_conn *k = arg;
	const struct opts *o = k->s->o;
	size_t cap = (size_t)(o->request > o->response ? o->request : o->response);
	char *buf = srv_alloc(k->s, cap);
	struct tcp_io io = {.rx = tcp_recv_of(RECV_RECV), .tx = tcp_send_of(SEND_SEND),
			    .chunk = (size_t)o->request, .phase = &k->s->phase, .timeout_ns = UINT64_MAX / 2};
	int r = buf ? 0 : -ECANCELED;

	if (!buf) /* past --max-memory: this connection gets nothing */
		k->cnt.refused++;
	tcp_pin_server(o, k->index, k->fd);
	nofile_own_table(&k->fd, 1); /* its calls take no file reference (nofile.h) */
	while (!r) {
		io.rx_calls = io.tx_calls = io.syscalls = io.rx_bytes = io.tx_bytes = 0;
		r = tcp_recv_n(&io, k->fd, buf, (size_t)o->request);
		if (!r)
			r = tcp_send_n(&io, k->fd, buf, (size_t)o->response);
		if (!r && atomic_load_explicit(&k->s->phase, memory_order_relaxed) == PH_MEASURE) {
			k->cnt.transactions++;
			k->cnt.rx_bytes += io.rx_bytes;
			k->cnt.tx_bytes += io.tx_bytes;
			k->cnt.rx_packets += io.rx_calls;
			k->cnt.tx_packets += io.tx_calls;
			k->cnt.syscalls += io.syscalls;
		}
	}
	/* The client closing its flows at the end is not an error. */
	if (TCP_FAILED(r) && io.why != ERR_SHORT && io.why != ERR_RESET)
		count_err(&k->cnt, io.why, atomic_load(&k->s->phase) == PH_MEASURE);
	tcp_info_sample(k->fd, &k->cnt, NULL, NULL);
	srv_free(k->s, buf, cap);
	return NULL;
}

static bool server_many(const struct opts *o)
{
	return o->clients * o->flows > FLOW_PLAN_THREADED_MAX && !o->rate;
}

static int rr_server_open(struct server_ctx *s, char *err, size_t errlen)
{
	if (server_many(s->o))
		return tcp_rr_many_server_open(s, err, errlen);
	long max = s->o->clients * s->o->flows;
	struct rr_server *x = xcalloc_lines(1, sizeof(*x) + (size_t)max * sizeof(x->conn[0]));

	x->max = (int)max;
	s->priv = x;
	x->lfd = tcp_listen(s, (int)(max + 128), err, errlen);
	return x->lfd < 0 ? x->lfd : 0;
}

static void rr_server_loop(struct server_ctx *s)
{
	struct rr_server *x = s->priv;

	if (server_many(s->o)) {
		tcp_rr_many_server_loop(s);
		return;
	}
	while (atomic_load_explicit(&s->phase, memory_order_acquire) != PH_STOP) {
		int fd = tcp_accept(s, x->lfd, &x->strangers, x->n < x->max);

		if (fd < 0)
			continue; /* a 50 ms timeout, or a connection closed: look at the phase again */
		struct rr_conn *k = &x->conn[x->n]; /* there is room: tcp_accept said so */

		*k = (struct rr_conn){.s = s, .fd = fd, .index = x->n};
		/* The listener's timeouts are inherited by the accepted socket. */
		if (tcp_sockopts(fd, s->o) ||
		    pthread_create(&k->tid, NULL, rr_serve_conn, k)) {
			close(fd);
			continue;
		}
		x->n++;
	}
	for (int i = 0; i < x->n; i++) {
		pthread_join(x->conn[i].tid, NULL);
		close(x->conn[i].fd);
		side_counters_add(&s->c, &x->conn[i].cnt);
	}
	side_counters_add(&s->c, &x->strangers);
}

/* A buffer of the larger message per connection; with many, their state and a buffer per
 * thread. */
static double rr_server_bytes(const struct opts *o)
{
	if (server_many(o))
		return tcp_rr_many_server_bytes(o);
	return (double)(o->clients * o->flows) *
	       (double)(o->request > o->response ? o->request : o->response);
}

static const struct strategy rr_strategies[] = {
	{"TCP_NODELAY", "nodelay", "--nodelay", false},
	{"recv with MSG_WAITALL", "recv", "--recv waitall", false},
	{"read() instead of recv()", "recv", "--recv read", false},
	{"epoll_wait, then recv", "recv", "--recv epoll", false},
	{"io_uring recv", "recv", "--recv uring", false},
	{"TCP_QUICKACK", "quickack", "--quickack", false},
	{"1 MB socket buffers", "bufs", "--rcvbuf 1048576 --sndbuf 1048576", false},
	STRATEGIES_EVERY_SERVER,
	{0},
};

const struct workload wl_tcp_rr = {
	.name = "tcp-rr",
	.summary = "TCP request/response on persistent connections (netperf TCP_RR).",
	.opts = opts_tcp_rr,
	.overrides = rr_overrides,
	.unit = "transaction",
	.latency_label = "round trip",
	.snmp_proto = "Tcp",
	.shows = SHOWS_FLOW_MEMORY | SHOWS_IDLE_FLOWS,
	.tcp_info_every = 1,
	.check = rr_check,
	.describe = rr_describe,
	.headline = ol_headline,
	.kernel_pairs = rr_kernel_pairs,
	.server_open = rr_server_open,
	.server_bytes = rr_server_bytes,
	.server_loop = rr_server_loop,
	.server_close = tcp_server_close,
	.client = rr_client,
	.drains = true,
	.strategies = rr_strategies,
};
