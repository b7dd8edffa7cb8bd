/* wl_udp_stream.c: one-way datagrams at full speed or at --rate (netperf UDP_STREAM, iperf3
 * -u, sockperf throughput).
 *
 * The clients send, the server receives. Every datagram starts with a header: its flow (the
 * sending socket, numbered over all clients) and its sequence number in that flow, so the
 * receiver counts loss, reordering and duplicates itself; the report sets its loss beside the
 * kernel's RcvbufErrors. --gso hands the kernel several datagrams per send (UDP_SEGMENT);
 * --gro lets the receiver take a flow's datagrams coalesced (UDP_GRO): since every datagram
 * is --size bytes, a coalesced read is cut at --size. Both sides move datagrams only through
 * an io back end (io.h), so --batch, --io uring and --wait apply as in udp-rr.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "out.h"
#include "seq.h"
#include "udp.h"
#include "util.h"
#include "workload.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

#define HDR_LEN 16
#define HDR_MAGIC 0x534b4253u	  /* "SBKS": sent outside the sender's window */
#define HDR_MAGIC_WIN 0x574b4253u /* "SBKW": sent inside it */
#define MAX_UDP 65507	      /* the largest UDP payload over IPv4 */
#define GRO_CAP 65536	      /* room for a coalesced read */

static const struct opt_override stream_overrides[] = {
	{.field = "clients", .def = "1", .help = NULL},
	{.field = "size", .def = "1472", .help = "bytes per datagram (1472: a full 1500-byte frame)",
	 .min = HDR_LEN, .max = MAX_UDP},
	{.field = "rcvbuf", .def = "0", .help = "the receiver's SO_RCVBUF (SO_RCVBUFFORCE when allowed, "
					      "past net.core.rmem_max; 0: the kernel's)"},
	{.field = "sndbuf", .def = "0", .help = "the senders' SO_SNDBUF (SO_SNDBUFFORCE when allowed; "
					      "0: the kernel's)"},
	{.field = "timeout", .def = "200", .help = "not used here: nothing waits for an answer "
						    "(loss is counted from sequence numbers)"},
	{.field = "peers", .def = "0", .help = "sending sockets in all, spread over the clients, each a flow "
				   "(0: one per client)"},
	{0},
};

static int stream_check(struct opts *o, char *err, size_t errlen)
{
	if (!o->peers)
		o->peers = o->clients;
	if (o->peers < o->clients) {
		snprintf(err, errlen, "--peers %ld is fewer than --clients %ld: each client needs a socket",
			 o->peers, o->clients);
		return -EINVAL;
	}
	if (udp_io_check(o, err, errlen))
		return -EINVAL;
	if (o->gso && o->gso * o->size > MAX_UDP) {
		snprintf(err, errlen, "--gso %ld is not applicable with --size %ld: one send carries at "
			 "most %d bytes; use --gso %ld or less", o->gso, o->size, MAX_UDP,
			 MAX_UDP / o->size);
		return -EINVAL;
	}
	if (o->gso && o->no_check) {
		snprintf(err, errlen, "--gso is not applicable with --no-check: the kernel segments "
			 "UDP only with checksums on (it refuses such sends with EINVAL)");
		return -EINVAL;
	}
	if (o->rate && o->rate < o->clients) {
		snprintf(err, errlen, "--rate %ld is below one packet per second per client (--clients %ld)",
			 o->rate, o->clients);
		return -EINVAL;
	}
	return 0;
}

static void stream_describe(const struct opts *o, char *buf, size_t len)
{
	char rate[40] = "full speed";

	if (o->rate)
		snprintf(rate, sizeof(rate), "%ld packets/s", o->rate);
	snprintf(buf, len,
		 "%ld client%s, %ld flow%s, %ld-byte datagrams at %s, io %s, batch %ld, gso %ld, "
		 "gro %s, %s, %ld server thread%s%s",
		 o->clients, o->clients > 1 ? "s" : "", o->peers, o->peers > 1 ? "s" : "", o->size,
		 rate, io_find(o)->name, o->batch, o->gso, o->gro ? "on" : "off",
		 o->connected ? "connected" : "unconnected", o->server_threads,
		 o->server_threads > 1 ? "s" : "", o->rcvbuf ? ", receive buffer set" : "");
}

