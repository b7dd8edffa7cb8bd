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
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/result.h"
#include "transport/tcp.h"
#include "base/util.h"
#include "workload/workload.h"

#define POLL_NS (50 * 1000000ULL)
#define MAX_CONNS 2048
#define ZC_DRAIN_NS (500 * 1000000ULL) /* at the end, wait this long for the last completions */
#define DIR_UP 'U'	/* client to server */
#define DIR_DOWN 'D'	/* server to client */

static const struct opt_override stream_overrides[] = {
	{.field = "clients", .def = "1", .help = NULL},
	{.field = "size", .def = "131072", .help = "bytes per send call (iperf3's default)",
	 .min = 1, .max = 64 << 20},
	{.field = "timeout", .def = "5000", .help = "a flow making no progress this long is an error (timeout)"},
	{0},
};

static int stream_check(struct opts *o, char *err, size_t errlen)
{
	const struct tcp_send_ops *tx = tcp_send_find(o->send);

	if (tcp_recv_check(o, err, errlen))
		return -EINVAL;
	if (!tx) {
		snprintf(err, errlen, "--send %s is not a known call", o->send);
		return -EINVAL;
	}
	if (o->zerocopy && !tx->zerocopy) {
		snprintf(err, errlen, "--zerocopy is not applicable with --send %s: it is MSG_ZEROCOPY "
			 "with send and sendmsg, IORING_OP_SEND_ZC with uring (sendfile and splice do "
			 "not copy anyway)", o->send);
		return -EINVAL;
	}
	if (tx->unavailable) {
		snprintf(err, errlen, "--send %s is not applicable: %s", o->send, tx->unavailable);
		return -EINVAL;
	}
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
	return 0;
}

static void stream_describe(const struct opts *o, char *buf, size_t len)
{
	snprintf(buf, len, "%ld client%s x %ld flow%s, %s, %ld-byte %s%s calls, receiver %s",
		 o->clients, o->clients > 1 ? "s" : "", o->flows, o->flows > 1 ? "s" : "",
		 o->bidir ? "both ways" : o->reverse ? "server to client" : "client to server",
		 o->size, o->send,
		 !o->zerocopy ? "" : !strcmp(o->send, "uring") ? " (SEND_ZC)" : " (MSG_ZEROCOPY)",
		 o->recv);
}

/* Megabytes received: the receivers' counts. */
static double stream_units(const struct result *r)
{
	return (double)(r->client.c.rx_bytes + r->server.c.rx_bytes) / 1e6;
}

/* Segments and retransmits from every socket's TCP_INFO; payload bytes received against the
 * IP layer's bytes in (which add 52 bytes of IP and TCP headers per packet, ACKs included:
 * a fraction of a percent with loopback's 64 KB packets). */
static int stream_kernel_pairs(const struct result *r, struct kernel_pair *out)
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

