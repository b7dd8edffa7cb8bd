/* udp_stream_report.c: what udp-stream's report reads from a run (wl_udp_stream.c has the
 * workload and its client): its units, the kernel's counters to set beside ours, and its
 * headline, one way or both (--bidir). */
#include <math.h>

#include "measure/result.h"
#include "workload/udp_stream_server.h"
#include "workload/workload.h"

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

/* During the window only the clients' payload bytes are seen: each datagram carries --size. */
double udp_stream_live_units(const struct opts *o, uint64_t transactions, uint64_t bytes)
{
	(void)transactions;
	return o->size > 0 ? (double)bytes / (double)o->size : 0;
}

/* Packets the receiver received in its window (with --bidir, both sides' receivers). */
double udp_stream_units(const struct result *r)
{
	const char *name;

	if (r->cfg->bidir)
		return (double)(r->client.c.rx_packets + r->server.c.rx_packets);
	return (double)rx_side(r, &name)->c.rx_packets;
}

/* The kernel counts a datagram sent with GSO once per send, and one read coalesced by GRO once
 * per read; we count those too (syscalls aside): tx_packets / gso, and transactions (reads).
 * Only the sides on this machine count (the client always is; the server when local). */
int udp_stream_kernel_pairs(const struct result *r, struct kernel_pair *out)
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
	if (r->cfg->bidir) { /* both sides send and receive; the server's counts where it is here */
		const struct side_result *c = &r->client, *s = &r->server;
		bool g = r->cfg->gro; /* with GRO the kernel counts a coalesced read once */

		in = (g ? c->c.transactions : c->c.rx_packets) +
		     (server_here ? (g ? s->c.transactions : s->c.rx_packets) : 0);
		out[n++] = (struct kernel_pair){"InDatagrams", in};
		out[n++] = (struct kernel_pair){"OutDatagrams",
						(c->c.tx_packets + (server_here ? s->c.tx_packets : 0)) / segs};
		if (!r->cfg->gro)
			out[n++] = (struct kernel_pair){"RcvbufErrors",
							c->c.lost + (server_here ? s->c.lost : 0)};
		return n;
	}
	if (r->cfg->reverse || server_here)
		out[n++] = (struct kernel_pair){"InDatagrams", in};
	if (!r->cfg->reverse || server_here)
		out[n++] = (struct kernel_pair){"OutDatagrams", tx->c.tx_packets / segs};
	/* Drops: one per datagram, but one per coalesced packet with GRO, which we cannot see. */
	if (!r->cfg->gro && (r->cfg->reverse || server_here))
		out[n++] = (struct kernel_pair){"RcvbufErrors", rx->c.lost};
	return n;
}

/* --bidir: the rates each way, CPU per packet each side moved (sent and received), and the
 * loss, reordering and jitter of both receivers together. */
static void bidir_headline(const struct result *r, struct headline *h)
{
	const struct side_counters *c = &r->client.c, *s = &r->server.c;
	double d = r->duration_s;
	uint64_t rx = c->rx_packets + s->rx_packets, tx = c->tx_packets + s->tx_packets;
	uint64_t lost = c->lost + s->lost, jf = c->jitter_flows + s->jitter_flows;
	double loss_pct = rx + lost ? 100.0 * (double)lost / (double)(rx + lost) : 0;
	double gb = d > 0 ? (double)(c->rx_bytes + s->rx_bytes) * 8 / d / 1e9 : 0;
	double jit = jf ? (double)(c->jitter_ns + s->jitter_ns) / (double)jf / 1e6 : NAN;
	double up = result_per_s(s->rx_packets, d), down = result_per_s(c->rx_packets, d);

	headline_row(h, "packets received/s", result_per_s(rx, d), 0, "sent %.0f/s",
		     result_per_s(tx, d));
	headline_row(h, "client to server (packets/s)", up, 0, "server to client %.0f/s", down);
	headline_row(h, "lost (gaps in sequence)", (double)lost, 0, "(%.3f%%)  reordered %llu, "
		     "duplicates %llu, too late to tell %llu", loss_pct,
		     (unsigned long long)(c->reordered + s->reordered),
		     (unsigned long long)(c->dups + s->dups),
		     (unsigned long long)(c->seq_unsure + s->seq_unsure));
	headline_row(h, "payload Gbit/s received", gb, 3, NULL);
	if (isnan(jit))
		headline_row(h, "jitter (ms)", NAN, 0, "- (no flow received two datagrams in the window)");
	else
		headline_row(h, "jitter (ms)", jit, 3, "RFC 3550, as iperf3's; mean of %llu flow%s",
			     (unsigned long long)jf, jf == 1 ? "" : "s");
	headline_key(h, "cpu_us_per_packet.client_per_sent_and_received",
		     result_cpu_us_per(r->client.user_s, r->client.sys_s,
				       (double)(c->tx_packets + c->rx_packets)), 4);
	headline_key(h, "cpu_us_per_packet.server_per_sent_and_received",
		     result_cpu_us_per(r->server.user_s, r->server.sys_s,
				       (double)(s->tx_packets + s->rx_packets)), 4);
	headline_key(h, "packets_per_s_by_direction.client_to_server", up, 3);
	headline_key(h, "packets_per_s_by_direction.server_to_client", down, 3);
	headline_key(h, "gbit_per_s_by_direction.client_to_server",
		     d > 0 ? (double)s->rx_bytes * 8 / d / 1e9 : 0, 4);
	headline_key(h, "gbit_per_s_by_direction.server_to_client",
		     d > 0 ? (double)c->rx_bytes * 8 / d / 1e9 : 0, 4);
	headline_key(h, "packets_sent", (double)tx, -1);
	headline_key(h, "packets_received", (double)rx, -1);
	headline_key(h, "packets_sent_per_s", result_per_s(tx, d), 3);
	headline_key(h, "packets_per_s", result_per_s(rx, d), 3);
	headline_key(h, "loss", (double)lost, -1);
	headline_key(h, "loss_pct", loss_pct, 4);
	headline_key(h, "reordered", (double)(c->reordered + s->reordered), -1);
	headline_key(h, "duplicates", (double)(c->dups + s->dups), -1);
	headline_key(h, "too_late_to_tell", (double)(c->seq_unsure + s->seq_unsure), -1);
	headline_key(h, "gbit_per_s", gb, 4);
	headline_key(h, "jitter_ms", jit, 6);
}

