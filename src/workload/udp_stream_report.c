/* udp_stream_report.c: what udp-stream's report reads from a run (wl_udp_stream.c has the
 * workload and its client): its units, the kernel's counters to set beside ours, and its
 * headline, one way or both (--bidir). */
#include <math.h>

#include "base/util.h"
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

/* What the receivers counted over a window of d seconds (with --bidir, both sides' added),
 * and how many packets were sent to them. */
struct receipt {
	double d;
	uint64_t tx;
	struct side_counters rx;
};

static double receipt_loss_pct(const struct receipt *t)
{
	uint64_t all = t->rx.rx_packets + t->rx.lost;

	return all ? 100.0 * (double)t->rx.lost / (double)all : 0;
}

static double receipt_gbit(const struct receipt *t)
{
	return t->d > 0 ? (double)t->rx.rx_bytes * 8 / t->d / 1e9 : 0;
}

/* Jitter: the mean of the receiving flows' (iperf3 averages its streams' the same way). */
static double receipt_jitter_ms(const struct receipt *t)
{
	const struct side_counters *rx = &t->rx;

	return rx->jitter_flows ? (double)rx->jitter_ns / (double)rx->jitter_flows / 1e6 : NAN;
}

static void receipt_rate_row(struct headline *h, const struct receipt *t)
{
	char v[32];

	headline_row(h, "packets received/s", result_per_s(t->rx.rx_packets, t->d), 0,
		     "sent %s/s", fmt_sep(v, sizeof(v), result_per_s(t->tx, t->d), 0));
}

/* The loss, the payload rate and the jitter, as rows. */
static void receipt_rows(struct headline *h, const struct receipt *t)
{
	const struct side_counters *rx = &t->rx;
	double jit = receipt_jitter_ms(t);
	char v[3][32];

	/* Too late to tell from a duplicate (seq.h): counted as neither, the loss an upper bound. */
	headline_row(h, "lost (gaps in sequence)", (double)rx->lost, 0,
		     "(%.3f%%)  reordered %s, duplicates %s, too late to tell %s",
		     receipt_loss_pct(t), fmt_sep(v[0], 32, (double)rx->reordered, 0),
		     fmt_sep(v[1], 32, (double)rx->dups, 0),
		     fmt_sep(v[2], 32, (double)rx->seq_unsure, 0));
	headline_row(h, "payload Gbit/s received", receipt_gbit(t), 3, NULL);
	if (isnan(jit))
		headline_row(h, "jitter (ms)", NAN, 0,
			     "- (no flow received two datagrams in the window)");
	else
		headline_row(h, "jitter (ms)", jit, 3, "RFC 3550, as iperf3's; mean of %llu flow%s",
			     (unsigned long long)rx->jitter_flows, rx->jitter_flows == 1 ? "" : "s");
}

/* The counts and rates of t, as keys (after the CPU's). */
static void receipt_keys(struct headline *h, const struct receipt *t)
{
	headline_key(h, "packets_sent", (double)t->tx, -1);
	headline_key(h, "packets_received", (double)t->rx.rx_packets, -1);
	headline_key(h, "packets_sent_per_s", result_per_s(t->tx, t->d), 3);
	headline_key(h, "packets_per_s", result_per_s(t->rx.rx_packets, t->d), 3);
	headline_key(h, "loss", (double)t->rx.lost, -1);
	headline_key(h, "loss_pct", receipt_loss_pct(t), 4);
	headline_key(h, "reordered", (double)t->rx.reordered, -1);
	headline_key(h, "duplicates", (double)t->rx.dups, -1);
	headline_key(h, "too_late_to_tell", (double)t->rx.seq_unsure, -1);
	headline_key(h, "gbit_per_s", receipt_gbit(t), 4);
	headline_key(h, "jitter_ms", receipt_jitter_ms(t), 6);
}

/* --bidir: the rates each way, CPU per packet each side moved (sent and received), and the
 * loss, reordering and jitter of both receivers together. */
static void bidir_headline(const struct result *r, struct headline *h)
{
	const struct side_counters *c = &r->client.c, *s = &r->server.c;
	double d = r->duration_s;
	struct receipt t = {.d = d, .tx = c->tx_packets + s->tx_packets, .rx = *c};
	double up = result_per_s(s->rx_packets, d), down = result_per_s(c->rx_packets, d);
	char v[32];

	side_counters_add(&t.rx, s);
	receipt_rate_row(h, &t);
	headline_row(h, "client to server (packets/s)", up, 0, "server to client %s/s",
		     fmt_sep(v, sizeof(v), down, 0));
	receipt_rows(h, &t);
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
	receipt_keys(h, &t);
}