static void stream_headline(const struct result *r, FILE *f, cJSON *j)
{
	double d = r->duration_s, mb = stream_units(r);
	double up = gbit(r->server.c.rx_bytes, d), down = gbit(r->client.c.rx_bytes, d);
	const struct side_result *c = &r->client, *s = &r->server;
	double sd_c = result_cpu_us_per(c->user_s, c->sys_s, mb);
	double sd_s = result_cpu_us_per(s->user_s, s->sys_s, mb);
	uint64_t zc_sends = r->cfg->zerocopy ? c->c.tx_packets + s->c.tx_packets : 0;
	uint64_t zc_done = c->c.zc_done + s->c.zc_done, zc_copied = c->c.zc_copied + s->c.zc_copied;
	uint64_t zc_unknown = c->c.zc_unknown + s->c.zc_unknown;

	if (f) {
		fprintf(f, "  %-28s %14.3f  (%.1f MB/s)\n", "throughput (Gbit/s)", up + down,
			d > 0 ? mb / d : 0);
		if (r->cfg->bidir)
			fprintf(f, "  %-28s %14.3f  server to client %.3f\n", "client to server (Gbit/s)",
				up, down);
		fprintf(f, "  %-28s %14s  client %.3f  server %.3f\n", "service demand (CPU us/MB)",
			"", sd_c, sd_s);
		fprintf(f, "  %-28s %14llu\n", "retransmits (TCP_INFO)",
			(unsigned long long)(c->c.retrans + s->c.retrans));
		if (r->cfg->zerocopy && !zc_unknown)
			fprintf(f, "  %-28s %14llu  of %llu sends; the kernel copied %llu of them\n",
				"zerocopy completions", (unsigned long long)zc_done,
				(unsigned long long)zc_sends, (unsigned long long)zc_copied);
		else if (r->cfg->zerocopy)
			fprintf(f, "  %-28s %14llu  of %llu sends; copied: not told for %llu (the "
				"kernel reports it from 6.2)\n", "zerocopy completions",
				(unsigned long long)zc_done, (unsigned long long)zc_sends,
				(unsigned long long)zc_unknown);
	}
	if (j) {
		cJSON *dir = cJSON_AddObjectToObject(j, "gbit_per_s_by_direction");
		cJSON *sd = cJSON_AddObjectToObject(j, "service_demand_us_per_mb");

		cJSON_AddNumberToObject(j, "gbit_per_s", round((up + down) * 1e4) / 1e4);
		cJSON_AddNumberToObject(dir, "client_to_server", round(up * 1e4) / 1e4);
		cJSON_AddNumberToObject(dir, "server_to_client", round(down * 1e4) / 1e4);
		cJSON_AddNumberToObject(sd, "client", round(sd_c * 1e3) / 1e3);
		cJSON_AddNumberToObject(sd, "server", round(sd_s * 1e3) / 1e3);
		cJSON_AddNumberToObject(j, "retransmits", (double)(c->c.retrans + s->c.retrans));
		if (r->cfg->zerocopy) {
			cJSON *z = cJSON_AddObjectToObject(j, "zerocopy");

			cJSON_AddNumberToObject(z, "sends", (double)zc_sends);
			cJSON_AddNumberToObject(z, "completions", (double)zc_done);
			if (zc_unknown)
				cJSON_AddNullToObject(z, "copied");
			else
				cJSON_AddNumberToObject(z, "copied", (double)zc_copied);
		}
	}
}

/* ---- the two ends of a connection, the same on both sides ---- */

struct stream_conn {
	int fd;
	char dir;     /* DIR_UP or DIR_DOWN */
	bool sender;  /* this side sends on it */
	const struct opts *o;
	_Atomic int *phase;
	struct tcp_io io; /* the --send and --recv calls, and their count of system calls */
	char *buf;
	size_t buflen;
	struct server_ctx *srv; /* the server's: its buffers count against --max-memory */
	size_t size, chunk;
	/* Zero-copy: the numbers of the window's sends are [zc_lo, zc_hi) (io.zc_id counts
	 * them); zc_told: how many the kernel has reported done */
	uint64_t zc_lo, zc_hi, zc_told;
	bool zc_window_open, zc_window_closed;
	struct side_counters cnt;
	bool saw_measure;
	struct client_thread *t; /* client side: follows the phase for the CPU marks */
};

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

/* The kernel is done with sends [lo, hi): count those of the window. copied: 1, 0, -1 (not
 * told). */
static void zc_count(void *arg, uint64_t lo, uint64_t hi, int copied)
{
	struct stream_conn *k = arg;

	k->zc_told += hi - lo;
	if (!k->zc_window_open)
		return;
	uint64_t n = overlap(lo, hi, k->zc_lo, k->zc_window_closed ? k->zc_hi : UINT64_MAX);

	k->cnt.zc_done += n;
	k->cnt.zc_copied += copied > 0 ? n : 0;
	k->cnt.zc_unknown += copied < 0 ? n : 0;
}

/* The end of the window for this connection: the phase's end, or the connection's. */
static void window_close(struct stream_conn *k)
{
	if (!k->saw_measure || k->zc_window_closed)
		return;
	tcp_info_add(k->fd, &k->cnt, 1);
	k->zc_hi = k->io.zc_id;
	k->zc_window_closed = true;
	k->cnt.syscalls = k->io.syscalls;
}

