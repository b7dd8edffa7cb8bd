/* wl_tcp_stream.c: one-way bulk transfer (netperf TCP_STREAM, iperf3, neper tcp_stream).
 *
 * Each client process opens --flows connections, one thread each; the client sends (default),
 * the server sends (--reverse), or both (--bidir: a connection each way per flow). The first
 * byte on a connection says which way it goes. A sender writes --size bytes per call with the
 * call of --send (send, write, sendmsg, sendfile or splice from a memfd, io_uring), with
 * --zerocopy MSG_ZEROCOPY (send, sendmsg) or IORING_OP_SEND_ZC (uring); a
 * receiver reads with --recv. The rate is in megabytes (10^6 bytes) received per second, so
 * CPU microseconds per unit is netperf's service demand per MB. Each socket's TCP_INFO is
 * read at the window's edges for its retransmits and segments, which the report sets beside
 * the kernel's Tcp counters.
 */
#include <math.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/result.h"
#include "transport/tcp.h"
#include "transport/knobs.h"
#include "base/nofile.h"
#include "base/util.h"
#include "workload/workload.h"

#include "workload/tcp_stream.h"

#define POLL_NS (50 * 1000000ULL)
#define MAX_CONNS 2048

static const struct opt_override tcp_stream_overrides[] = {
	{.field = "clients", .def = "1", .help = NULL},
	{.field = "size", .def = "131072", .help = "bytes per send call (iperf3's default)",
	 .min = 1, .max = 64 << 20},
	{.field = "timeout", .def = "5000", .help = "a flow making no progress this long is an error (timeout)"},
	{.field = "read_size", .help = "bytes asked of each receive call (0: --size)"},
	{.field = "wait", .help = "when a receive finds nothing: auto (try again for 50 us, then "
	 "sleep, where each sender and receiver has a CPU and --recv is recv or recvmsg; else "
	 "block), block (sleep in the call), busy (never sleep: non-blocking tries); poll and "
	 "epoll: use --recv epoll"},
	{0},
};

static bool tcp_stream_count_based(const struct opts *o)
{
	return o->bytes > 0;
}

/* A descriptor per connection, checked (and the soft limit raised) before anything starts,
 * as tcp-rr does: a short limit would otherwise cost flows their connections mid-run and leave
 * a report of zero bytes. A local run's server holds every connection, a client its flows (and
 * with --send splice a pipe, two descriptors, per flow). */
static int stream_nofile_check(const struct opts *o, char *err, size_t errlen)
{
	long per_flow = o->bidir ? 2 : 1, client = o->flows * per_flow;
	long server = o->server ? 0 : o->clients * o->flows * per_flow;
	char what[192];

	if (o->send == SEND_SPLICE)
		client *= 3;
	long need = client > server ? client : server;

	if (server >= client)
		snprintf(what, sizeof(what), "--clients x --flows%s %ld",
			 o->bidir ? " x 2 (--bidir)" : "", need);
	else
		snprintf(what, sizeof(what), "--flows %ld%s%s (%ld descriptors)", o->flows,
			 o->bidir ? " x 2 (--bidir)" : "",
			 o->send == SEND_SPLICE ? " x 3 (--send splice: a socket and a pipe a flow)" : "",
			 need);
	return nofile_ensure(need, what, err, errlen) ? -EINVAL : 0;
}