/* A paced sender held its pace when it sent --rate over its own window (the shortest of its
 * processes'), short by at most 2% and two batches a sender: the pacer owes from its start
 * and catches up in batches, so it falls short only when it could not run (or not send fast
 * enough); then the rate received says what this machine could carry, not what was asked. */
static bool side_paced(const struct result *r, const struct side_result *s, const char *name,
		       char *why, size_t len)
{
	double w = s->window_min_s > 0 ? s->window_min_s : r->duration_s;
	double want = (double)r->cfg->rate * w, sent = (double)s->c.tx_packets;
	int senders = s->threads > s->processes ? s->threads : s->processes;
	double slack = 0.02 * want + 2.0 * (double)r->cfg->batch * (r->cfg->gso ? r->cfg->gso : 1) *
					     (senders > 0 ? senders : 1);
	char v[2][32];

	if (!s->present || w <= 0 || sent >= want - slack)
		return true;
	/* Kept off its CPU for as long as it fell behind (half of it, at least), or not: then
	 * sending itself took all the time it had. */
	bool starved = s->run_delay_s >= 0.5 * (want - sent) / (double)r->cfg->rate;

	snprintf(why, len, "the %s sent %s/s of --rate %s (%.1f%%): %s (its threads waited %.1f ms "
		 "runnable for a CPU, preempted %.0f times): %s", name,
		 fmt_sep(v[0], sizeof(v[0]), sent / w, 0),
		 fmt_sep(v[1], sizeof(v[1]), (double)r->cfg->rate, 0), 100 * sent / want,
		 starved ? "it was kept off its CPU" : "it could not send faster",
		 s->run_delay_s * 1e3, s->ivcsw,
		 starved ? "this machine's load set the rate" : "its own sending took the time");
	return false;
}

bool udp_stream_holding(const struct result *r, char *why, size_t len)
{
	const char *name;
	const struct side_result *tx = tx_side(r, &name);

	snprintf(why, len, "%s", "");
	if (!r->cfg->rate)
		return true;
	if (r->cfg->bidir)
		return side_paced(r, &r->client, "client", why, len) &&
		       side_paced(r, &r->server, "server", why, len);
	return side_paced(r, tx, name, why, len);
}

/* A paced run's pace: held or not, and why not. */
static void pace_rows(const struct result *r, struct headline *h)
{
	char why[320];
	bool ok;

	if (!r->cfg->rate)
		return;
	ok = udp_stream_holding(r, why, sizeof(why));
	headline_row(h, "holding pace", NAN, 0, "%s%s%s", ok ? "yes" : "NO", ok ? "" : ": ", why);
	headline_key_bool(h, "holding_load", ok);
	headline_key_text(h, "holding_load_reason", ok ? NULL : why);
}

void udp_stream_headline(const struct result *r, struct headline *h)
{
	const char *name; /* the per-side table prints each side's CPU per packet it moved */
	const struct side_result *c = tx_side(r, &name), *s = rx_side(r, &name);
	struct receipt t = {.d = r->duration_s, .tx = c->c.tx_packets, .rx = s->c};
	/* The keys name the sides: "client_per_sent", "server_per_received" (or reversed). */
	static const char *const per_sent[] = {"cpu_us_per_packet.client_per_sent",
					       "cpu_us_per_packet.server_per_sent"};
	static const char *const per_received[] = {"cpu_us_per_packet.server_per_received",
						   "cpu_us_per_packet.client_per_received"};
	int rev = r->cfg->reverse ? 1 : 0;

	if (r->cfg->bidir) {
		bidir_headline(r, h);
		pace_rows(r, h);
		return;
	}
	receipt_rate_row(h, &t);
	receipt_rows(h, &t);
	pace_rows(r, h);
	headline_key(h, per_sent[rev], result_cpu_us_per(c->user_s, c->sys_s, (double)t.tx), 4);
	headline_key(h, per_received[rev],
		     result_cpu_us_per(s->user_s, s->sys_s, (double)t.rx.rx_packets), 4);
	receipt_keys(h, &t);
}
