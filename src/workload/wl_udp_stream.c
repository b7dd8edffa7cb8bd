/* wl_udp_stream.c: one-way datagrams at full speed or at --rate (netperf UDP_STREAM, iperf3
 * -u, sockperf throughput).
 *
 * The clients send, the server receives; with --reverse the server sends and the clients
 * receive: each client socket says hello to the server, which then feeds that flow (to the
 * controller's host only). Every datagram starts with a header: its flow (a client socket,
 * numbered over all clients) and its sequence number in that flow, so the receiver counts
 * loss, reordering and duplicates itself; the report sets its loss beside the kernel's
 * RcvbufErrors. --gso hands the kernel several datagrams per send (UDP_SEGMENT);
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

#include "transport/io.h"
#include "measure/result.h"
#include "measure/seq.h"
#include "transport/udp.h"
#include "base/util.h"
#include "workload/workload.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

#define HDR_LEN SEQ_HDR_LEN
#define HDR_MAGIC 0x534b4253u	  /* "SBKS": sent outside the sender's window */
#define HDR_MAGIC_WIN 0x574b4253u /* "SBKW": sent inside it */
#define HDR_MAGIC_HELLO 0x484b4253u /* "SBKH": --reverse, a client's flow says where it is */
#define HELLO_EVERY_NS (10 * 1000000ULL) /* a flow that has heard nothing says hello again */
#define HELLO_LOOPS 1024 /* a sending server looks for late hellos every so many sends */
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
	{.field = "peers", .def = "0", .help = "client sockets in all, spread over the clients, each a flow "
				   "(0: one per client)"},
	{.field = "reverse", .def = NULL, .help = "the server sends, the clients receive and count "
						   "(each client socket is a flow)"},
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
		 "%ld client%s, %ld flow%s%s, %ld-byte datagrams at %s, io %s, batch %ld, gso %ld, "
		 "gro %s, %s, %ld server thread%s%s",
		 o->clients, o->clients > 1 ? "s" : "", o->peers, o->peers > 1 ? "s" : "",
		 o->reverse ? " server to client" : "", o->size,
		 rate, io_find(o)->name, o->batch, o->gso, o->gro ? "on" : "off",
		 o->connected ? "connected" : "unconnected", o->server_threads,
		 o->server_threads > 1 ? "s" : "", o->rcvbuf ? ", receive buffer set" : "");
}

/* The sending and the receiving side, and their names. */
static const struct side_result *tx_side(const struct result *r, const char **name)
{
	*name = r->cfg->reverse ? "server" : "client";
	return r->cfg->reverse ? &r->server : &r->client;
}

static const struct side_result *rx_side(const struct result *r, const char **name)
{
	*name = r->cfg->reverse ? "client" : "server";
	return r->cfg->reverse ? &r->client : &r->server;
}

/* Packets the receiver received in its window. */
static double stream_units(const struct result *r)
{
	const char *name;

	return (double)rx_side(r, &name)->c.rx_packets;
}

/* The kernel counts a datagram sent with GSO once per send, and one read coalesced by GRO once
 * per read; we count those too (syscalls aside): tx_packets / gso, and transactions (reads).
 * Only the sides on this machine count (the client always is; the server when local). */
static int stream_kernel_pairs(const struct result *r, struct kernel_pair *out)
{
	const char *name;
	const struct side_result *tx = tx_side(r, &name), *rx = rx_side(r, &name);
	bool server_here = r->server_local && r->server.present;
	uint64_t segs = r->cfg->gso ? (uint64_t)r->cfg->gso : 1;
	uint64_t in = r->cfg->gro ? rx->c.transactions : rx->c.rx_packets;
	int n = 0;

	/* Loopback: a GSO send that reaches a socket without GRO is cut up on the way in. */
	if (r->cfg->gso && !r->cfg->gro)
		in = rx->c.rx_packets;
	if (r->cfg->reverse || server_here)
		out[n++] = (struct kernel_pair){"InDatagrams", in};
	if (!r->cfg->reverse || server_here)
		out[n++] = (struct kernel_pair){"OutDatagrams", tx->c.tx_packets / segs};
	/* Drops: one per datagram, but one per coalesced packet with GRO, which we cannot see. */
	if (!r->cfg->gro && (r->cfg->reverse || server_here))
		out[n++] = (struct kernel_pair){"RcvbufErrors", rx->c.lost};
	return n;
}