static int tcp_stream_check(struct opts *o, char *err, size_t errlen)
{
	const struct tcp_send_ops *tx = tcp_send_of(o->send);

	if (tcp_recv_check(o, err, errlen))
		return -EINVAL;
	if (!tx) {
		snprintf(err, errlen, "--send %s is not a known call", OPT_WORD(o, send));
		return -EINVAL;
	}
	if (o->zerocopy && !tx->zerocopy) {
		snprintf(err, errlen, "--zerocopy is not applicable with --send %s: it is MSG_ZEROCOPY "
			 "with send and sendmsg, IORING_OP_SEND_ZC with uring (sendfile and splice do "
			 "not copy anyway)", OPT_WORD(o, send));
		return -EINVAL;
	}
	if (tx->unavailable) {
		snprintf(err, errlen, "--send %s is not applicable: %s", tx->name, tx->unavailable);
		return -EINVAL;
	}
	if (o->wait == WAIT_POLL || o->wait == WAIT_EPOLL) {
		snprintf(err, errlen, "--wait %s is not a tcp-stream wait: a receiver sleeps in its "
			 "call (block), tries again first (auto) or never sleeps (busy); to wait in "
			 "epoll_wait, use --recv epoll", OPT_WORD(o, wait));
		return -EINVAL;
	}
	if (o->wait == WAIT_BUSY && o->recv != RECV_RECV && o->recv != RECV_RECVMSG) {
		snprintf(err, errlen, "--wait busy takes --recv recv or recvmsg (a non-blocking "
			 "try), not --recv %s", OPT_WORD(o, recv));
		return -EINVAL;
	}
	if (o->bytes && (o->reverse || o->bidir || o->zerocopy)) {
		snprintf(err, errlen, "-n counts the bytes the clients send: not with --%s (the server "
			 "sends)", o->reverse ? "reverse" : o->bidir ? "bidir" : "zerocopy");
		if (o->zerocopy)
			snprintf(err, errlen, "-n with --zerocopy is not supported: use --duration");
		return -EINVAL;
	}
	/* -n: the coordinator waits for the clients' shares that long at most, each phase. */
	if (o->bytes)
		o->time_limit = OPT_IS_SET(o, duration) ? o->duration : 86400;
	if (o->reverse && o->bidir) {
		snprintf(err, errlen, "--reverse and --bidir together: choose one (--bidir already "
			 "sends both ways)");
		return -EINVAL;
	}
	if (o->clients * o->flows * (o->bidir ? 2 : 1) > MAX_CONNS) {
		snprintf(err, errlen, "--clients x --flows%s is %ld: at most %d connections",
			 o->bidir ? " x 2 (--bidir)" : "", o->clients * o->flows * (o->bidir ? 2 : 1),
			 MAX_CONNS);
		return -EINVAL;
	}
	return stream_nofile_check(o, err, errlen);
}

static void tcp_stream_describe(const struct opts *o, char *buf, size_t len)
{
	snprintf(buf, len, "%ld client%s x %ld flow%s, %s, %ld-byte %s%s calls, receiver %s",
		 o->clients, o->clients > 1 ? "s" : "", o->flows, o->flows > 1 ? "s" : "",
		 o->bidir ? "both ways" : o->reverse ? "server to client" : "client to server",
		 o->size, OPT_WORD(o, send),
		 !o->zerocopy ? "" : o->send == SEND_URING ? " (SEND_ZC)" : " (MSG_ZEROCOPY)",
		 OPT_WORD(o, recv));
	if (strlen(buf) < len && stream_spin_by_cpus(o) && !stream_receivers_here(o))
		snprintf(buf + strlen(buf), len - strlen(buf),
			 " (its host decides whether it tries again before it sleeps)");
	else if (strlen(buf) < len && stream_spin_ns(o))
		snprintf(buf + strlen(buf), len - strlen(buf), o->wait == WAIT_BUSY
			 ? ", never sleeping" : ", trying %d us before it sleeps",
			 STREAM_SPIN_NS / 1000);
}

/* --wait: how a receiver waits, and why. */
static int tcp_stream_choices(const struct opts *o, const struct result *r, struct choice *out)
{
	uint64_t rule = stream_spin_ns(o);
	uint64_t here = rule < SIDE_NEVER_SLEEPS ? rule : SIDE_NEVER_SLEEPS;
	int64_t seen = r ? result_recv_spin_ns(r) : -1;
	uint64_t spin = seen >= 0 ? (uint64_t)seen : here;

	out[0] = (struct choice){"wait_receiver", spin == SIDE_NEVER_SLEEPS ? "busy"
						  : spin ? "block, retrying 50 us first" : "block"};
	out[1] = (struct choice){"wait_receiver_reason",
				 spin != here		? RECV_SPIN_ELSEWHERE
				 : seen < 0 && stream_spin_by_cpus(o) && !stream_receivers_here(o)
					? RECV_SPIN_UNTOLD
					: stream_wait_reason(o)};
	return 2;
}

/* The bytes the server received; when it sent no result (its agent died), what the clients
 * sent it, the most it can have received: the run says so and is partial. */
static uint64_t server_rx(const struct result *r)
{
	return r->server.present ? r->server.c.rx_bytes : r->client.c.tx_bytes;
}

