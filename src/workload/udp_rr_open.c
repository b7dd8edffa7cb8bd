/* udp_rr_open.c: udp-rr driven open loop (--rate).
 *
 * Each client process sends its share of --rate on its own schedule (openloop.h), on its
 * sockets in turn, whatever the answers do: nothing waits for an answer, so a slow server
 * makes requests pile up in flight, never the schedule slip. Up to OL_INFLIGHT_MAX requests are
 * in flight per process; a request due when all are taken is dropped by the generator (counted;
 * the run then does not hold its load). A request carries its slot and generation in a tag, as
 * in the closed loop; one unanswered after --timeout is counted lost, in the latencies at the
 * time it waited (censored: a lower bound), and its slot freed. The default --timeout is long
 * (OL_TIMEOUT_MS): an answer is timed however late it comes, within it. A request due in the
 * window is the window's: after the window closes nothing new is due, and the drain waits for
 * the window's requests to be answered or timed out.
 * Slots are taken from a stack, so those in use stay at the low indices and the timeout scan
 * covers only up to the highest slot used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/util.h"
#include "transport/io.h"
#include "transport/udp.h"
#include "transport/knobs.h"
#include "workload/flow_plan.h"
#include "workload/openloop.h"
#include "workload/udp_rr_open.h"
#include "workload/workload.h"

#define POLL_MAX_MS 10	 /* so a phase change is seen within this even when idle */
#define RETRY_NS 1000000 /* an unsent request is tried again after this */

struct ol_slot {
	uint64_t due_ns, sent_ns;
	uint32_t gen, sock;
	bool busy, unsent;
	bool counted; /* due in the window */
};

struct uo_client {
	struct client_ctx *c;
	struct client_report *rep;
	const struct io_ops *ops;
	struct io_ctx io;
	struct ol_slot *slots;
	uint32_t *free, nfree, hwm; /* free slots (a stack); one past the highest ever used */
	size_t size;
	struct io_msg *rx, *tx;
	int limit, ntx;
	uint32_t *tx_slot, next_sock;
	uint64_t timeout_ns, next_scan;
	struct udp_window win;
	struct ol_gen gen;
	struct udp_rr_drain d; /* in_window: requests due in the window, in flight */
};

void udp_rr_put_request(struct io_msg *m, size_t size, uint32_t window, uint32_t slot,
			uint32_t gen, uint32_t sock)
{
	put_tag(m->buf, size, udp_rr_tag_make(size, window, slot, gen));
	m->sock = (int)sock;
}

int udp_rr_send_queued(const struct io_ops *ops, struct io_ctx *io, struct io_msg *tx, int n,
		       struct side_counters *c, bool measuring)
{
	int sent = n ? ops->send(io, tx, n) : 0;

	if (sent < 0)
		sent = 0;
	c->tx_packets += measuring ? (uint64_t)sent : 0;
	for (int k = sent; k < n; k++)
		count_err(c, ERR_SEND, measuring);
	return sent;
}

bool udp_rr_drain_follow(struct udp_rr_drain *d, int ph, struct client_ctx *c)
{
	d->draining |= ph == PH_DRAIN;
	if (d->draining && !d->in_window && !d->drained) {
		d->drained = true;
		drain_done(c);
	}
	return ph == PH_STOP && d->draining;
}

static void queue_slot(struct uo_client *u, uint32_t i, uint64_t now)
{
	struct ol_slot *s = &u->slots[i];
	struct io_msg *m = &u->tx[u->ntx];

	s->sent_ns = now;
	s->unsent = false;
	udp_rr_put_request(m, u->size, OL_INFLIGHT_MAX, i, ++s->gen, s->sock);
	u->tx_slot[u->ntx++] = i;
}

static void flush(struct uo_client *u)
{
	int sent = udp_rr_send_queued(u->ops, &u->io, u->tx, u->ntx, &u->rep->c, u->win.measuring);

	for (int k = sent; k < u->ntx; k++) { /* retried by the scan, timed from its due time */
		u->slots[u->tx_slot[k]].unsent = true;
		u->next_scan = u->slots[u->tx_slot[k]].sent_ns + RETRY_NS;
	}
	u->ntx = 0;
}

static void free_slot(struct uo_client *u, uint32_t i)
{
	u->d.in_window -= u->slots[i].counted;
	u->slots[i].counted = false;
	u->slots[i].busy = false;
	u->free[u->nfree++] = i;
}