/* Packets the server received in its window. */
static double stream_units(const struct result *r)
{
	return (double)r->server.c.rx_packets;
}

/* The kernel counts a datagram sent with GSO once per send, and one read coalesced by GRO once
 * per read; we count those too (syscalls aside): tx_packets / gso, and transactions (reads). */
static int stream_kernel_pairs(const struct result *r, struct kernel_pair *out)
{
	uint64_t segs = r->cfg->gso ? (uint64_t)r->cfg->gso : 1;
	uint64_t in = r->cfg->gro ? r->server.c.transactions : r->server.c.rx_packets;
	int n = 0;

	if (!r->server_local || !r->server.present) {
		out[n++] = (struct kernel_pair){"OutDatagrams", r->client.c.tx_packets / segs};
		return n;
	}
	/* Loopback: a GSO send that reaches a socket without GRO is cut up on the way in. */
	if (r->cfg->gso && !r->cfg->gro)
		in = r->server.c.rx_packets;
	out[n++] = (struct kernel_pair){"InDatagrams", in};
	out[n++] = (struct kernel_pair){"OutDatagrams", r->client.c.tx_packets / segs};
	/* Drops: one per datagram, but one per coalesced packet with GRO, which we cannot see. */
	if (!r->cfg->gro)
		out[n++] = (struct kernel_pair){"RcvbufErrors", r->server.c.lost};
	return n;
}

static void stream_headline(const struct result *r, FILE *f, cJSON *j)
{
	const struct side_result *c = &r->client, *s = &r->server;
	double d = r->duration_s;
	uint64_t rx = s->c.rx_packets, tx = c->c.tx_packets, lost = s->c.lost;
	double loss_pct = rx + lost ? 100.0 * (double)lost / (double)(rx + lost) : 0;
	double cpu_tx = out_cpu_us_per(c->user_s, c->sys_s, (double)tx);
	double cpu_rx = out_cpu_us_per(s->user_s, s->sys_s, (double)rx);
	double gb = d > 0 ? (double)s->c.rx_bytes * 8 / d / 1e9 : 0;

	if (f) {
		fprintf(f, "  %-28s %14.0f  sent %.0f/s\n", "packets received/s", out_rate(rx, d),
			out_rate(tx, d));
		fprintf(f, "  %-28s %14llu  (%.3f%%)  reordered %llu, duplicates %llu\n",
			"lost (gaps in sequence)", (unsigned long long)lost, loss_pct,
			(unsigned long long)s->c.reordered, (unsigned long long)s->c.dups);
		fprintf(f, "  %-28s %14.3f\n", "payload Gbit/s received", gb);
		fprintf(f, "  %-28s %14s  client %.3f per packet sent, server %.3f per packet received\n",
			"CPU us per packet", "", cpu_tx, cpu_rx);
	}
	if (j) {
		cJSON *cpu = cJSON_AddObjectToObject(j, "cpu_us_per_packet");

		cJSON_AddNumberToObject(j, "packets_sent", (double)tx);
		cJSON_AddNumberToObject(j, "packets_received", (double)rx);
		cJSON_AddNumberToObject(j, "packets_sent_per_s", round(out_rate(tx, d) * 1e3) / 1e3);
		cJSON_AddNumberToObject(j, "packets_per_s", round(out_rate(rx, d) * 1e3) / 1e3);
		cJSON_AddNumberToObject(j, "loss", (double)lost);
		cJSON_AddNumberToObject(j, "loss_pct", round(loss_pct * 1e4) / 1e4);
		cJSON_AddNumberToObject(j, "reordered", (double)s->c.reordered);
		cJSON_AddNumberToObject(j, "duplicates", (double)s->c.dups);
		cJSON_AddNumberToObject(j, "gbit_per_s", round(gb * 1e4) / 1e4);
		cJSON_AddNumberToObject(cpu, "client_per_sent", round(cpu_tx * 1e4) / 1e4);
		cJSON_AddNumberToObject(cpu, "server_per_received", round(cpu_rx * 1e4) / 1e4);
	}
}