/* Megabytes received: the receivers' counts. */
static double tcp_stream_units(const struct result *r)
{
	return (double)(r->client.c.rx_bytes + server_rx(r)) / 1e6;
}

/* During the window only the clients' bytes are seen: what they sent and received. */
static double tcp_stream_live_units(const struct opts *o, uint64_t transactions, uint64_t bytes)
{
	(void)o, (void)transactions;
	return (double)bytes / 1e6;
}

/* Segments and retransmits from every socket's TCP_INFO; payload bytes received against the
 * IP layer's bytes in (which add 52 bytes of IP and TCP headers per packet, ACKs included:
 * a fraction of a percent with loopback's 64 KB packets). */
static int tcp_stream_kernel_pairs(const struct result *r, struct kernel_pair *out)
{
	uint64_t segs = r->client.c.segs_out, re = r->client.c.retrans;
	uint64_t in = r->client.c.rx_bytes;

	if (r->server_local && r->server.present) {
		segs += r->server.c.segs_out;
		re += r->server.c.retrans;
		in += r->server.c.rx_bytes;
	}
	out[0] = (struct kernel_pair){"OutSegs", segs};
	out[1] = (struct kernel_pair){"RetransSegs", re};
	out[2] = (struct kernel_pair){"InOctets", in};
	return 3;
}

static double gbit(uint64_t bytes, double s)
{
	return s > 0 ? (double)bytes * 8 / s / 1e9 : 0;
}

static void tcp_stream_headline(const struct result *r, struct headline *h)
{
	double d = r->duration_s, mb = tcp_stream_units(r);
	double up = gbit(server_rx(r), d), down = gbit(r->client.c.rx_bytes, d);
	const struct side_result *c = &r->client, *s = &r->server;
	double sd_c = result_cpu_us_per(c->user_s, c->sys_s, mb);
	double sd_s = result_cpu_us_per(s->user_s, s->sys_s, mb);
	uint64_t zc_sends = r->cfg->zerocopy ? c->c.tx_packets + s->c.tx_packets : 0;
	uint64_t zc_done = c->c.zc_done + s->c.zc_done, zc_copied = c->c.zc_copied + s->c.zc_copied;
	uint64_t zc_unknown = c->c.zc_unknown + s->c.zc_unknown;
	double retrans = (double)(c->c.retrans + s->c.retrans);
	char v[32], w[32];

	headline_row(h, "throughput (Gbit/s)", up + down, 3, "(%s MB/s%s)",
		     fmt_sep(v, sizeof(v), d > 0 ? mb / d : 0, 1),
		     s->present ? "" : "; to the server: what the clients sent, it sent no result");
	if (r->cfg->bidir)
		headline_row(h, "client to server (Gbit/s)", up, 3, "server to client %.3f", down);
	headline_row(h, "retransmits (TCP_INFO)", retrans, 0, NULL);
	if (r->cfg->zerocopy && !zc_unknown)
		headline_row(h, "zerocopy completions", (double)zc_done, 0,
			     "of %s sends; the kernel copied %s of them",
			     fmt_sep(v, sizeof(v), (double)zc_sends, 0),
			     fmt_sep(w, sizeof(w), (double)zc_copied, 0));
	else if (r->cfg->zerocopy)
		headline_row(h, "zerocopy completions", (double)zc_done, 0,
			     "of %s sends; copied: not told for %s (the kernel reports it from 6.2)",
			     fmt_sep(v, sizeof(v), (double)zc_sends, 0),
			     fmt_sep(w, sizeof(w), (double)zc_unknown, 0));
	headline_key(h, "gbit_per_s_by_direction.client_to_server", up, 4);
	headline_key(h, "gbit_per_s_by_direction.server_to_client", down, 4);
	headline_key(h, "service_demand_us_per_mb.client", sd_c, 3);
	headline_key(h, "service_demand_us_per_mb.server", sd_s, 3);
	headline_key(h, "gbit_per_s", up + down, 4);
	headline_key(h, "retransmits", retrans, -1);
	if (r->cfg->zerocopy) {
		headline_key(h, "zerocopy.sends", (double)zc_sends, -1);
		headline_key(h, "zerocopy.completions", (double)zc_done, -1);
		headline_key(h, "zerocopy.copied", zc_unknown ? NAN : (double)zc_copied, -1);
	}
}