/* Every arrival due by now: a request each, on a free slot, or dropped when none is free. */
static void send_due(struct uo_client *u, uint64_t now)
{
	while (u->gen.sched.next_ns <= now) {
		uint64_t due = ol_gen_take(&u->gen);

		if (!u->nfree) {
			u->rep->c.gen_dropped += u->win.measuring;
			continue;
		}
		uint32_t i = u->free[--u->nfree];
		struct ol_slot *s = &u->slots[i];

		if (i >= u->hwm)
			u->hwm = i + 1;
		s->busy = true;
		s->counted = u->win.measuring;
		u->d.in_window += s->counted;
		s->due_ns = due;
		s->sock = u->next_sock++ % (uint32_t)u->io.nsock;
		if (u->win.measuring)
			ol_lag_note(&u->gen.lag, due, now);
		queue_slot(u, i, now);
		if (u->ntx == u->limit)
			flush(u);
	}
	flush(u);
}

static void on_answer(struct uo_client *u, const struct io_msg *m, uint64_t now)
{
	uint32_t i, gen;
	int r = m->trunc ? -1 : udp_rr_tag(m->buf, m->len, u->size, OL_INFLIGHT_MAX, &i, &gen);

	u->rep->c.rx_packets += u->win.measuring;
	if (r < 0) {
		count_err(&u->rep->c, ERR_RECV, u->win.measuring);
		return;
	}
	struct ol_slot *s = &u->slots[r == 0 ? i : 0];
	bool current = udp_rr_tag_make(u->size, OL_INFLIGHT_MAX, i, gen) ==
		       udp_rr_tag_make(u->size, OL_INFLIGHT_MAX, i, s->gen);

	if (r || !s->busy || s->unsent || !current) {
		u->rep->c.late += u->win.measuring;
		return;
	}
	if (s->counted) {
		ol_record(&u->rep->lat, &u->rep->lat2, s->due_ns, s->sent_ns, now);
		u->rep->c.transactions++;
	}
	free_slot(u, i);
}

/* A request of the window that got no answer: lost, in the latencies at its wait since due
 * (and in the service times at its wait since sent). */
static void count_lost(struct uo_client *u, const struct ol_slot *s, uint64_t now)
{
	if (!s->counted)
		return;
	u->rep->c.lost++;
	hist_record_censored(&u->rep->lat, now > s->due_ns ? now - s->due_ns : 0);
	hist_record_censored(&u->rep->lat2, now > s->sent_ns ? now - s->sent_ns : 0);
}

/* Free the slots of requests unanswered for --timeout (lost); send again those unsent. */
static void scan_slots(struct uo_client *u, uint64_t now)
{
	u->next_scan = now + (u->timeout_ns / 4 < 10000000 ? u->timeout_ns / 4 : 10000000);
	for (uint32_t i = 0; i < u->hwm; i++) {
		struct ol_slot *s = &u->slots[i];

		if (s->busy && s->unsent) {
			queue_slot(u, i, now);
			if (u->ntx == u->limit)
				flush(u);
		} else if (s->busy && now - s->sent_ns >= u->timeout_ns) {
			count_lost(u, s, now);
			free_slot(u, i);
		}
	}
	flush(u);
}

/* Take what has arrived; true when nothing more can be waiting. */
static bool take_answers(struct uo_client *u, uint64_t *now)
{
	int n = u->ops->recv(&u->io, u->rx, u->limit);

	*now = now_ns();
	if (n < 0)
		count_err(&u->rep->c, ERR_RECV, u->win.measuring);
	for (int k = 0; k < n; k++)
		on_answer(u, &u->rx[k], *now);
	return n < u->limit;
}

/* Follow the phase; at the window's edges, what the schedule put in it and the lag. */
static bool follow_phase(struct uo_client *u, uint64_t now)
{
	int ph = udp_window_follow(&u->win, client_follow_phase(u->c), &u->io, &u->rep->c);

	ol_gen_follow(&u->gen, u->win.measuring, now, &u->rep->c);
	if (udp_rr_drain_follow(&u->d, ph, u->c))
		for (uint32_t i = 0; i < u->hwm; i++)
			if (u->slots[i].busy)
				count_lost(u, &u->slots[i], now);
	return ph != PH_STOP;
}

/* Sleep until the next send is due, the next scan, or an answer, whichever comes first. */
static void wait_next(struct uo_client *u, uint64_t now)
{
	uint64_t until = u->gen.sched.next_ns < u->next_scan && !u->d.draining
			     ? u->gen.sched.next_ns
			     : u->next_scan;
	uint64_t dt = until > now ? until - now : 0, cap = POLL_MAX_MS * 1000000ULL;

	if (dt > cap)
		dt = cap;
	if (u->ops->wait_ns)
		u->ops->wait_ns(&u->io, dt);
	else if (dt >= 1000000)
		u->ops->wait(&u->io, (int)(dt / 1000000));
	/* else: under a millisecond with a back end that cannot wait less: spin */
}

