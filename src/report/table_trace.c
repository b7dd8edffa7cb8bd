/* table_trace.c: --trace in the text report: where a round trip goes, stage by stage. The
 * request's stages (the clients' packet to the server's read), the server's user space
 * between its read and its answer, then the answer's stages; each stage's p50 and p99, and
 * its mean per round trip (its whole time over the packets of its direction read) with its
 * share. The means add up as the round trip's mean does (a sum of medians need not: a stage
 * with two modes); the sum is set beside the measured mean. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>

#include "report/out_priv.h"

static const char *const stages[] = {"send", "device", "softirq", "socket", "wakeup", "receive"};
static const char *const what[] = {
	"send call -> device queue", "device/backlog queue -> softirq",
	"softirq -> socket queue",   "socket queue -> read, awake",
	"woken -> running",	     "read -> call returns",
};

static const cJSON *stage(const cJSON *dirs, const char *dir, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(dirs, dir), name);
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A stage's whole time per packet of its direction read: its share of a round trip. */
static double per_trip(const cJSON *s, double reads)
{
	double t = num(s, "total_us");

	return reads > 0 && !isnan(t) ? t / reads : 0;
}

static void row(FILE *f, const char *label, const char *desc, const cJSON *s, double reads,
		double total)
{
	double n = num(s, "count"), p50 = num(s, "p50_us"), p99 = num(s, "p99_us");
	double m = per_trip(s, reads);

	if (!(n > 0)) {
		fprintf(f, "  %-20s %-32s %8s %8s %8s %6s\n", label, desc, "-", "-", "-", "-");
		return;
	}
	fprintf(f, "  %-20s %-32s %8.1f %8.1f %8.1f %5.0f%%\n", label, desc, p50, p99, m,
		total > 0 ? 100 * m / total : NAN);
}

void out_table_trace(const struct result *r, FILE *f)
{
	const cJSON *t = r->trace, *dirs = cJSON_GetObjectItemCaseSensitive(t, "directions");
	const cJSON *pk = cJSON_GetObjectItemCaseSensitive(t, "packets");
	double reads[2] = {num(pk, "read_by_server"), num(pk, "read_by_clients")}, total = 0;

	if (!t)
		return;
	for (int d = 0; d < 2; d++)
		for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++)
			total += per_trip(stage(dirs, d ? "answer" : "request", stages[i]), reads[d]);
	total += per_trip(stage(dirs, "answer", "user"), reads[0]);
	fprintf(f, "\n  where a round trip goes (--trace: each packet followed in the kernel)\n");
	fprintf(f, "  %-20s %-32s %8s %8s %8s %6s\n", "stage", "", "p50 us", "p99 us", "mean us",
		"share");
	for (int d = 0; d < 2; d++) {
		const char *dir = d ? "answer" : "request";

		for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
			char label[32];

			snprintf(label, sizeof(label), "%s %s", dir, stages[i]);
			row(f, label, what[i], stage(dirs, dir, stages[i]), reads[d], total);
		}
		if (!d)
			row(f, "server user space", "read returns -> answer's send",
			    stage(dirs, "answer", "user"), reads[0], total);
	}
	fprintf(f, "  %-71s %8.1f\n  the mean round trip measured: %.1f us (beyond the stages: the "
		"client's own time around its calls, and any packet not followed)\n",
		"sum of the means", total, r->lat->count ? hist_mean(r->lat) / 1e3 : NAN);
	fprintf(f, "  packets followed: %.0f of %.0f requests read by the server, %.0f of %.0f answers "
		"by the clients; this host's drops: %.0f receive queue full, %.0f UDP queueing "
		"failures, %.0f TCP retransmits\n",
		num(pk, "read_by_server"), num(pk, "sent_by_clients"), num(pk, "read_by_clients"),
		num(pk, "sent_by_server"), num(pk, "sock_rcvqueue_full"),
		num(pk, "udp_fail_queue_rcv_skb"), num(pk, "tcp_retransmit_skb"));
}