/* A socket buffer of that size, past the sysctl's cap where we may (root). 0 or -errno. */
static int set_buf(int fd, int force, int plain, long bytes)
{
	int v = (int)bytes;

	if (!bytes || setsockopt(fd, SOL_SOCKET, force, &v, sizeof(v)) == 0)
		return 0;
	return setsockopt(fd, SOL_SOCKET, plain, &v, sizeof(v)) < 0 ? -errno : 0;
}

/* ---- the header ---- */

static void put_hdr(uint8_t *p, uint32_t flow, uint64_t seq, bool in_window)
{
	put_tag(p, 8, seq);
	put_tag(p + 8, 4, flow);
	put_tag(p + 12, 4, in_window ? HDR_MAGIC_WIN : HDR_MAGIC);
}

/* ---- client: sends ---- */

struct sender {
	struct client_ctx *c;
	const struct io_ops *ops;
	struct io_ctx io;
	struct io_msg *m;
	int batch, segs, ready; /* messages per call, datagrams per message, prepared */
	size_t size;
	uint32_t flow0;		/* the number of this client's first socket */
	uint64_t *seq;		/* next sequence number of each socket */
	int next_sock;
	double per_ns;		/* --rate: this client's packets per nanosecond (0: full speed) */
	uint64_t t0, paced;	/* pacing: its start, and the packets sent since */
	struct udp_window win;
};

static bool follow_phase(struct sender *x)
{
	int ph = udp_window_follow(&x->win, client_follow_phase(x->c), x->io.syscalls,
				   &x->c->rep->c.syscalls);

	return ph != PH_STOP;
}

/* Fill messages up to n (each on the next socket, with its next sequence numbers). */
static void prepare(struct sender *x, int n)
{
	for (; x->ready < n; x->ready++) {
		struct io_msg *m = &x->m[x->ready];
		int k = x->next_sock;

		x->next_sock = (k + 1) % x->io.nsock;
		m->sock = k;
		for (int s = 0; s < x->segs; s++)
			put_hdr((uint8_t *)m->buf + (size_t)s * x->size, x->flow0 + (uint32_t)k,
				x->seq[k]++, x->win.measuring);
	}
}

/* Packets due now under --rate (or a full batch without it). */
static int due(struct sender *x)
{
	if (!x->per_ns)
		return x->batch;
	double owed = (double)(now_ns() - x->t0) * x->per_ns - (double)x->paced;
	int msgs = (int)(owed / x->segs);

	return msgs < x->batch ? msgs : x->batch;
}

