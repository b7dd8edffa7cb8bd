/* wl_udp_rr.c: UDP request/response with many requests outstanding (SCENARIOS.md B).
 *
 * Each client keeps --window requests in flight over its sockets (a burst at the start, then
 * one new request per answer) on unconnected sockets, and waits (--wait) only when nothing has
 * arrived. The server answers each request with a packet of the same size to whichever peer
 * sent it. A request carries a tag (slot and generation) so that an answer is matched to its
 * request, a request unanswered after --timeout is counted lost and replaced (the window never
 * shrinks), and an answer that comes after that is counted late, not as a transaction.
 * A request belongs to the window it was sent in: its answer is timed even when it comes after
 * the window closed (the drain: nothing new is sent, every request of the window is answered
 * or counted lost), and a lost one is in the latencies at the time it waited (censored, a
 * lower bound), so a stall near either edge is counted, not cut off.
 *
 * Both sides move datagrams only through an io back end (io.h): one per call, batches of
 * --batch with recvmmsg/sendmmsg, or io_uring. Answers read in one call are replaced by
 * requests sent in one call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/nofile.h"
#include "transport/io.h"
#include "transport/udp.h"
#include "measure/result.h"
#include "base/util.h"
#include "workload/openloop.h"
#include "workload/udp_rr_open.h"
#include "workload/workload.h"

#define SLOT_BITS 20
#define POLL_MAX_MS 10	  /* so a phase change is seen within this even when idle */

/* ---- options ---- */

/* 65,507: the largest UDP payload over IPv4. */
static const struct opt_override udp_rr_overrides[] = {
	{.field = "size", .def = "100", .min = 1, .max = 65507},
	{.field = "rate", .help = "open loop: requests per second over all clients, each sent on "
				  "its schedule whatever the answers do (0: closed loop, --window)"},
	{.field = "src_addrs", .help = "spread the client sockets over loopback source addresses "
				       "127.0.0.1..N, each with its own local ports (0: as many as "
				       "the peers need, ip_local_port_range)"},
	{0},
};

static int udp_rr_check(struct opts *o, char *err, size_t errlen)
{
	if (!o->peers)
		o->peers = o->clients;
	if (o->rate && !OPT_IS_SET(o, timeout))
		o->timeout = OL_TIMEOUT_MS;
	if (udp_rr_open_check(o, err, errlen))
		return -EINVAL;
	if (o->peers < o->clients) {
		snprintf(err, errlen, "--peers %ld is fewer than --clients %ld: each client needs a socket",
			 o->peers, o->clients);
		return -EINVAL;
	}
	if (!o->rate && o->peers > o->clients * o->window) {
		snprintf(err, errlen,
			 "--peers %ld is more than --clients x --window (%ld): every peer needs a request in flight",
			 o->peers, o->clients * o->window);
		return -EINVAL;
	}
	if (udp_io_check(o, err, errlen))
		return -EINVAL;
	if (o->wait == WAIT_BLOCK && o->peers != o->clients) {
		snprintf(err, errlen,
			 "--wait block is not applicable with --peers %ld > --clients %ld: a client "
			 "blocked on one socket cannot hear the others; use poll or epoll",
			 o->peers, o->clients);
		return -EINVAL;
	}
	/* The tag lives in the first min(size, 8) bytes: the slot, and in the bits left the
	 * request's generation, without which a late answer is taken for its slot's next request.
	 * One byte leaves a bit of generation only to 128 slots. */
	if (o->size == 1 && o->window > 128) {
		snprintf(err, errlen, "--window %ld needs --size 2 or more (a 1-byte request tags 128 "
			 "slots and the generation of each)", o->window);
		return -EINVAL;
	}
	if (udp_rr_ports_check(o, err, errlen))
		return -EINVAL;
	/* A socket a peer in each client process (a short limit: a usage error, before anything
	 * starts). */
	char what[64];

	snprintf(what, sizeof(what), "--peers %ld%s", o->peers, o->clients > 1 ? " / --clients" : "");
	return nofile_ensure((o->peers + o->clients - 1) / o->clients, what, err, errlen) ? -EINVAL : 0;
}

/* The sockets of the client with the most (the first clients take the remainder). */
static int nsock_most(const struct opts *o)
{
	return (int)((o->peers + o->clients - 1) / o->clients);
}

/* --wait auto, as the client with the most sockets resolves it, and the server's. */
static int udp_rr_choices(const struct opts *o, const struct result *r, struct choice *out)
{
	(void)r;
	int nsock = nsock_most(o);

	out[0] = (struct choice){"wait_client", io_wait_name(io_client_wait(o, nsock))};
	out[1] = (struct choice){"wait_client_reason", io_client_wait_reason(o, nsock)};
	out[2] = (struct choice){"wait_server", io_wait_name(io_wait_of(o, true))};
	return 3;
}