/* The window's edges as this side sees them: TCP_INFO, and the zerocopy ids. */
static int follow(struct stream_conn *k)
{
	int ph = k->t ? thread_phase(k->t) : atomic_load_explicit(k->phase, memory_order_acquire);

	if (k->t)
		thread_progress(k->t, k->cnt.tx_bytes + k->cnt.rx_bytes);

	if (ph == PH_MEASURE && !k->saw_measure) {
		k->saw_measure = true;
		tcp_info_add(k->fd, &k->cnt, -1);
		k->zc_lo = k->io.zc_id;
		k->zc_window_open = true;
		k->cnt.syscalls = 0;
		k->io.syscalls = 0;
	}
	if (ph == PH_STOP)
		window_close(k);
	return ph;
}

/* After a call that moved nothing: wait on, or give up (a timeout error) once nothing has
 * moved for --timeout. *since is when the stall began (0: now). */
static bool patient(struct stream_conn *k, uint64_t *since, int ph)
{
	if (!*since)
		*since = now_ns();
	if (now_ns() - *since < (uint64_t)k->o->timeout * 1000000)
		return true;
	count_err(&k->cnt, ERR_TIMEOUT, ph == PH_MEASURE);
	return false;
}

static void run_sender(struct stream_conn *k)
{
	int ph;
	uint64_t since = 0;

	while ((ph = follow(k)) != PH_STOP) {
		ssize_t w = k->io.tx->send(&k->io, k->fd, k->buf, k->size);

		if (w > 0) {
			since = 0;
			if (ph == PH_MEASURE) {
				k->cnt.tx_bytes += (uint64_t)w;
				k->cnt.tx_packets++;
			}
			continue;
		}
		if (w == 0 || w == -EAGAIN || w == -EINTR) {
			if (patient(k, &since, ph))
				continue;
			break;
		}
		/* The peer went away: at the end of a test that is how it ends. */
		if (w != -EPIPE && w != -ECONNRESET)
			count_err(&k->cnt, ERR_SEND, ph == PH_MEASURE);
		break;
	}
	window_close(k);
	if (k->o->zerocopy) { /* the last completions, so every send of the window is told */
		uint64_t t0 = now_ns();

		while (k->zc_told < k->io.zc_id && now_ns() - t0 < ZC_DRAIN_NS)
			k->io.tx->settle(&k->io, k->fd, 10);
	}
	shutdown(k->fd, SHUT_WR);
}