/* Sleep until the next message is due. */
static void pace_wait(struct sender *x)
{
	double at = (double)x->t0 + ((double)x->paced + x->segs) / x->per_ns;
	struct timespec ts = {.tv_sec = (time_t)(at / 1e9), .tv_nsec = (long)fmod(at, 1e9)};

	x->io.syscalls++;
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static void send_some(struct sender *x, int n)
{
	prepare(x, n);
	int sent = x->ops->send(&x->io, x->m, n);

	if (sent < 0) {
		count_err(&x->c->rep->c, ERR_SEND, x->win.measuring);
		sent = 0;
	}
	if (x->win.measuring)
		x->c->rep->c.tx_packets += (uint64_t)sent * (uint64_t)x->segs;
	x->paced += (uint64_t)sent * (uint64_t)x->segs;
	/* The unsent keep their sequence numbers and go first next time. */
	for (int i = sent; i < n; i++) {
		struct io_msg t = x->m[i - sent];

		x->m[i - sent] = x->m[i];
		x->m[i] = t;
	}
	x->ready = n - sent;
	if (sent < n) { /* the socket's buffer is full: wait until it drains */
		struct pollfd p = {.fd = x->io.fds[x->m[0].sock], .events = POLLOUT};

		x->io.syscalls++;
		poll(&p, 1, 10);
	}
}

static int sender_open(struct sender *x, struct client_ctx *c)
{
	const struct opts *o = c->o;
	struct sockaddr_storage any = {.ss_family = c->server.ss_family};
	char why[200] = "";
	int ret;

	x->c = c;
	x->ops = io_find(o);
	x->size = (size_t)o->size;
	x->segs = o->gso ? (int)o->gso : 1;
	x->batch = (int)o->batch;
	for (int i = 0; i < c->index; i++)
		x->flow0 += (uint32_t)share_of(o->peers, (int)o->clients, i);
	x->per_ns = o->rate ? (double)share_of(o->rate, (int)o->clients, c->index) / 1e9 : 0;
	x->io = (struct io_ctx){.o = o, .nsock = c->nsock, .connected = o->connected,
				.wait = io_wait_of(o, false), .batch = x->batch,
				.depth = x->batch, .cap = x->size * (size_t)x->segs};
	x->io.fds = xcalloc((size_t)c->nsock, sizeof(int));
	x->seq = xcalloc((size_t)c->nsock, sizeof(*x->seq));
	x->m = msgs_alloc(x->batch, x->io.cap);
	for (int i = 0; i < x->batch; i++) {
		memset(x->m[i].buf, 'x', x->io.cap);
		x->m[i].len = x->io.cap;
		x->m[i].addr = c->server;
		x->m[i].addrlen = c->server_len;
	}
	for (int k = 0; k < c->nsock; k++)
		x->io.fds[k] = -1;
	if (o->pin)
		pin_self(c->index, false);
	for (int k = 0; k < c->nsock; k++) {
		int fd = udp_socket(c->server.ss_family, o), seg = (int)x->size;

		if (fd < 0)
			return fd;
		x->io.fds[k] = fd;
		if (bind(fd, (struct sockaddr *)&any, c->server_len) < 0 ||
		    (o->connected && connect(fd, (struct sockaddr *)&c->server, c->server_len) < 0) ||
		    (o->gso && setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg)) < 0) ||
		    set_buf(fd, SO_SNDBUFFORCE, SO_SNDBUF, o->sndbuf)) {
			snprintf(c->rep->msg, sizeof(c->rep->msg), "client socket: %s", strerror(errno));
			return -errno;
		}
	}
	ret = x->ops->open(&x->io, why, sizeof(why));
	if (ret)
		snprintf(c->rep->msg, sizeof(c->rep->msg), "%s", why[0] ? why : strerror(-ret));
	return ret;
}

static void sender_close(struct sender *x)
{
	if (x->ops && x->io.fds)
		x->ops->close(&x->io);
	for (int k = 0; x->io.fds && k < x->io.nsock; k++)
		if (x->io.fds[k] >= 0)
			close(x->io.fds[k]);
	free(x->io.fds);
	free(x->seq);
	msgs_free(x->m, x->batch);
}

static int stream_client(struct client_ctx *c)
{
	struct sender x = {0};
	int ret = sender_open(&x, c);

	atomic_fetch_add(&c->sh->ready, 1);
	if (ret) {
		sender_close(&x);
		return ret;
	}
	client_wait_phase(c, PH_WARMUP);
	x.t0 = now_ns();
	while (follow_phase(&x)) {
		int n = due(&x);

		if (n > 0)
			send_some(&x, n);
		else
			pace_wait(&x);
	}
	sender_close(&x);
	return 0;
}

/* ---- server: receives ---- */

/* Datagrams received in the receiver's window make the rate; loss, reordering and duplicates
 * are counted over those the sender sent in its own window (its header says so), whose edges
 * lie closer to the kernel's reads of RcvbufErrors than the receiver's, one control message
 * wider at each end. */
static void take(struct udp_srv_thread *t, const struct io_msg *m, bool measuring)
{
	size_t size = (size_t)t->s->o->size;

	if (m->trunc || m->len % size) {
		count_err(&t->c, ERR_RECV, measuring);
		return;
	}
	for (size_t off = 0; off < m->len; off += size) {
		const uint8_t *p = (const uint8_t *)m->buf + off;
		uint32_t flow = (uint32_t)get_tag(p + 8, 4), magic = (uint32_t)get_tag(p + 12, 4);

		if ((magic != HDR_MAGIC && magic != HDR_MAGIC_WIN) || flow >= (uint32_t)t->s->o->peers) {
			count_err(&t->c, ERR_RECV, measuring);
			continue;
		}
		if (magic == HDR_MAGIC_WIN)
			seq_take((struct seq_flow *)t->priv + flow, get_tag(p, 8));
		if (measuring) {
			t->c.rx_packets++;
			t->c.rx_bytes += size;
		}
	}
	t->c.transactions += measuring;
}