static void udp_rr_describe(const struct opts *o, char *buf, size_t len)
{
	size_t k = ol_describe_load(o, "", "outstanding", buf, len);

	snprintf(buf + k, len - k,
		 ", %ld-byte packets, %ld peer%s, %s, io %s, batch %ld, "
		 "wait %s%s, %ld server thread%s, checksums %s%s%s",
		 o->size, o->peers,
		 o->peers > 1 ? "s" : "", o->connected ? "connected" : "unconnected",
		 io_find(o)->name, o->batch, OPT_WORD(o, wait),
		 o->wait != WAIT_AUTO ? ""
		 : io_client_wait(o, nsock_most(o)) == IO_WAIT_EPOLL ? " (epoll)"
		 : io_client_wait(o, nsock_most(o)) == IO_WAIT_BLOCK
			 ? " (block: one request in flight on one socket)" : "",
		 o->server_threads,
		 o->server_threads > 1 ? "s" : "", o->no_check ? "off" : "on", o->pin ? ", pinned" : "",
		 o->busy_poll ? ", busy poll" : "");
	k = strlen(buf);
	if (o->src_addrs > 1 && k < len)
		snprintf(buf + k, len - k, ", %ld source addresses", o->src_addrs);
}

/* Every datagram in and out of this machine's UDP stack: the clients', and the server's when
 * it runs here (loopback counts both ends). */
static int udp_rr_kernel_pairs(const struct result *r, struct kernel_pair *out)
{
	uint64_t in = r->client.c.rx_packets, sent = r->client.c.tx_packets;

	if (r->server_local && r->server.present) {
		in += r->server.c.rx_packets;
		sent += r->server.c.tx_packets;
	}
	out[0] = (struct kernel_pair){"InDatagrams", in};
	out[1] = (struct kernel_pair){"OutDatagrams", sent};
	return 2;
}

/* ---- client ---- */

struct slot {
	uint64_t sent_ns;
	uint32_t gen;
	uint32_t sock;
	bool busy, unsent;
	bool counted; /* sent in the window: its answer or its loss is counted */
};

struct udp_client {
	struct client_ctx *c;
	struct client_report *rep;
	const struct io_ops *ops;
	struct io_ctx io;
	struct slot *slots;
	uint32_t window;
	size_t size;
	struct io_msg *rx, *tx;
	int limit; /* answers taken per recv call */
	int ntx;   /* requests queued in tx */
	uint32_t *tx_slot;
	uint64_t timeout_ns, next_scan;
	struct udp_window win;
	bool retry_pending;
	struct udp_rr_drain d;
};

/* How often unanswered requests are looked for: a quarter of --timeout, at most 10 ms. */
static uint64_t scan_every(const struct udp_client *u)
{
	return u->timeout_ns / 4 < 10000000 ? u->timeout_ns / 4 : 10000000;
}

/* Queue the next request of slot i; sent by flush(). */
static void queue_req(struct udp_client *u, uint32_t i, uint64_t now)
{
	struct slot *s = &u->slots[i];
	struct io_msg *m = &u->tx[u->ntx];
	/* A retry of an unsent request of the window stays the window's. */
	bool counted = u->win.measuring || (s->busy && s->unsent && s->counted);

	if (s->counted && s->busy)
		u->d.in_window--;
	s->sent_ns = now;
	s->busy = true;
	s->unsent = false;
	s->counted = counted;
	u->d.in_window += counted;
	udp_rr_put_request(m, u->size, u->window, i, ++s->gen, s->sock);
	u->tx_slot[u->ntx++] = i;
}

static void flush(struct udp_client *u)
{
	int sent = udp_rr_send_queued(u->ops, &u->io, u->tx, u->ntx, &u->rep->c, u->win.measuring);

	/* Socket buffer full or a transient error: retried by the scan, not counted lost. */
	for (int k = sent; k < u->ntx; k++) {
		u->slots[u->tx_slot[k]].unsent = true;
		u->retry_pending = true;
	}
	u->ntx = 0;
}

/* Below 8 bytes: the slot in as few bits as the window needs, the generation in the rest
 * (kept modulo their size: an answer that many re-sends of its slot late would be taken for
 * the current one). From 8 bytes: SLOT_BITS of slot, 32 of generation. */
static unsigned slot_bits(size_t size, uint32_t window)
{
	unsigned b = 1;

	if (size >= 8)
		return SLOT_BITS;
	while (b < 32 && (1ULL << b) < window)
		b++;
	return b;
}

static uint32_t gen_mask(size_t size, uint32_t window)
{
	unsigned left = size >= 8 ? 32 : 8 * (unsigned)size - slot_bits(size, window);

	return left >= 32 ? UINT32_MAX : (uint32_t)((1ULL << left) - 1);
}