/* ---- client: a thread per connection ---- */

static void *client_conn_main(void *arg)
{
	struct client_thread *t = arg;
	struct stream_conn *k = t->priv;

	/* The client process's CPU marks follow the phase through thread_phase (follow). */
	k->t = t;
	thread_wait_phase(t, PH_WARMUP);
	if (k->sender && k->o->bytes)
		run_sender_bytes(k, t);
	else if (k->sender)
		run_sender(k);
	else
		run_receiver(k);
	t->cnt = k->cnt;
	return NULL;
}

static int client_connect(struct client_ctx *c, struct stream_conn *k)
{
	k->fd = socket(c->server.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (k->fd < 0 || tcp_sockopts(k->fd, c->o) || knobs_client(k->fd, c->o, NULL, NULL) ||
	    tcp_timeouts(k->fd, POLL_NS) ||
	    connect(k->fd, (struct sockaddr *)&c->server, c->server_len) < 0 ||
	    send(k->fd, &k->dir, 1, MSG_NOSIGNAL) != 1)
		return -errno;
	knobs_read(k->fd, &c->rep->sock);
	return 0;
}

static int tcp_stream_client(struct client_ctx *c)
{
	const struct opts *o = c->o;
	int n = (int)(o->flows * (o->bidir ? 2 : 1)), ret = 0;
	struct client_thread *t = xcalloc_lines((size_t)n, sizeof(*t));
	struct stream_conn *k = xcalloc_lines((size_t)n, sizeof(*k));

	for (int i = 0; i < n; i++) {
		k[i].fd = -1;
		k[i].dir = o->bidir ? (i % 2 ? DIR_DOWN : DIR_UP) : o->reverse ? DIR_DOWN : DIR_UP;
		k[i].sender = k[i].dir == DIR_UP;
		t[i].priv = &k[i];
		if (ret)
			continue;
		if ((ret = client_connect(c, &k[i])) || (ret = conn_setup(&k[i], o, &c->sh->phase, NULL)))
			snprintf(c->rep->msg, sizeof(c->rep->msg), "flow %d: %s", i + 1, strerror(-ret));
	}
	ret = client_go(c, ret, &(struct client_run){.t = t, .n = n, .units = o->bytes,
						  .fn = client_conn_main});
	for (int i = 0; i < n; i++)
		conn_free(&k[i]);
	free(k);
	free(t);
	return ret;
}

/* ---- server: an accept thread, then a thread per connection ---- */

int stream_dir_of(const uint8_t *buf, size_t n)
{
	return n == 1 && (buf[0] == DIR_UP || buf[0] == DIR_DOWN) ? buf[0] : -1;
}

struct srv_conn {
	struct stream_conn k; /* first: on a line of its own */
	pthread_t tid;
	int index;
};

struct stream_server {
	int lfd; /* first: tcp_server_close */
	int n, max; /* connections taken; the test's, all it may take */
	struct side_counters strangers;
	struct srv_conn conn[];
};

static void *server_conn_main(void *arg)
{
	struct srv_conn *sc = arg;
	struct stream_conn *k = &sc->k;

	tcp_pin_server(k->o, sc->index, k->fd);
	if (k->sender)
		run_sender(k);
	else
		run_receiver(k);
	return NULL;
}

static int tcp_stream_server_open(struct server_ctx *s, char *err, size_t errlen)
{
	long max = s->o->clients * s->o->flows * (s->o->bidir ? 2 : 1);
	struct stream_server *x = xcalloc_lines(1, sizeof(*x) + (size_t)max * sizeof(x->conn[0]));
	int secs = 1;

	x->max = (int)max;
	s->priv = x;
	x->lfd = tcp_listen(s, (int)(max + 128), err, errlen);
	/* A connection reaches accept() only once its direction byte is in, so taking it never
	 * waits on a peer that sends nothing (such a one comes up later, empty, and is closed). */
	if (x->lfd >= 0)
		setsockopt(x->lfd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &secs, sizeof(secs));
	return x->lfd < 0 ? x->lfd : 0;
}

static void tcp_stream_server_loop(struct server_ctx *s)
{
	struct stream_server *x = s->priv;

	while (atomic_load_explicit(&s->phase, memory_order_acquire) != PH_STOP) {
		int fd = tcp_accept(s, x->lfd, &x->strangers, x->n < x->max);
		char dir = 0;

		if (fd < 0)
			continue; /* a 50 ms timeout, or a connection closed: look at the phase again */
		struct srv_conn *sc = &x->conn[x->n]; /* there is room: tcp_accept said so */

		*sc = (struct srv_conn){.k = {.fd = fd}, .index = x->n};
		if (recv(fd, &dir, 1, MSG_DONTWAIT) != 1 || stream_dir_of((uint8_t *)&dir, 1) < 0) {
			close(fd);
			x->strangers.refused++;
			continue;
		}
		sc->k.dir = dir;
		sc->k.sender = dir == DIR_DOWN;
		int ret = tcp_sockopts(fd, s->o);

		if (!ret)
			ret = conn_setup(&sc->k, s->o, &s->phase, s);
		if (ret || pthread_create(&sc->tid, NULL, server_conn_main, sc)) {
			x->strangers.refused += ret == -ENOMEM;
			conn_free(&sc->k);
			continue;
		}
		x->n++;
	}
	for (int i = 0; i < x->n; i++) {
		pthread_join(x->conn[i].tid, NULL);
		side_counters_add(&s->c, &x->conn[i].k.cnt);
		conn_free(&x->conn[i].k);
	}
	side_counters_add(&s->c, &x->strangers);
}

/* Each connection's buffer (the larger of --size and --read-size), and the sender's file. */
static double tcp_stream_server_bytes(const struct opts *o)
{
	double conns = (double)(o->clients * o->flows * (o->bidir ? 2 : 1));
	double buf = (double)(o->size > o->read_size ? o->size : o->read_size);
	bool file = tcp_send_of(o->send)->file;

	return conns * (buf + (file ? (double)o->size : 0));
}

static const struct strategy tcp_stream_strategies[] = {
	{"write() instead of send()", "send", "--send write", false},
	{"sendfile from a memfd", "send", "--send sendfile", false},
	{"splice through a pipe", "send", "--send splice", false},
	{"MSG_ZEROCOPY", "send", "--zerocopy", false},
	{"io_uring SEND_ZC", "send", "--send uring --zerocopy", false},
	{"4 MB socket buffers", "bufs", "--rcvbuf 4194304 --sndbuf 4194304", false},
	{"256 KB receive buffer", "bufs", "--rcvbuf 262144", false},
	{"1 MB reads", "read", "--read-size 1048576", false},
	{"64 KB writes", "size", "--size 65536", false},
	{"1 MB writes", "size", "--size 1048576", false},
	{"SO_RCVLOWAT 64 KB", "lowat", "--rcvlowat 65536", false},
	{"recv with MSG_WAITALL", "recv", "--recv waitall", false},
	{"epoll_wait, then recv", "recv", "--recv epoll", false},
	{"io_uring recv and send", "recv", "--recv uring --send uring", false},
	{"TCP_NODELAY", "nodelay", "--nodelay", false},
	{"block in recv", "wait", "--wait block", false},
	STRATEGIES_EVERY_SERVER,
	{0},
};

const struct workload wl_tcp_stream = {
	.name = "tcp-stream",
	.summary = "TCP bulk transfer, one way or both (netperf TCP_STREAM, iperf3).",
	.opts = opts_tcp_stream,
	.overrides = tcp_stream_overrides,
	.unit = "megabyte",
	.latency_label = "none",
	.snmp_proto = "Tcp",
	.shows = SHOWS_MEGABYTES | SHOWS_TCP_INFO_EDGES,
	.tcp_info_every = 1,
	.check = tcp_stream_check,
	.count_based = tcp_stream_count_based,
	.units = tcp_stream_units,
	.live_units = tcp_stream_live_units,
	.headline = tcp_stream_headline,
	.describe = tcp_stream_describe,
	.choices = tcp_stream_choices,
	.kernel_pairs = tcp_stream_kernel_pairs,
	.server_open = tcp_stream_server_open,
	.server_bytes = tcp_stream_server_bytes,
	.server_loop = tcp_stream_server_loop,
	.server_close = tcp_server_close,
	.client = tcp_stream_client,
	.strategies = tcp_stream_strategies,
};