static void stream_headline(const struct result *r, FILE *f, cJSON *j)
{
	const char *tn, *rn;
	const struct side_result *c = tx_side(r, &tn), *s = rx_side(r, &rn);
	double d = r->duration_s;
	uint64_t rx = s->c.rx_packets, tx = c->c.tx_packets, lost = s->c.lost;
	double loss_pct = rx + lost ? 100.0 * (double)lost / (double)(rx + lost) : 0;
	double cpu_tx = result_cpu_us_per(c->user_s, c->sys_s, (double)tx);
	double cpu_rx = result_cpu_us_per(s->user_s, s->sys_s, (double)rx);
	char key[40];
	double gb = d > 0 ? (double)s->c.rx_bytes * 8 / d / 1e9 : 0;

	if (f) {
		fprintf(f, "  %-28s %14.0f  sent %.0f/s\n", "packets received/s", result_per_s(rx, d),
			result_per_s(tx, d));
		fprintf(f, "  %-28s %14llu  (%.3f%%)  reordered %llu, duplicates %llu\n",
			"lost (gaps in sequence)", (unsigned long long)lost, loss_pct,
			(unsigned long long)s->c.reordered, (unsigned long long)s->c.dups);
		fprintf(f, "  %-28s %14.3f\n", "payload Gbit/s received", gb);
		fprintf(f, "  %-28s %14s  %s %.3f per packet sent, %s %.3f per packet received\n",
			"CPU us per packet", "", tn, cpu_tx, rn, cpu_rx);
	}
	if (j) {
		cJSON *cpu = cJSON_AddObjectToObject(j, "cpu_us_per_packet");

		cJSON_AddNumberToObject(j, "packets_sent", (double)tx);
		cJSON_AddNumberToObject(j, "packets_received", (double)rx);
		cJSON_AddNumberToObject(j, "packets_sent_per_s", round(result_per_s(tx, d) * 1e3) / 1e3);
		cJSON_AddNumberToObject(j, "packets_per_s", round(result_per_s(rx, d) * 1e3) / 1e3);
		cJSON_AddNumberToObject(j, "loss", (double)lost);
		cJSON_AddNumberToObject(j, "loss_pct", round(loss_pct * 1e4) / 1e4);
		cJSON_AddNumberToObject(j, "reordered", (double)s->c.reordered);
		cJSON_AddNumberToObject(j, "duplicates", (double)s->c.dups);
		cJSON_AddNumberToObject(j, "gbit_per_s", round(gb * 1e4) / 1e4);
		snprintf(key, sizeof(key), "%s_per_sent", tn);
		cJSON_AddNumberToObject(cpu, key, round(cpu_tx * 1e4) / 1e4);
		snprintf(key, sizeof(key), "%s_per_received", rn);
		cJSON_AddNumberToObject(cpu, key, round(cpu_rx * 1e4) / 1e4);
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

static void put_hdr(uint8_t *p, uint32_t flow, uint64_t seq, uint32_t magic, uint64_t token)
{
	seq_hdr_put(p, &(struct seq_hdr){.seq = seq, .flow = flow, .magic = magic, .token = token});
}

/* ---- the sender: the clients, or the server with --reverse ---- */

/* A flow a sender feeds: its socket, its number, its next sequence number, where to. */
struct target {
	int sock;
	uint32_t flow;
	uint64_t seq;
	struct sockaddr_storage addr;
	socklen_t addrlen;
};

struct sender {
	const struct io_ops *ops;
	struct io_ctx *io;
	struct side_counters *cnt; /* where the window's sends are counted */
	const struct udp_window *win;
	struct io_msg *m;
	int batch, segs, ready; /* messages per call, datagrams per message, prepared */
	size_t size;
	struct target *tg;
	int ntg, next;
	double per_ns;		/* --rate: this sender's packets per nanosecond (0: full speed) */
	uint64_t token;		/* the test's, in every header */
	uint64_t t0, paced;	/* pacing: its start, and the packets sent since */
};

static void sender_init(struct sender *x, const struct opts *o, const struct io_ops *ops,
			struct io_ctx *io, struct side_counters *cnt, const struct udp_window *win,
			int ntarget, uint64_t token)
{
	size_t cap = (size_t)o->size * (size_t)(o->gso ? o->gso : 1);

	*x = (struct sender){.ops = ops, .io = io, .cnt = cnt, .win = win, .size = (size_t)o->size,
			     .token = token,
			     .segs = o->gso ? (int)o->gso : 1, .batch = (int)o->batch};
	x->tg = xcalloc((size_t)ntarget, sizeof(*x->tg));
	x->m = msgs_alloc(x->batch, cap);
	for (int i = 0; i < x->batch; i++) {
		memset(x->m[i].buf, 'x', cap);
		x->m[i].len = cap;
	}
}

static void sender_free(struct sender *x)
{
	free(x->tg);
	msgs_free(x->m, x->batch);
}

/* Pace at pps packets per second from now on (0: full speed). */
static void sender_rate(struct sender *x, double pps)
{
	x->per_ns = pps / 1e9;
	x->t0 = now_ns();
	x->paced = 0;
}

/* Fill messages up to n (each for the next flow, with its next sequence numbers). */
static void prepare(struct sender *x, int n)
{
	uint32_t magic = x->win->measuring ? HDR_MAGIC_WIN : HDR_MAGIC;

	for (; x->ready < n; x->ready++) {
		struct io_msg *m = &x->m[x->ready];
		struct target *g = &x->tg[x->next];

		x->next = (x->next + 1) % x->ntg;
		m->sock = g->sock;
		memcpy(&m->addr, &g->addr, g->addrlen);
		m->addrlen = g->addrlen;
		for (int s = 0; s < x->segs; s++)
			put_hdr((uint8_t *)m->buf + (size_t)s * x->size, g->flow, g->seq++, magic,
				x->token);
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

/* Sleep until the next message is due, or max_ns at most. */
static void pace_wait(struct sender *x, uint64_t max_ns)
{
	double at = (double)x->t0 + ((double)x->paced + x->segs) / x->per_ns;
	double cap = (double)(now_ns() + max_ns);
	struct timespec ts;

	at = at < cap ? at : cap;
	ts = (struct timespec){.tv_sec = (time_t)(at / 1e9), .tv_nsec = (long)fmod(at, 1e9)};
	x->io->syscalls++;
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static void send_some(struct sender *x, int n)
{
	prepare(x, n);
	int sent = x->ops->send(x->io, x->m, n);

	if (sent < 0) {
		count_err(x->cnt, ERR_SEND, x->win->measuring);
		sent = 0;
	}
	if (x->win->measuring)
		x->cnt->tx_packets += (uint64_t)sent * (uint64_t)x->segs;
	x->paced += (uint64_t)sent * (uint64_t)x->segs;
	/* The unsent keep their sequence numbers and go first next time. */
	for (int i = sent; i < n; i++) {
		struct io_msg t = x->m[i - sent];

		x->m[i - sent] = x->m[i];
		x->m[i] = t;
	}
	x->ready = n - sent;
	if (sent < n) { /* the socket's buffer is full: wait until it drains */
		struct pollfd p = {.fd = x->io->fds[x->m[0].sock], .events = POLLOUT};

		x->io->syscalls++;
		poll(&p, 1, 10);
	}
}

/* Send what is due, or sleep until it is (max_ns at most). */
static void sender_step(struct sender *x, uint64_t max_ns)
{
	int n = due(x);

	if (n > 0)
		send_some(x, n);
	else
		pace_wait(x, max_ns);
}

/* ---- the receiver: the server, or the clients with --reverse ---- */

struct receiver {
	const struct opts *o;
	uint64_t token; /* the test's: a datagram without it is foreign */
	struct side_counters *cnt;
	struct seq_flow *flows; /* one per flow of the test (--peers) */
};

/* Datagrams received in the receiver's window make the rate; loss, reordering and duplicates
 * are counted over those the sender sent in its own window (its header says so), whose edges
 * lie closer to the kernel's reads of RcvbufErrors than the receiver's, one control message
 * wider at each end. */
static void take(struct receiver *r, const struct io_msg *m, bool measuring)
{
	size_t size = (size_t)r->o->size;

	if (m->trunc || m->len % size) {
		count_err(r->cnt, ERR_RECV, measuring);
		return;
	}
	for (size_t off = 0; off < m->len; off += size) {
		struct seq_hdr h;

		seq_hdr_get((const uint8_t *)m->buf + off, size, &h);
		/* Not the test's (no token, no such flow, a number it could not have sent): counted
		 * apart, never as received or lost. */
		if (h.token != r->token || (h.magic != HDR_MAGIC && h.magic != HDR_MAGIC_WIN) ||
		    h.flow >= (uint32_t)r->o->peers || !seq_plausible(&r->flows[h.flow], h.seq)) {
			count_err(r->cnt, ERR_FOREIGN, true);
			continue;
		}
		if (h.magic == HDR_MAGIC_WIN)
			seq_take(&r->flows[h.flow], h.seq);
		if (measuring) {
			r->cnt->rx_packets++;
			r->cnt->rx_bytes += size;
		}
	}
	r->cnt->transactions += measuring;
}

/* Loss: what the gaps between the first and last of each flow leave out. */
static void receiver_end(struct receiver *r)
{
	for (long i = 0; i < r->o->peers; i++) {
		r->cnt->lost += seq_lost(&r->flows[i]);
		r->cnt->reordered += r->flows[i].reordered;
		r->cnt->dups += r->flows[i].dups;
	}
}

/* Receive-side socket options: the buffer, GRO. 0 or -errno with err. */
static int receiver_sockopts(int fd, const struct opts *o, char *err, size_t errlen)
{
	int one = 1;

	if (set_buf(fd, SO_RCVBUFFORCE, SO_RCVBUF, o->rcvbuf)) {
		snprintf(err, errlen, "SO_RCVBUF %ld: %s", o->rcvbuf, strerror(errno));
		return -errno;
	}
	if (o->gro && setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) < 0) {
		snprintf(err, errlen, "UDP_GRO: %s (the receiver's kernel needs 5.0 or later)",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

/* Send-side socket options: GSO, the buffer. 0 or -errno with err. */
static int sender_sockopts(int fd, const struct opts *o, char *err, size_t errlen)
{
	int seg = (int)o->size;

	if ((o->gso && setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg)) < 0) ||
	    set_buf(fd, SO_SNDBUFFORCE, SO_SNDBUF, o->sndbuf)) {
		snprintf(err, errlen, "%s: %s", o->gso ? "UDP_SEGMENT or SO_SNDBUF" : "SO_SNDBUF",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

/* ---- client ---- */

struct client {
	struct client_ctx *c;
	const struct io_ops *ops;
	struct io_ctx io;
	struct udp_window win;
	uint32_t flow0; /* the number of this client's first socket */
};

static int client_open(struct client *x, struct client_ctx *c)
{
	const struct opts *o = c->o;
	struct sockaddr_storage any = {.ss_family = c->server.ss_family};
	size_t cap = (size_t)o->size * (size_t)(o->gso ? o->gso : 1);
	char why[200] = "";
	int ret;

	x->c = c;
	x->ops = io_find(o);
	for (int i = 0; i < c->index; i++)
		x->flow0 += (uint32_t)share_of(o->peers, (int)o->clients, i);
	if (o->reverse)
		cap = o->gro ? GRO_CAP : (size_t)o->size;
	x->io = (struct io_ctx){.o = o, .nsock = c->nsock, .connected = o->connected,
				.wait = io_wait_of(o, o->reverse), .batch = (int)o->batch,
				.depth = (int)o->batch, .cap = cap};
	x->io.fds = xcalloc((size_t)c->nsock, sizeof(int));
	for (int k = 0; k < c->nsock; k++)
		x->io.fds[k] = -1;
	if (o->pin)
		pin_self(c->index, false);
	for (int k = 0; k < c->nsock; k++) {
		int fd = udp_socket(c->server.ss_family, o);

		if (fd < 0)
			return fd;
		x->io.fds[k] = fd;
		if ((ret = o->reverse ? receiver_sockopts(fd, o, why, sizeof(why))
				      : sender_sockopts(fd, o, why, sizeof(why)))) {
			snprintf(c->rep->msg, sizeof(c->rep->msg), "client socket: %s", why);
			return ret;
		}
		if (bind(fd, (struct sockaddr *)&any, c->server_len) < 0 ||
		    (o->connected && connect(fd, (struct sockaddr *)&c->server, c->server_len) < 0)) {
			snprintf(c->rep->msg, sizeof(c->rep->msg), "client socket: %s", strerror(errno));
			return -errno;
		}
	}
	ret = x->ops->open(&x->io, why, sizeof(why));
	if (ret)
		snprintf(c->rep->msg, sizeof(c->rep->msg), "%s", why[0] ? why : strerror(-ret));
	return ret;
}

static void client_close(struct client *x)
{
	if (x->ops && x->io.fds)
		x->ops->close(&x->io);
	for (int k = 0; x->io.fds && k < x->io.nsock; k++)
		if (x->io.fds[k] >= 0)
			close(x->io.fds[k]);
	free(x->io.fds);
}

static int client_phase(struct client *x)
{
	return udp_window_follow(&x->win, client_follow_phase(x->c), &x->io, &x->c->rep->c);
}

/* Send datagrams to the server from every socket, each its own flow. */
static void client_send(struct client *x)
{
	const struct opts *o = x->c->o;
	struct sender tx;

	sender_init(&tx, o, x->ops, &x->io, &x->c->rep->c, &x->win, x->c->nsock, x->c->token);
	for (int k = 0; k < x->c->nsock; k++)
		tx.tg[tx.ntg++] = (struct target){.sock = k, .flow = x->flow0 + (uint32_t)k,
						  .addr = x->c->server, .addrlen = x->c->server_len};
	client_wait_phase(x->c, PH_WARMUP);
	sender_rate(&tx, (double)(o->rate ? share_of(o->rate, (int)o->clients, x->c->index) : 0));
	while (client_phase(x) != PH_STOP)
		sender_step(&tx, UINT64_MAX / 2);
	sender_free(&tx);
}

/* --reverse: say hello from every socket that has heard nothing yet. */
static void hello(struct client *x, const bool *heard)
{
	struct io_msg m = {0};
	uint8_t buf[HDR_LEN];

	m.buf = buf;
	m.len = HDR_LEN;
	m.addr = x->c->server;
	m.addrlen = x->c->server_len;
	for (int k = 0; k < x->c->nsock; k++) {
		if (heard[k])
			continue;
		put_hdr(buf, x->flow0 + (uint32_t)k, 0, HDR_MAGIC_HELLO, x->c->token);
		m.sock = k;
		x->ops->send(&x->io, &m, 1);
	}
}

/* --reverse: tell the server where each flow goes, then receive until the end. */
static void client_receive(struct client *x)
{
	const struct opts *o = x->c->o;
	int burst = o->batch > 1 ? (int)o->batch : UDP_RX_BURST;
	struct io_msg *m = msgs_alloc(burst, x->io.cap);
	bool *heard = xcalloc((size_t)x->c->nsock, sizeof(bool));
	struct receiver rx = {.o = o, .cnt = &x->c->rep->c, .token = x->c->token,
			      .flows = xcalloc((size_t)o->peers, sizeof(struct seq_flow))};
	int unheard = x->c->nsock, ph;
	uint64_t said = 0;

	while ((ph = client_phase(x)) != PH_STOP) {
		if (unheard && now_ns() - said > HELLO_EVERY_NS) {
			hello(x, heard);
			said = now_ns();
		}
		int n = x->ops->recv(&x->io, m, burst);

		if (n <= 0) {
			if (n < 0)
				count_err(rx.cnt, ERR_RECV, x->win.measuring);
			x->ops->wait(&x->io, UDP_SERVER_WAIT_MS);
			continue;
		}
		for (int i = 0; i < n; i++) {
			if (!same_host(&m[i].addr, &x->c->server)) {
				count_err(rx.cnt, ERR_FOREIGN, true);
				continue;
			}
			unheard -= !heard[m[i].sock];
			heard[m[i].sock] = true;
			take(&rx, &m[i], ph == PH_MEASURE);
		}
	}
	receiver_end(&rx);
	free(rx.flows);
	free(heard);
	msgs_free(m, burst);
}

static int stream_client(struct client_ctx *c)
{
	struct client x = {0};
	int ret = client_open(&x, c);

	atomic_fetch_add(&c->sh->ready, 1);
	if (!ret && c->o->reverse)
		client_receive(&x);
	else if (!ret)
		client_send(&x);
	client_close(&x);
	return ret;
}

/* ---- server ---- */

static void receive_loop(struct udp_srv_thread *t, const struct io_ops *ops, struct io_ctx *io)
{
	struct server_ctx *s = t->s;
	int burst = io->batch;
	struct io_msg *m = msgs_alloc(burst, io->cap);
	struct receiver rx = {.o = s->o, .cnt = &t->c, .flows = t->priv, .token = s->token};

	for (;;) {
		int ph = udp_server_phase(t, io);

		if (ph == PH_STOP)
			break;
		bool measuring = ph == PH_MEASURE;
		int n = udp_server_recv(t, ops, io, m, burst);

		for (int i = 0; i < n; i++) {
			if (!same_host(&m[i].addr, &s->peer)) {
				count_err(&t->c, ERR_FOREIGN, true);
				continue;
			}
			take(&rx, &m[i], measuring);
		}
	}
	msgs_free(m, burst);
	receiver_end(&rx);
}

/* --reverse: take the clients' hellos; each new flow becomes a target, sent to only on the
 * controller's host (an agent is no reflector). */
static void take_hellos(struct udp_srv_thread *t, struct sender *x, struct io_msg *m, int n)
{
	const struct opts *o = t->s->o;
	int got = x->ops->recv(x->io, m, n);

	for (int i = 0; i < got; i++) {
		struct seq_hdr h = {0};
		bool known = false;
		uint32_t flow;

		seq_hdr_get(m[i].buf, m[i].len, &h);
		flow = h.flow;
		if (!same_host(&m[i].addr, &t->s->peer) || m[i].len != HDR_LEN ||
		    h.magic != HDR_MAGIC_HELLO || h.token != t->s->token || flow >= (uint32_t)o->peers) {
			count_err(&t->c, ERR_FOREIGN, true);
			continue;
		}
		for (int k = 0; k < x->ntg && !known; k++)
			known = x->tg[k].flow == flow;
		if (known)
			continue;
		x->tg[x->ntg++] = (struct target){.flow = flow, .addr = m[i].addr,
						  .addrlen = m[i].addrlen};
		/* Each flow gets its share of --rate. */
		sender_rate(x, (double)o->rate * x->ntg / (double)o->peers);
	}
}

static void send_loop(struct udp_srv_thread *t, const struct io_ops *ops, struct io_ctx *io)
{
	const struct opts *o = t->s->o;
	struct sender x;
	struct io_msg *in = msgs_alloc(UDP_RX_BURST, io->cap);
	unsigned loops = 0;

	sender_init(&x, o, ops, io, &t->c, &t->win, (int)o->peers, t->s->token);
	for (;;) {
		int ph = udp_server_phase(t, io);

		if (ph == PH_STOP)
			break;
		/* Hellos come at the start; later ones (a lost first) are looked for now and then. */
		if (ph != PH_MEASURE || !x.ntg || ++loops % HELLO_LOOPS == 0)
			take_hellos(t, &x, in, UDP_RX_BURST);
		if (!x.ntg)
			ops->wait(io, UDP_SERVER_WAIT_MS);
		else
			sender_step(&x, UDP_SERVER_WAIT_MS * 1000000ULL);
	}
	sender_free(&x);
	msgs_free(in, UDP_RX_BURST);
}

/* Before each server socket's bind: its flows, and the options of its side. */
static int prepare_server(struct udp_srv_thread *t, char *err, size_t errlen)
{
	const struct opts *o = t->s->o;

	if (o->reverse)
		return sender_sockopts(t->fd, o, err, errlen);
	t->priv = xcalloc((size_t)o->peers, sizeof(struct seq_flow));
	return receiver_sockopts(t->fd, o, err, errlen);
}

static int stream_server_open(struct server_ctx *s, char *err, size_t errlen)
{
	return udp_server_open(s, prepare_server, err, errlen);
}

static void stream_server_loop(struct server_ctx *s)
{
	const struct opts *o = s->o;

	if (o->reverse)
		udp_server_run(s, (size_t)o->size * (size_t)(o->gso ? o->gso : 1), (int)o->batch,
			       (int)o->batch, true, send_loop);
	else
		udp_server_run(s, o->gro ? GRO_CAP : (size_t)o->size,
			       (int)(o->batch > 1 ? o->batch : UDP_RX_BURST), 4, false, receive_loop);
}

static const struct strategy stream_strategies[] = {
	{"batch 8 (sendmmsg/recvmmsg)", "calls", "--batch 8", false},
	{"batch 32 (sendmmsg/recvmmsg)", "calls", "--batch 32", false},
	{"io_uring, batch 32", "calls", "--io uring --batch 32", false},
	{"GSO 16 segments", "gso", "--gso 16", false},
	{"GSO 16 + GRO", "gso", "--gso 16 --gro", false},
	{"GRO on the receiver", "gro", "--gro", false},
	{"connected sockets", "route", "--connected", false},
	{"no UDP checksums", "csum", "--no-check", false},
	{"2 server threads (SO_REUSEPORT), 2 flows", "threads", "--server-threads 2 --peers 2", true},
	{"block in recvmsg", "wait", "--wait block", false},
	{"4 MB receive buffer", "bufs", "--rcvbuf 4194304", false},
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