uint64_t udp_rr_tag_make(size_t size, uint32_t window, uint32_t slot, uint32_t gen)
{
	return (uint64_t)(gen & gen_mask(size, window)) << slot_bits(size, window) | slot;
}

int udp_rr_tag(const uint8_t *buf, size_t len, size_t size, uint32_t window, uint32_t *slot,
	       uint32_t *gen)
{
	if (len != size)
		return -1;
	uint64_t tag = get_tag(buf, size);
	unsigned sb = slot_bits(size, window);

	*slot = (uint32_t)(tag & ((1ULL << sb) - 1));
	*gen = (uint32_t)(tag >> sb) & gen_mask(size, window);
	return *slot < window ? 0 : 1;
}

/* A slot done with (the drain sends nothing new). */
static void retire(struct udp_client *u, struct slot *s)
{
	u->d.in_window -= s->counted;
	s->busy = s->counted = false;
}

/* A request of the window that got no answer: lost, in the latencies at its wait. */
static void count_lost(struct udp_client *u, struct slot *s, uint64_t now)
{
	if (!s->counted)
		return;
	u->rep->c.lost++;
	hist_record_censored(&u->rep->lat, now - s->sent_ns);
}

static void on_answer(struct udp_client *u, const struct io_msg *m, uint64_t now)
{
	uint32_t i, gen;
	int r = m->trunc ? -1 : udp_rr_tag(m->buf, m->len, u->size, u->window, &i, &gen);

	u->rep->c.rx_packets += u->win.measuring;
	if (r < 0) {
		count_err(&u->rep->c, ERR_RECV, u->win.measuring);
		return;
	}
	struct slot *s = &u->slots[r == 0 ? i : 0];

	if (r || !s->busy || gen != (s->gen & gen_mask(u->size, u->window))) {
		u->rep->c.late += u->win.measuring;
		return;
	}
	if (s->counted) {
		hist_record(&u->rep->lat, now - s->sent_ns);
		u->rep->c.transactions++;
	}
	if (u->d.draining)
		retire(u, s);
	else
		queue_req(u, i, now);
}

/* Replace requests unanswered for longer than --timeout, retry unsent ones. */
static void scan_slots(struct udp_client *u, uint64_t now)
{
	u->retry_pending = false;
	for (uint32_t i = 0; i < u->window; i++) {
		struct slot *s = &u->slots[i];
		bool expired = s->busy && !s->unsent && now - s->sent_ns >= u->timeout_ns;

		if (!s->unsent && !expired)
			continue;
		if (expired)
			count_lost(u, s, now);
		if (u->d.draining) { /* nothing new: an unsent one of the window goes again */
			if (!s->unsent || !s->counted) {
				retire(u, s);
				continue;
			}
		}
		queue_req(u, i, now);
		if (u->ntx == u->limit)
			flush(u);
	}
	flush(u);
	u->next_scan = now + (u->retry_pending ? 1000000 : scan_every(u));
}

/* Take what has arrived and answer it with new requests, in one call each. Returns true when
 * nothing more can be waiting: fewer than asked came, or as many as are in flight (so with one
 * request outstanding a transaction is wait + receive + send, without a receive that fails). */
static bool take_answers(struct udp_client *u, uint64_t *now)
{
	int n = u->ops->recv(&u->io, u->rx, u->limit);

	if (n <= 0) {
		if (n < 0)
			count_err(&u->rep->c, ERR_RECV, u->win.measuring);
		*now = now_ns();
		return true;
	}
	*now = now_ns();
	for (int k = 0; k < n; k++)
		on_answer(u, &u->rx[k], *now);
	flush(u);
	return n < u->limit || (uint32_t)u->limit == u->window;
}

/* Follow the coordinator's phase; false once the run is over. In the drain, say once when
 * nothing of the window is in flight; at the stop after a drain, what still is was lost. */
static bool follow_phase(struct udp_client *u, uint64_t now)
{
	int ph = udp_window_follow(&u->win, client_follow_phase(u->c), &u->io, &u->rep->c);

	if (udp_rr_drain_follow(&u->d, ph, u->c))
		for (uint32_t i = 0; i < u->window; i++)
			if (u->slots[i].busy)
				count_lost(u, &u->slots[i], now);
	return ph != PH_STOP;
}