static void receive_loop(struct udp_srv_thread *t, const struct io_ops *ops, struct io_ctx *io)
{
	struct server_ctx *s = t->s;
	int burst = io->batch;
	struct io_msg *m = msgs_alloc(burst, io->cap);
	struct seq_flow *flows = t->priv;

	for (;;) {
		int ph = udp_server_phase(t, io);

		if (ph == PH_STOP)
			break;
		bool measuring = ph == PH_MEASURE;
		int n = udp_server_recv(t, ops, io, m, burst);

		if (!n)
			continue;
		for (int i = 0; i < n; i++) {
			if (!same_host(&m[i].addr, &s->peer)) {
				count_err(&t->c, ERR_FOREIGN, true);
				continue;
			}
			take(t, &m[i], measuring);
		}
	}
	msgs_free(m, burst);
	/* Loss: what the gaps between the first and last of each flow leave out. */
	for (long i = 0; i < s->o->peers; i++) {
		t->c.lost += seq_lost(&flows[i]);
		t->c.reordered += flows[i].reordered;
		t->c.dups += flows[i].dups;
	}
}

/* Before each server socket's bind: its flows, its buffer, GRO. */
static int prepare_rx(struct udp_srv_thread *t, char *err, size_t errlen)
{
	const struct opts *o = t->s->o;
	int one = 1;

	t->priv = xcalloc((size_t)o->peers, sizeof(struct seq_flow));
	if (set_buf(t->fd, SO_RCVBUFFORCE, SO_RCVBUF, o->rcvbuf)) {
		snprintf(err, errlen, "SO_RCVBUF %ld: %s", o->rcvbuf, strerror(errno));
		return -errno;
	}
	if (o->gro && setsockopt(t->fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) < 0) {
		snprintf(err, errlen, "UDP_GRO: %s (the server's kernel needs 5.0 or later)",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

static int stream_server_open(struct server_ctx *s, char *err, size_t errlen)
{
	return udp_server_open(s, prepare_rx, err, errlen);
}

static void stream_server_loop(struct server_ctx *s)
{
	const struct opts *o = s->o;

	udp_server_run(s, o->gro ? GRO_CAP : (size_t)o->size,
		       (int)(o->batch > 1 ? o->batch : UDP_RX_BURST), 4, receive_loop);
}

static const struct strategy stream_strategies[] = {
	{"batch 8 (sendmmsg/recvmmsg)", "calls", "--batch 8"},
	{"batch 32 (sendmmsg/recvmmsg)", "calls", "--batch 32"},
	{"io_uring, batch 32", "calls", "--io uring --batch 32"},
	{"GSO 16 segments", "gso", "--gso 16"},
	{"GSO 16 + GRO", "gso", "--gso 16 --gro"},
	{"GRO on the receiver", "gro", "--gro"},
	{"connected sockets", "route", "--connected"},
	{"no UDP checksums", "csum", "--no-check"},
	{"2 server threads (SO_REUSEPORT), 2 flows", "threads", "--server-threads 2 --peers 2"},
	{"block in recvmsg", "wait", "--wait block"},
	{"4 MB receive buffer", "bufs", "--rcvbuf 4194304"},
	{0},
};

const struct workload wl_udp_stream = {
	.name = "udp-stream",
	.summary = "UDP datagrams one way, at full speed or at --rate, with loss counted from "
		   "sequence numbers (netperf UDP_STREAM, iperf3 -u).",
	.opts = opts_udp_stream,
	.overrides = stream_overrides,
	.unit = "packet",
	.latency_label = "none",
	.snmp_proto = "Udp",
	.check = stream_check,
	.units = stream_units,
	.headline = stream_headline,
	.describe = stream_describe,
	.kernel_pairs = stream_kernel_pairs,
	.server_open = stream_server_open,
	.server_loop = stream_server_loop,
	.server_close = udp_server_close,
	.client = stream_client,
	.strategies = stream_strategies,
};
