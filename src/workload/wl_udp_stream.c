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
 * an io back end (io.h), so --batch, --io uring and --wait apply as in udp-rr. With -n the
 * window is a count of bytes the clients send (tcp-stream's -n), not a time.
 * This file has the workload and its client; the server side is udp_stream_server.c.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/result.h"
#include "base/cpus.h"
#include "base/nofile.h"
#include "base/util.h"
#include "workload/workload.h"

#include "transport/knobs.h"
#include "workload/udp_stream.h"
#include "workload/udp_stream_server.h"

static const struct opt_override udp_stream_overrides[] = {
	{.field = "clients", .def = "1", .help = NULL},
	{.field = "size", .def = "1472", .help = "bytes per datagram (1472: a full 1500-byte frame)",
	 .min = HDR_LEN, .max = MAX_UDP},
	{.field = "rcvbuf", .def = "0", .help = "the receiver's SO_RCVBUF (SO_RCVBUFFORCE when allowed, "
					      "past net.core.rmem_max; 0: the kernel's)"},
	{.field = "sndbuf", .def = "0", .help = "the senders' SO_SNDBUF (SO_SNDBUFFORCE when allowed; "
					      "0: the kernel's)"},
	{.field = "peers", .def = "0", .help = "client sockets in all, spread over the clients, each a flow "
				   "(0: one per client)"},
	{.field = "reverse", .def = NULL, .help = "the server sends, the clients receive and count "
						   "(each client socket is a flow)"},
	{.field = "bidir", .def = NULL, .help = "both ways at once: each flow a sender each way (a "
						 "client socket sends, another receives)"},
	{0},
};

/* -n: the window ends when the clients have sent that many bytes (tcp-stream's -n). */
static bool udp_stream_count_based(const struct opts *o)
{
	return o->bytes > 0;
}

/* --bitrate (iperf3's -b): the datagram rate that carries it, bitrate / (size x 8), rounded.
 * Recomputed at each check (a sweep's size changes it); --rate stays unset, so a config sent to
 * an agent carries the rate alone. */
static int udp_stream_bitrate(struct opts *o, char *err, size_t errlen)
{
	double pps = (double)o->bitrate / ((double)o->size * 8.0);

	if (OPT_IS_SET(o, rate)) {
		snprintf(err, errlen, "--bitrate and --rate together: give one (--bitrate %ld is --rate "
			 "%.0f at --size %ld)", o->bitrate, pps, o->size);
		return -EINVAL;
	}
	if (llround(pps) < 1 || pps > 100000000) {
		snprintf(err, errlen, "--bitrate %ld at --size %ld is %g datagrams per second: use 1 to "
			 "100,000,000 (a bit rate of %ld to %.0f bits per second)", o->bitrate, o->size,
			 pps, o->size * 8, 1e8 * (double)o->size * 8);
		return -EINVAL;
	}
	o->rate = llround(pps);
	return 0;
}

static int udp_stream_check(struct opts *o, char *err, size_t errlen)
{
	if (!o->peers)
		o->peers = o->clients;
	if (o->peers < o->clients) {
		snprintf(err, errlen, "--peers %ld is fewer than --clients %ld: each client needs a socket",
			 o->peers, o->clients);
		return -EINVAL;
	}
	if (o->reverse && o->bidir) {
		snprintf(err, errlen, "--reverse and --bidir together: choose one (--bidir already "
			 "sends both ways)");
		return -EINVAL;
	}
	if (o->bytes && (o->reverse || o->bidir)) { /* as tcp-stream's -n */
		snprintf(err, errlen, "-n counts the bytes the clients send: not with --%s (the server "
			 "sends)", o->reverse ? "reverse" : "bidir");
		return -EINVAL;
	}
	/* -n: the coordinator waits for the clients' shares that long at most, each phase. */
	if (o->bytes)
		o->time_limit = OPT_IS_SET(o, duration) ? o->duration : 86400;
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
	if (o->bitrate && udp_stream_bitrate(o, err, errlen))
		return -EINVAL;
	if (o->rate && o->rate < o->clients) {
		snprintf(err, errlen, "--rate %ld is below one packet per second per client (--clients %ld)",
			 o->rate, o->clients);
		return -EINVAL;
	}
	/* A socket per peer in each client process (--bidir: a second, the receiving half's), as
	 * udp-rr checks: a short limit is a usage error before anything starts, not a run that
	 * moves nothing. */
	char what[64];
	long need = (o->peers + o->clients - 1) / o->clients * (o->bidir ? 2 : 1);

	snprintf(what, sizeof(what), "--peers %ld%s%s", o->peers, o->clients > 1 ? " / --clients"
		 : "", o->bidir ? " x 2 (--bidir)" : "");
	return nofile_ensure(need, what, err, errlen) ? -EINVAL : 0;
}

static void udp_stream_describe(const struct opts *o, char *buf, size_t len)
{
	char rate[80] = "full speed";

	if (o->bitrate)
		snprintf(rate, sizeof(rate), "%g Mbit/s (%ld packets/s)", (double)o->bitrate / 1e6,
			 o->rate);
	else if (o->rate)
		snprintf(rate, sizeof(rate), "%ld packets/s", o->rate);
	if (o->bytes)
		snprintf(rate + strlen(rate), sizeof(rate) - strlen(rate), " until %ld bytes are sent",
			 o->bytes);
	snprintf(buf, len,
		 "%ld client%s, %ld flow%s%s, %ld-byte datagrams at %s, io %s, batch %ld, gso %ld, "
		 "gro %s, %s, %ld server thread%s%s",
		 o->clients, o->clients > 1 ? "s" : "", o->peers, o->peers > 1 ? "s" : "",
		 o->bidir ? " both ways" : o->reverse ? " server to client" : "", o->size,
		 rate, io_find(o)->name, o->batch, o->gso, o->gro ? "on" : "off",
		 o->connected ? "connected" : "unconnected", o->server_threads,
		 o->server_threads > 1 ? "s" : "", o->rcvbuf ? ", receive buffer set" : "");
	if (io_spin_by_cpus(o) && !stream_receivers_here(o) && strlen(buf) < len)
		snprintf(buf + strlen(buf), len - strlen(buf),
			 ", receiver's host decides whether it tries before it sleeps");
	else if (io_spin_ns(o) && strlen(buf) < len)
		snprintf(buf + strlen(buf), len - strlen(buf),
			 ", receiver tries %u us before it sleeps", IO_SPIN_NS / 1000);
}

/* --wait auto: how the receiving side waits, and why. */
_Static_assert(IO_SPIN_NS == 5000, "the texts below say 5 us");

static int udp_stream_choices(const struct opts *o, const struct result *r, struct choice *out)
{
	enum io_wait w = io_wait_of(o, true);
	int64_t seen = r ? result_recv_spin_ns(r) : -1;
	uint64_t spin = seen >= 0 ? (uint64_t)seen : io_spin_ns(o);

	out[0] = (struct choice){"wait_receiver", w == IO_WAIT_BLOCK && spin
							  ? "block, retrying 5 us first"
							  : io_wait_name(w)};
	out[1] = (struct choice){"wait_receiver_reason",
				 spin != io_spin_ns(o) ? RECV_SPIN_ELSEWHERE
				 : seen < 0 && io_spin_by_cpus(o) && !stream_receivers_here(o)
					? RECV_SPIN_UNTOLD
					: io_spin_reason(o)};
	return 2;
}

/* ---- client ---- */

struct client {
	struct client_ctx *c;
	struct side_counters *cnt; /* the client's report, or the receiving half's own (--bidir) */
	bool receives;
	const struct io_ops *ops;
	struct io_ctx io;
	struct udp_window win;
	uint32_t flow0; /* the number of this client's first socket */
};

static int client_open(struct client *x, struct client_ctx *c, bool receives)
{
	const struct opts *o = c->o;
	struct sockaddr_storage any = {.ss_family = c->server.ss_family};
	size_t cap = (size_t)o->size * (size_t)(o->gso ? o->gso : 1);
	char why[200] = "";
	int ret;

	x->c = c;
	x->receives = receives;
	x->cnt = x->cnt ? x->cnt : &c->rep->c;
	x->cnt->recv_spin_told += receives; /* its wait: udp_window_follow's recv_spin_ns */
	x->ops = io_find(o);
	for (int i = 0; i < c->index; i++)
		x->flow0 += (uint32_t)share_of(o->peers, (int)o->clients, i);
	if (receives)
		cap = o->gro ? GRO_CAP : (size_t)o->size;
	x->io = (struct io_ctx){.o = o, .nsock = c->nsock, .connected = o->connected,
				.wait = io_wait_of(o, receives), .batch = (int)o->batch,
				.spin_ns = receives ? io_spin_ns(o) : 0,
				.depth = (int)o->batch, .cap = cap};
	x->io.fds = xcalloc((size_t)c->nsock, sizeof(int));
	for (int k = 0; k < c->nsock; k++)
		x->io.fds[k] = -1;
	cpus_pin(o, c->index, false);
	for (int k = 0; k < c->nsock; k++) {
		int fd = udp_socket(c->server.ss_family, o);

		if (fd < 0)
			return fd;
		x->io.fds[k] = fd;
		if ((ret = receives ? receiver_sockopts(fd, o, why, sizeof(why))
				      : sender_sockopts(fd, o, why, sizeof(why)))) {
			snprintf(c->rep->msg, sizeof(c->rep->msg), "client socket: %s", why);
			return ret;
		}
		if ((errno = -knobs_client(fd, o, &any, NULL)) ||
		    bind(fd, (struct sockaddr *)&any, c->server_len) < 0 ||
		    (o->connected && connect(fd, (struct sockaddr *)&c->server, c->server_len) < 0)) {
			snprintf(c->rep->msg, sizeof(c->rep->msg), "client socket: %s", strerror(errno));
			return -errno;
		}
		knobs_read(fd, &c->rep->sock);
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
	/* The receiving half of --bidir reads the phase only: the client's marks are the other's. */
	int ph = x->cnt == &x->c->rep->c ? client_follow_phase(x->c)
					 : atomic_load_explicit(&x->c->sh->phase, memory_order_acquire);

	return udp_window_follow(&x->win, ph, &x->io, x->cnt);
}

/* -n: --warmup seconds of sending, then this client's share of the bytes in the window, in
 * whole datagrams, its last call cut to the messages still owed: at most one message's
 * datagrams over (one, or --gso's). Its window (CPU marks) closes there; the caller waits for
 * the run's. */
static void client_send_bytes(struct client *x, struct sender *tx)
{
	const struct opts *o = x->c->o;
	struct client_report *rep = x->c->rep;
	uint64_t warm_end = now_ns() + (uint64_t)(o->warmup * 1e9), size = (uint64_t)o->size;
	uint64_t want = (uint64_t)share_of(o->bytes, (int)o->clients, x->c->index);
	uint64_t owed = (want + size - 1) / size; /* datagrams */
	struct timespec ms1 = {0, 1000000};

	while (client_phase(x) == PH_WARMUP && now_ns() < warm_end)
		sender_step(tx, 10000000);
	client_share_done(x->c->sh, true);
	while (client_phase(x) == PH_WARMUP)
		nanosleep(&ms1, NULL);
	while (client_phase(x) == PH_MEASURE && x->cnt->tx_packets < owed) {
		uint64_t msgs = (owed - x->cnt->tx_packets + (uint64_t)tx->segs - 1) / (uint64_t)tx->segs;

		sender_step_upto(tx, msgs < (uint64_t)tx->batch ? (int)msgs : tx->batch, 10000000);
	}
	if (rep->began && !rep->ended) {
		cpu_mark_take(&rep->end);
		rep->ended = true;
	}
	client_share_done(x->c->sh, false);
	while (client_phase(x) != PH_STOP)
		nanosleep(&ms1, NULL);
}

/* Send datagrams to the server from every socket, each its own flow. */
static void client_send(struct client *x)
{
	const struct opts *o = x->c->o;
	struct sender tx = {.ops = x->ops, .io = &x->io, .cnt = x->cnt, .win = &x->win,
			    .token = x->c->token};

	sender_init(&tx, o, x->c->nsock);
	for (int k = 0; k < x->c->nsock; k++)
		tx.tg[tx.ntg++] = (struct target){.sock = k, .flow = x->flow0 + (uint32_t)k,
						  .addr = x->c->server, .addrlen = x->c->server_len};
	client_wait_phase(x->c, PH_WARMUP);
	sender_rate(&tx, (double)(o->rate ? share_of(o->rate, (int)o->clients, x->c->index) : 0));
	if (o->bytes)
		client_send_bytes(x, &tx);
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
	struct receiver rx = {.o = o, .cnt = x->cnt, .token = x->c->token,
			      .flows = xcalloc((size_t)o->peers, sizeof(struct seq_flow))};
	int unheard = x->c->nsock, ph;
	uint64_t said = 0, closed = 0, filled = 0; /* after the window: the drain (DRAIN_*) */

	for (;;) {
		if ((ph = client_phase(x)) == PH_STOP && !closed) {
			closed = filled = now_ns();
			rx.draining = true;
		}
		if (closed && receiver_done(&rx, closed, filled))
			break;
		if (!closed && unheard && now_ns() - said > HELLO_EVERY_NS) {
			hello(x, heard);
			said = now_ns();
		}
		int n = x->ops->recv(&x->io, m, burst);

		if (n <= 0) {
			if (n < 0)
				count_err(rx.cnt, ERR_RECV, x->win.measuring);
			x->ops->wait(&x->io, closed ? DRAIN_QUIET_MS : UDP_SERVER_WAIT_MS);
			continue;
		}
		for (int i = 0; i < n; i++) {
			if (!same_host(&m[i].addr, &x->c->server)) {
				count_err(rx.cnt, ERR_FOREIGN, true);
				continue;
			}
			unheard -= !heard[m[i].sock];
			heard[m[i].sock] = true;
			if (receiver_take(&rx, &m[i], ph == PH_MEASURE) && closed)
				filled = now_ns();
		}
	}
	receiver_end(&rx);
	free(rx.flows);
	free(heard);
	msgs_free(m, burst);
}

static void *receive_main(void *arg)
{
	client_receive(arg);
	return NULL;
}

/* --bidir: a sending half on this thread, a receiving half on another with its own sockets
 * and counters, added to the client's at the end. */
static int bidir_client(struct client_ctx *c)
{
	struct side_counters rcnt = {0};
	struct client tx = {0}, rx = {.cnt = &rcnt};
	int ret = client_open(&tx, c, false);
	pthread_t tid;

	if (!ret)
		ret = client_open(&rx, c, true);
	client_ready(c, ret);
	if (!ret && (ret = -pthread_create(&tid, NULL, receive_main, &rx)))
		snprintf(c->rep->msg, sizeof(c->rep->msg), "client thread: %s", strerror(-ret));
	if (!ret) {
		client_send(&tx);
		pthread_join(tid, NULL);
		side_counters_add(&c->rep->c, &rcnt);
	}
	client_close(&rx);
	client_close(&tx);
	return ret;
}

static int udp_stream_client(struct client_ctx *c)
{
	struct client x = {0};
	int ret;

	if (c->o->bidir)
		return bidir_client(c);
	ret = client_open(&x, c, c->o->reverse);
	client_ready(c, ret);
	if (!ret && c->o->reverse)
		client_receive(&x);
	else if (!ret)
		client_send(&x);
	client_close(&x);
	return ret;
}

static const struct strategy udp_stream_strategies[] = {
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
	STRATEGY_ONE_CPU,
	{0},
};

const struct workload wl_udp_stream = {
	.name = "udp-stream",
	.summary = "UDP datagrams one way, at full speed or at --rate, with loss counted from "
		   "sequence numbers (netperf UDP_STREAM, iperf3 -u).",
	.opts = opts_udp_stream,
	.overrides = udp_stream_overrides,
	.unit = "packet",
	.latency_label = "none",
	.snmp_proto = "Udp",
	.shows = SHOWS_DATAGRAMS,
	.check = udp_stream_check,
	.count_based = udp_stream_count_based,
	.units = udp_stream_units,
	.live_units = udp_stream_live_units,
	.headline = udp_stream_headline,
	.holding = udp_stream_holding,
	.describe = udp_stream_describe,
	.choices = udp_stream_choices,
	.kernel_pairs = udp_stream_kernel_pairs,
	.server_open = udp_stream_server_open,
	.server_loop = udp_stream_server_loop,
	.server_close = udp_server_close,
	.client = udp_stream_client,
	.strategies = udp_stream_strategies,
};