/* The local ports this run's clients have: the range a local run's --sysctl sets (the clients
 * run on its host; its lines are KEY=VALUE, the key as given), else this host's. */
static long client_ports(const struct opts *o)
{
	static const char key[] = "net.ipv4.ip_local_port_range=";
	long lo, hi;

	for (const char *l = o->server ? NULL : o->sysctl; l && *l; l = strchr(l, '\n')) {
		l += *l == '\n';
		if (!strncmp(l, key, sizeof(key) - 1) &&
		    sscanf(l + sizeof(key) - 1, "%ld %ld", &lo, &hi) == 2)
			return flow_plan_ports(lo, hi);
	}
	return flow_plan_local_ports();
}

int udp_rr_ports_check(struct opts *o, char *err, size_t errlen)
{
	/* A local port a peer, from the one range all the local clients share: past it a client's
	 * bind fails with EADDRINUSE. */
	long ports = client_ports(o);
	bool spread = !o->server && !o->ipv6 && !o->clients_on && !o->bind;

	if (o->src_addrs > 1 && !spread) {
		snprintf(err, errlen, "--src-addrs %ld: a local run on IPv4 loopback only (127.0.0.1..N), "
			 "without --bind", o->src_addrs);
		return -EINVAL;
	}
	long usable = ports * 9 / 10 > 0 ? ports * 9 / 10 : 1; /* as tcp-crr plans */

	if (!o->src_addrs)
		o->src_addrs = spread && o->peers > usable ? (o->peers + usable - 1) / usable : 1;
	if (o->src_addrs > 254)
		o->src_addrs = 254;
	if (!o->clients_on && o->peers > ports * o->src_addrs) {
		snprintf(err, errlen, "--peers %ld needs as many local ports, and "
			 "net.ipv4.ip_local_port_range gives %ld on each of %ld source address%s: widen "
			 "it (--sysctl net.ipv4.ip_local_port_range=\"1024 65535\" for this run only: "
			 "%d ports), give more --src-addrs, or use %ld peers at most", o->peers, ports,
			 o->src_addrs, o->src_addrs > 1 ? "es" : "", 65535 - 1024 + 1, ports * o->src_addrs);
		return -EINVAL;
	}
	return 0;
}

/* A client's UDP sockets into io->fds (io->nsock of them), bound, and connected with
 * --connected; both loops open theirs so (through udp_rr_open_io). 0 or -errno. */
static int udp_rr_open_sockets(struct io_ctx *io, struct client_ctx *c)
{
	struct sockaddr_storage any = {.ss_family = c->server.ss_family};

	for (int k = 0; k < io->nsock; k++) {
		int fd = udp_socket(c->server.ss_family, c->o);

		if (fd < 0)
			return fd;
		io->fds[k] = fd;
		if ((fd = knobs_client(fd, c->o, &any, NULL)))
			return fd;
		if (c->o->src_addrs > 1 && any.ss_family == AF_INET) /* each address its own ports */
			((struct sockaddr_in *)&any)->sin_addr.s_addr =
				htonl(0x7f000001u + (uint32_t)((c->index + k) % c->o->src_addrs));
		if (bind(io->fds[k], (struct sockaddr *)&any, c->server_len) < 0) {
			int e = errno;

			if (e == EADDRINUSE) /* a port 0 bind: the local range is used up */
				snprintf(c->rep->msg, sizeof(c->rep->msg), "client sockets: no local port "
					 "left for socket %d of %d (net.ipv4.ip_local_port_range: other "
					 "sockets hold the rest)", k + 1, io->nsock);
			return -e;
		}
		if (c->o->connected && connect(io->fds[k], (struct sockaddr *)&c->server, c->server_len) < 0)
			return -errno;
		knobs_read(io->fds[k], &c->rep->sock);
	}
	return 0;
}

static void alloc_client(struct uo_client *u, struct client_ctx *c)
{
	const struct opts *o = c->o;

	u->c = c;
	u->rep = c->rep;
	u->ops = io_find(o);
	u->size = (size_t)o->size;
	u->timeout_ns = (uint64_t)o->timeout * 1000000;
	u->limit = (int)(o->batch > 1 ? o->batch : UDP_RX_BURST);
	udp_rr_io_init(&u->io, c, OL_INFLIGHT_MAX);
	u->slots = xcalloc(OL_INFLIGHT_MAX, sizeof(*u->slots));
	u->free = xcalloc(OL_INFLIGHT_MAX, sizeof(*u->free));
	for (uint32_t i = 0; i < OL_INFLIGHT_MAX; i++) /* popped from the top: 0 first */
		u->free[i] = OL_INFLIGHT_MAX - 1 - i;
	u->nfree = OL_INFLIGHT_MAX;
	u->tx_slot = xcalloc((size_t)u->limit, sizeof(*u->tx_slot));
	u->rx = msgs_alloc(u->limit, u->size);
	u->tx = udp_rr_requests(c, u->limit, u->size);
	u->gen.lag.h = xmalloc(sizeof(*u->gen.lag.h));
	hist_reset(u->gen.lag.h);
	drain_register(c, 1);
}

