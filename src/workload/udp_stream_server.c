/* udp_stream_server.c: udp-stream's server side (wl_udp_stream.c has the workload and its
 * client): it receives every flow and counts it, or with --reverse takes the clients' hellos
 * and sends to each flow, or with --bidir both at once. All through udp_stream_flow.c's receiver and sender. */
#include "base/util.h"
#include "measure/result.h"
#include "workload/udp_stream.h"
#include "workload/udp_stream_server.h"
#include "workload/workload.h"

static void receive_loop(struct udp_srv_thread *t, const struct io_ops *ops, struct io_ctx *io)
{
	struct server_ctx *s = t->s;
	int burst = io->batch;
	struct io_msg *m = msgs_alloc(burst, io->cap);
	struct receiver rx = {.o = s->o, .cnt = &t->c, .flows = t->priv, .token = s->token};

	t->c.recv_spin_told = 1; /* its wait: udp_window_follow's recv_spin_ns */

	uint64_t closed = 0, filled = 0; /* after the window: the drain (DRAIN_*) */

	for (;;) {
		int ph = udp_server_phase(t, io);

		if (ph == PH_STOP && !closed) {
			closed = filled = now_ns();
			rx.draining = true;
		}
		if (closed && receiver_done(&rx, closed, filled))
			break;
		bool measuring = ph == PH_MEASURE;
		int n = closed ? ops->recv(io, m, burst) : udp_server_recv(t, ops, io, m, burst);

		if (closed && n <= 0) {
			ops->wait(io, DRAIN_QUIET_MS);
			continue;
		}
		for (int i = 0; i < n; i++) {
			if (!peer_allowed(s, &m[i].addr)) {
				count_err(&t->c, ERR_FOREIGN, true);
				continue;
			}
			if (receiver_take(&rx, &m[i], measuring) && closed)
				filled = now_ns();
		}
	}
	msgs_free(m, burst);
	receiver_end(&rx);
}

/* --reverse, --bidir: a client's hello (a header alone, HELLO magic)? */
static bool is_hello(const struct io_msg *m)
{
	struct seq_hdr h = {0};

	if (m->len != HDR_LEN)
		return false;
	seq_hdr_get(m->buf, m->len, &h);
	return h.magic == HDR_MAGIC_HELLO;
}

/* A client's hello: a new flow becomes a target, sent to only on the controller's host (an
 * agent is no reflector). */
static void hello_take(struct udp_srv_thread *t, struct sender *x, const struct io_msg *m)
{
	const struct opts *o = t->s->o;
	struct seq_hdr h = {0};
	uint32_t flow;

	seq_hdr_get(m->buf, m->len, &h);
	flow = h.flow;
	if (!peer_allowed(t->s, &m->addr) || m->len != HDR_LEN || h.magic != HDR_MAGIC_HELLO ||
	    h.token != t->s->token || flow >= (uint32_t)o->peers) {
		count_err(&t->c, ERR_FOREIGN, true);
		return;
	}
	for (int k = 0; k < x->ntg; k++)
		if (x->tg[k].flow == flow)
			return;
	x->tg[x->ntg++] = (struct target){.flow = flow, .addr = m->addr, .addrlen = m->addrlen};
	/* Each flow gets its share of --rate. */
	sender_rate(x, (double)o->rate * x->ntg / (double)o->peers);
}

/* --reverse: take the clients' hellos. */
static void take_hellos(struct udp_srv_thread *t, struct sender *x, struct io_msg *m, int n)
{
	int got = x->ops->recv(x->io, m, n);

	for (int i = 0; i < got; i++)
		hello_take(t, x, &m[i]);
}

static void send_loop(struct udp_srv_thread *t, const struct io_ops *ops, struct io_ctx *io)
{
	const struct opts *o = t->s->o;
	struct sender x = {.ops = ops, .io = io, .cnt = &t->c, .win = &t->win, .token = t->s->token};
	struct io_msg *in = msgs_alloc(UDP_RX_BURST, io->cap);
	unsigned loops = 0;

	sender_init(&x, o, (int)o->peers);
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

/* --bidir: receive every flow the clients send and send to every flow that said hello, in
 * one loop on one socket: nothing waits while there is something to send. No drain after the
 * window (see DRAIN_*): a datagram reordered past its end counts as lost. */
static void bidir_loop(struct udp_srv_thread *t, const struct io_ops *ops, struct io_ctx *io)
{
	const struct opts *o = t->s->o;
	int burst = io->batch;
	struct io_msg *m = msgs_alloc(burst, io->cap);
	struct receiver rx = {.o = o, .cnt = &t->c, .flows = t->priv, .token = t->s->token};
	struct sender x = {.ops = ops, .io = io, .cnt = &t->c, .win = &t->win, .token = t->s->token};
	int ph;

	t->c.recv_spin_told = 1;

	sender_init(&x, o, (int)o->peers);
	while ((ph = udp_server_phase(t, io)) != PH_STOP) {
		int n = ops->recv(io, m, burst);

		if (n < 0)
			count_err(&t->c, ERR_RECV, t->win.measuring);
		for (int i = 0; i < n; i++) {
			if (is_hello(&m[i]))
				hello_take(t, &x, &m[i]);
			else if (!peer_allowed(t->s, &m[i].addr))
				count_err(&t->c, ERR_FOREIGN, true);
			else
				receiver_take(&rx, &m[i], ph == PH_MEASURE);
		}
		if (x.ntg)
			sender_step(&x, 1000000ULL); /* paced: sleep 1 ms at most, then receive */
		else if (n <= 0)
			ops->wait(io, UDP_SERVER_WAIT_MS);
	}
	receiver_end(&rx);
	sender_free(&x);
	msgs_free(m, burst);
}

/* Before each server socket's bind: its flows, and the options of its side (both: --bidir). */
static int prepare_server(struct udp_srv_thread *t, char *err, size_t errlen)
{
	const struct opts *o = t->s->o;
	int ret;

	if (o->reverse || o->bidir)
		if ((ret = sender_sockopts(t->fd, o, err, errlen)) || o->reverse)
			return ret;
	t->priv = xcalloc((size_t)o->peers, sizeof(struct seq_flow));
	return receiver_sockopts(t->fd, o, err, errlen);
}

int udp_stream_server_open(struct server_ctx *s, char *err, size_t errlen)
{
	return udp_server_open(s, prepare_server, err, errlen);
}

void udp_stream_server_loop(struct server_ctx *s)
{
	const struct opts *o = s->o;

	size_t tx_cap = (size_t)o->size * (size_t)(o->gso ? o->gso : 1);
	size_t rx_cap = o->gro ? GRO_CAP : (size_t)o->size;
	int rx_batch = (int)(o->batch > 1 ? o->batch : UDP_RX_BURST);

	if (o->bidir)
		udp_server_run(s, tx_cap > rx_cap ? tx_cap : rx_cap, rx_batch, rx_batch, true,
			       bidir_loop);
	else if (o->reverse)
		udp_server_run(s, (size_t)o->size * (size_t)(o->gso ? o->gso : 1), (int)o->batch,
			       (int)o->batch, true, send_loop);
	else {
		/* Receive only: with a CPU to spare it tries again before it sleeps (io_spin_ns). */
		((struct udp_server *)s->priv)->spin_ns = io_spin_ns(o);
		udp_server_run(s, o->gro ? GRO_CAP : (size_t)o->size,
			       (int)(o->batch > 1 ? o->batch : UDP_RX_BURST), 4, false, receive_loop);
	}
}
