/* udp_rr_server.c: udp-rr's server side: it answers each request with a datagram of the same
 * size to whichever peer sent it (its controller's host, or a client host of the test), in
 * batches of --batch through the io back end, one thread or --server-threads of them. */
#include <stdio.h>

#include "transport/io.h"
#include "transport/udp.h"
#include "workload/udp_rr_open.h"
#include "workload/workload.h"

int udp_rr_server_open(struct server_ctx *s, char *err, size_t errlen)
{
	return udp_server_open(s, NULL, err, errlen);
}

static void serve_batches(struct udp_srv_thread *t, const struct io_ops *ops, struct io_ctx *io)
{
	struct server_ctx *s = t->s;
	int batch = (int)(s->o->batch > 1 ? s->o->batch : 1);
	struct io_msg *m = msgs_alloc(batch, (size_t)s->o->size);

	for (;;) {
		int ph = udp_server_phase(t, io);

		if (ph == PH_STOP)
			break;
		bool measuring = ph == PH_MEASURE;
		int n = udp_server_recv(t, ops, io, m, batch);

		if (!n)
			continue;
		t->c.rx_packets += measuring ? (uint64_t)n : 0;
		/* Each answer goes back as large as its request, to its sender, in one call; a
		 * request larger than --size is not answered (nor amplified). */
		int keep = 0;

		for (int i = 0; i < n; i++) {
			if (!peer_allowed(s, &m[i].addr)) {
				/* Not the controller's host: no answer, so no reflection. */
				count_err(&t->c, ERR_FOREIGN, true);
				continue;
			}
			if (m[i].trunc) {
				count_err(&t->c, ERR_RECV, measuring);
				continue;
			}
			if (keep != i) {
				void *b = m[keep].buf;

				m[keep] = m[i];
				m[i].buf = b;
			}
			keep++;
		}
		n = keep;
		int sent = ops->send(io, m, n);

		if (sent < 0)
			sent = 0;
		if (measuring) {
			t->c.tx_packets += (uint64_t)sent;
			t->c.transactions += (uint64_t)sent;
			t->c.err[ERR_SEND] += (uint64_t)(n - sent);
			t->c.errors += (uint64_t)(n - sent);
		}
	}
	msgs_free(m, batch);
}

void udp_rr_server_loop(struct server_ctx *s)
{
	const struct opts *o = s->o;

	udp_server_run(s, (size_t)o->size, (int)o->batch, 4 * (int)o->batch, false, serve_batches);
}
