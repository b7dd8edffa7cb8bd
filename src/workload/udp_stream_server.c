/* udp_stream_server.c: udp-stream's server side (wl_udp_stream.c has the workload and its
 * client): it receives every flow and counts it, or with --reverse takes the clients' hellos
 * and sends to each flow. Both through udp_stream_flow.c's receiver and sender. */
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
		if (!peer_allowed(t->s, &m[i].addr) || m[i].len != HDR_LEN ||
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

int udp_stream_server_open(struct server_ctx *s, char *err, size_t errlen)
{
	return udp_server_open(s, prepare_server, err, errlen);
}

void udp_stream_server_loop(struct server_ctx *s)
{
	const struct opts *o = s->o;

	if (o->reverse)
		udp_server_run(s, (size_t)o->size * (size_t)(o->gso ? o->gso : 1), (int)o->batch,
			       (int)o->batch, true, send_loop);
	else
		udp_server_run(s, o->gro ? GRO_CAP : (size_t)o->size,
			       (int)(o->batch > 1 ? o->batch : UDP_RX_BURST), 4, false, receive_loop);
}