void udp_stream_headline(const struct result *r, struct headline *h)
{
	const char *name; /* the per-side table prints each side's CPU per packet it moved */
	const struct side_result *c = tx_side(r, &name), *s = rx_side(r, &name);
	double d = r->duration_s;
	uint64_t rx = s->c.rx_packets, tx = c->c.tx_packets, lost = s->c.lost;
	double loss_pct = rx + lost ? 100.0 * (double)lost / (double)(rx + lost) : 0;
	double cpu_tx = result_cpu_us_per(c->user_s, c->sys_s, (double)tx);
	double cpu_rx = result_cpu_us_per(s->user_s, s->sys_s, (double)rx);
	double gb = d > 0 ? (double)s->c.rx_bytes * 8 / d / 1e9 : 0;
	/* The keys name the sides: "client_per_sent", "server_per_received" (or reversed). */
	static const char *const per_sent[] = {"cpu_us_per_packet.client_per_sent",
					       "cpu_us_per_packet.server_per_sent"};
	static const char *const per_received[] = {"cpu_us_per_packet.server_per_received",
						   "cpu_us_per_packet.client_per_received"};
	int rev = r->cfg->reverse ? 1 : 0;

	if (r->cfg->bidir) {
		bidir_headline(r, h);
		return;
	}
	headline_row(h, "packets received/s", result_per_s(rx, d), 0, "sent %.0f/s",
		     result_per_s(tx, d));
	/* Too late to tell from a duplicate (seq.h): counted as neither, the loss an upper bound. */
	headline_row(h, "lost (gaps in sequence)", (double)lost, 0, "(%.3f%%)  reordered %llu, "
		     "duplicates %llu, too late to tell %llu", loss_pct,
		     (unsigned long long)s->c.reordered, (unsigned long long)s->c.dups,
		     (unsigned long long)s->c.seq_unsure);
	headline_row(h, "payload Gbit/s received", gb, 3, NULL);
	/* Jitter: the mean of the receiving flows' (iperf3 averages its streams' the same way). */
	double jit = s->c.jitter_flows ? (double)s->c.jitter_ns / (double)s->c.jitter_flows / 1e6 : NAN;

	if (isnan(jit))
		headline_row(h, "jitter (ms)", NAN, 0, "- (no flow received two datagrams in the window)");
	else
		headline_row(h, "jitter (ms)", jit, 3, "RFC 3550, as iperf3's; mean of %llu flow%s",
			     (unsigned long long)s->c.jitter_flows, s->c.jitter_flows == 1 ? "" : "s");
	headline_key(h, per_sent[rev], cpu_tx, 4);
	headline_key(h, per_received[rev], cpu_rx, 4);
	headline_key(h, "packets_sent", (double)tx, -1);
	headline_key(h, "packets_received", (double)rx, -1);
	headline_key(h, "packets_sent_per_s", result_per_s(tx, d), 3);
	headline_key(h, "packets_per_s", result_per_s(rx, d), 3);
	headline_key(h, "loss", (double)lost, -1);
	headline_key(h, "loss_pct", loss_pct, 4);
	headline_key(h, "reordered", (double)s->c.reordered, -1);
	headline_key(h, "duplicates", (double)s->c.dups, -1);
	headline_key(h, "too_late_to_tell", (double)s->c.seq_unsure, -1);
	headline_key(h, "gbit_per_s", gb, 4);
	headline_key(h, "jitter_ms", jit, 6);
}