void udp_rr_io_init(struct io_ctx *io, struct client_ctx *c, int depth)
{
	const struct opts *o = c->o;

	*io = (struct io_ctx){.o = o, .nsock = c->nsock, .connected = o->connected,
			      .wait = io_client_wait(o, c->nsock), .batch = (int)o->batch,
			      .depth = depth, .cap = (size_t)o->size};
	io->fds = xcalloc((size_t)c->nsock, sizeof(int));
	for (int k = 0; k < c->nsock; k++)
		io->fds[k] = -1;
}

int udp_rr_open_io(const struct io_ops *ops, struct io_ctx *io, struct client_ctx *c)
{
	char why[200] = "";
	int ret;

	cpus_pin(c->o, c->index, false);
	ret = udp_rr_open_sockets(io, c);
	if (ret) {
		if (!c->rep->msg[0])
			snprintf(c->rep->msg, sizeof(c->rep->msg), "client sockets: %s", strerror(-ret));
		return ret;
	}
	ret = ops->open(io, why, sizeof(why));
	if (ret)
		snprintf(c->rep->msg, sizeof(c->rep->msg), "%s", why[0] ? why : strerror(-ret));
	return ret;
}

void udp_rr_close_io(const struct io_ops *ops, struct io_ctx *io)
{
	if (ops)
		ops->close(io);
	for (int k = 0; k < io->nsock; k++)
		if (io->fds[k] >= 0)
			close(io->fds[k]);
	free(io->fds);
}

struct io_msg *udp_rr_requests(struct client_ctx *c, int n, size_t size)
{
	struct io_msg *m = msgs_alloc(n, size);

	for (int k = 0; k < n; k++) {
		m[k].len = size;
		m[k].addr = c->server;
		m[k].addrlen = c->server_len;
	}
	return m;
}

static void client_close(struct uo_client *u)
{
	udp_rr_close_io(u->ops, &u->io);
	free(u->slots);
	free(u->free);
	free(u->tx_slot);
	free(u->gen.lag.h);
	msgs_free(u->rx, u->limit);
	msgs_free(u->tx, u->limit);
}

int udp_rr_open_client(struct client_ctx *c)
{
	struct uo_client u = {0};
	int ret;
	double rate = (double)c->o->rate / (double)c->o->clients;

	alloc_client(&u, c);
	ret = client_ready_wait(c, udp_rr_open_io(u.ops, &u.io, c));
	if (ret) {
		client_close(&u);
		return ret;
	}

	/* The clients' schedules interleave: client i starts i / rate after the first. */
	uint64_t now = now_ns();

	ol_sched_init(&u.gen.sched, rate, c->o->arrivals, (uint64_t)c->index + 1,
		      now + (uint64_t)(1e9 * c->index / (double)c->o->rate));
	u.next_scan = now + 1000000;
	while (follow_phase(&u, now)) {
		if (!u.d.draining)
			send_due(&u, now_ns());
		bool drained = take_answers(&u, &now);

		if (now >= u.next_scan)
			scan_slots(&u, now);
		else if (drained && (u.d.draining || u.gen.sched.next_ns > now))
			wait_next(&u, now);
		now = now_ns();
	}
	client_close(&u);
	return 0;
}

/* udp-rr's own reasons against --rate, or NULL. */
static const char *udp_open_refusal(const struct opts *o)
{
	if (o->wait == WAIT_BLOCK)
		return "--wait block is not applicable with --rate: a client blocked in recvmsg "
		       "cannot send on its schedule";
	if (o->io == IO_URING)
		return "--io uring is not applicable with --rate yet: use msg or mmsg";
	if (o->size < 4)
		return "--rate needs --size 4 or more (the tag of a request in flight)";
	if (o->peers > o->clients * OL_INFLIGHT_MAX)
		return "--peers is more than --clients x 65536: every socket needs a request in "
		       "flight";
	return NULL;
}

int udp_rr_open_check(const struct opts *o, char *err, size_t errlen)
{
	const char *why = ol_check(o, "65536 in flight per client", 100);

	if (!why && o->rate)
		why = udp_open_refusal(o);
	if (why)
		snprintf(err, errlen, "%s", why);
	return why ? -EINVAL : 0;
}