static int client_open(struct udp_client *u, struct client_ctx *c)
{
	const struct opts *o = c->o;

	u->c = c;
	u->rep = c->rep;
	u->ops = io_find(o);
	u->window = (uint32_t)o->window;
	u->size = (size_t)o->size;
	u->timeout_ns = (uint64_t)o->timeout * 1000000;
	/* Without --batch, an answer read, its new request sent, then the next: read one at a
	 * time, the window stays full (the minimal loop's order; reading 64 before sending any
	 * left up to 64 slots empty at once: 1.04x the transactions, 6 alternating rounds). */
	u->limit = (int)(o->batch > 1 ? o->batch : 1);
	if ((uint32_t)u->limit > u->window)
		u->limit = (int)u->window;
	udp_rr_io_init(&u->io, c, (int)o->window);
	u->slots = xcalloc(u->window, sizeof(*u->slots));
	u->tx_slot = xcalloc((size_t)u->limit, sizeof(*u->tx_slot));
	u->rx = msgs_alloc(u->limit, u->size);
	u->tx = udp_rr_requests(c, u->limit, u->size);
	for (uint32_t i = 0; i < u->window; i++)
		u->slots[i].sock = i % (uint32_t)c->nsock;
	drain_register(c, 1);
	return udp_rr_open_io(u->ops, &u->io, c);
}

static void client_close(struct udp_client *u)
{
	udp_rr_close_io(u->ops, &u->io);
	free(u->slots);
	free(u->tx_slot);
	msgs_free(u->rx, u->limit);
	msgs_free(u->tx, u->limit);
}

static int udp_rr_client(struct client_ctx *c)
{
	if (c->o->rate) /* open loop: udp_rr_open.c */
		return udp_rr_open_client(c);

	struct udp_client u = {0};
	int ret = client_ready_wait(c, client_open(&u, c));

	if (ret) {
		client_close(&u);
		return ret;
	}

	uint64_t now = now_ns();

	/* The burst: every slot's first request. */
	for (uint32_t i = 0; i < u.window; i++) {
		queue_req(&u, i, now);
		if (u.ntx == u.limit)
			flush(&u);
	}
	flush(&u);
	u.next_scan = now + 1000000;
	while (follow_phase(&u, now)) {
		bool drained = take_answers(&u, &now);

		if (now >= u.next_scan) {
			scan_slots(&u, now);
		} else if (drained) {
			int ms = (int)((u.next_scan - now) / 1000000) + 1;

			u.ops->wait(&u.io, ms < POLL_MAX_MS ? ms : POLL_MAX_MS);
		}
	}
	client_close(&u);
	return 0;
}

/* The report's own ideas and today's: batching syscalls, a cached route, io_uring, other ways
 * to wait, no checksums, more server threads (spread by the kernel's hash, or steered to the
 * clients' CPUs), pinning, busy polling. */
static const struct strategy udp_rr_strategies[] = {
	{"connected sockets", "route", "--connected", false},
	{"batch 8 (recvmmsg/sendmmsg)", "calls", "--batch 8", false},
	{"batch 32 (recvmmsg/sendmmsg)", "calls", "--batch 32", false},
	{"batch 64 (recvmmsg/sendmmsg)", "calls", "--batch 64", false},
	{"io_uring", "calls", "--io uring", false},
	{"io_uring, batch 32", "calls", "--io uring --batch 32", false},
	{"io_uring, batch 32, SQPOLL", "calls", "--io uring --batch 32 --sqpoll", false},
	{"wait in epoll_wait", "wait", "--wait epoll", false},
	{"busy wait (spin)", "wait", "--wait busy", false},
	{"block in recvmsg", "wait", "--wait block", false},
	{"no UDP checksums", "csum", "--no-check", false},
	{"2 server threads (SO_REUSEPORT)", "threads", "--server-threads 2", false},
	/* The kernel's hash spreads the clients over the threads by their ports: both on one
	 * thread in half the runs (155k or 208k/s, run by run, here). Steered, each client's
	 * datagrams go to the thread on the CPU they arrive on (where the client sends them, on
	 * loopback), so client and server never wait on each other across CPUs: 210k/s in every
	 * run alone, 745k/s with --batch 64 where batching alone gives 250k/s. */
	{"2 server threads on the clients' CPUs (SO_REUSEPORT steered by SO_INCOMING_CPU)",
	 "threads", "--server-threads 2 --cpus client=0-1,server=0-1", false},
	STRATEGIES_EVERY_SERVER,
	{0},
};

const struct workload wl_udp_rr = {
	.name = "udp-rr",
	.summary = "UDP request/response, many requests outstanding, unconnected sockets "
		   "(defaults: the classic report, 2 clients x 100 outstanding, 100-byte packets).",
	.opts = opts_udp_rr,
	.overrides = udp_rr_overrides,
	.snmp_proto = "Udp",
	.unit = "transaction",
	.latency_label = "round trip",
	.check = udp_rr_check,
	.describe = udp_rr_describe,
	.choices = udp_rr_choices,
	.headline = ol_headline,
	.kernel_pairs = udp_rr_kernel_pairs,
	.server_open = udp_rr_server_open,
	.server_loop = udp_rr_server_loop,
	.server_close = udp_server_close,
	.client = udp_rr_client,
	.drains = true,
	.strategies = udp_rr_strategies,
};