static void run_receiver(struct stream_conn *k)
{
	int ph;
	uint64_t since = 0;

	while ((ph = follow(k)) != PH_STOP) {
		if (k->o->quickack) {
			int one = 1;

			k->io.syscalls++;
			setsockopt(k->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
		}
		ssize_t got = k->io.rx->recv(&k->io, k->fd, k->buf, k->chunk);

		if (got > 0) {
			since = 0;
			if (ph == PH_MEASURE) {
				k->cnt.rx_bytes += (uint64_t)got;
				k->cnt.rx_packets++;
			}
			continue;
		}
		if (got == 0)
			break; /* the sender is done */
		if (got == -EAGAIN || got == -EINTR) {
			if (patient(k, &since, ph))
				continue;
			break;
		}
		if (got != -ECONNRESET)
			count_err(&k->cnt, ERR_RECV, ph == PH_MEASURE);
		break;
	}
	window_close(k);
}

/* Buffers and the send call's files. 0 or -errno. */
static int conn_setup(struct stream_conn *k, const struct opts *o, _Atomic int *phase,
		      struct server_ctx *srv)
{
	k->o = o;
	k->phase = phase;
	k->size = (size_t)o->size;
	k->chunk = o->read_size ? (size_t)o->read_size : k->size;
	k->io = (struct tcp_io){.rx = tcp_recv_find(o->recv), .tx = tcp_send_find(o->send),
				.phase = phase, .memfd = -1, .pipe = {-1, -1},
				.zerocopy = k->sender && o->zerocopy, .zc_fn = zc_count, .zc_arg = k};
	k->buflen = (k->size > k->chunk ? k->size : k->chunk) +
		    (k->sender && k->io.tx->file ? k->size : 0);
	k->srv = srv;
	k->buf = srv ? srv_alloc(srv, k->buflen) : xmalloc(k->buflen);
	if (!k->buf) /* past --max-memory */
		return -ENOMEM;
	for (size_t i = 0; i < k->size; i++)
		k->buf[i] = (char)('a' + i % 26);
	return k->sender ? k->io.tx->open(&k->io, k->fd, k->buf, k->size) : 0;
}

static void conn_free(struct stream_conn *k)
{
	if (k->fd >= 0)
		close(k->fd);
	if (k->io.tx)
		tcp_io_close(&k->io);
	if (k->srv)
		srv_free(k->srv, k->buf, k->buflen);
	else
		free(k->buf);
	k->buf = NULL;
	k->fd = -1;
}

/* ---- client: a thread per connection ---- */

static void *client_conn_main(void *arg)
{
	struct client_thread *t = arg;
	struct stream_conn *k = t->priv;

	/* The client process's CPU marks follow the phase through thread_phase (follow). */
	k->t = t;
	thread_wait_phase(t, PH_WARMUP);
	if (k->sender)
		run_sender(k);
	else
		run_receiver(k);
	t->cnt = k->cnt;
	return NULL;
}

static int client_connect(struct client_ctx *c, struct stream_conn *k)
{
	k->fd = socket(c->server.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (k->fd < 0 || tcp_sockopts(k->fd, c->o) || tcp_timeouts(k->fd, POLL_NS) ||
	    connect(k->fd, (struct sockaddr *)&c->server, c->server_len) < 0 ||
	    send(k->fd, &k->dir, 1, MSG_NOSIGNAL) != 1)
		return -errno;
	return 0;
}

static int stream_client(struct client_ctx *c)
{
	const struct opts *o = c->o;
	int n = (int)(o->flows * (o->bidir ? 2 : 1)), ret = 0;
	struct client_thread *t = xcalloc((size_t)n, sizeof(*t));
	struct stream_conn *k = xcalloc((size_t)n, sizeof(*k));

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
	atomic_fetch_add(&c->sh->ready, 1);
	if (!ret)
		ret = client_threads_run(c, t, n, 0, 0, client_conn_main);
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
	struct stream_conn k;
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

static int stream_server_open(struct server_ctx *s, char *err, size_t errlen)
{
	long max = s->o->clients * s->o->flows * (s->o->bidir ? 2 : 1);
	struct stream_server *x = xcalloc(1, sizeof(*x) + (size_t)max * sizeof(x->conn[0]));
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

static void stream_server_loop(struct server_ctx *s)
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
static double stream_server_bytes(const struct opts *o)
{
	double conns = (double)(o->clients * o->flows * (o->bidir ? 2 : 1));
	double buf = (double)(o->size > o->read_size ? o->size : o->read_size);
	bool file = tcp_send_find(o->send)->file;

	return conns * (buf + (file ? (double)o->size : 0));
}

static const struct strategy stream_strategies[] = {
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
	{"pin to CPUs", "pin", "--pin", false},
	{"SO_BUSY_POLL 50 us", "busypoll", "--busy-poll 50", false},
	{0},
};

const struct workload wl_tcp_stream = {
	.name = "tcp-stream",
	.summary = "TCP bulk transfer, one way or both (netperf TCP_STREAM, iperf3).",
	.opts = opts_tcp_stream,
	.overrides = stream_overrides,
	.unit = "megabyte",
	.latency_label = "none",
	.snmp_proto = "Tcp",
	.check = stream_check,
	.units = stream_units,
	.headline = stream_headline,
	.describe = stream_describe,
	.kernel_pairs = stream_kernel_pairs,
	.server_open = stream_server_open,
	.server_bytes = stream_server_bytes,
	.server_loop = stream_server_loop,
	.server_close = tcp_server_close,
	.client = stream_client,
	.strategies = stream_strategies,
};
