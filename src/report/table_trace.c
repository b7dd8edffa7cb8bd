/* table_trace.c: --trace in the text report: where a round trip goes, stage by stage. The
 * request's stages (the clients' packet to the server's read), the server's user space
 * between its read and its answer, the answer's stages, and in a closed loop the client's
 * time from its read to its next request (trace_rows.c); each stage's p50 and p99, and its
 * mean per round trip with its share. The means add up as the round trip's mean does (a sum of medians need not: a stage
 * with two modes); the sum is set beside the measured mean. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>

#include "base/util.h"
#include "report/out_priv.h"
#include "report/trace_rows.h"

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void row(FILE *f, const struct trace_row *r, double total)
{
	if (!r->seen) {
		fprintf(f, "  %-20s %-32s %8s %8s %8s %6s\n", r->label, r->desc, "-", "-", "-", "-");
		return;
	}
	fprintf(f, "  %-20s %-32s %8.1f %8.1f %8.1f %5.0f%%\n", r->label, r->desc, r->p50, r->p99,
		r->mean, total > 0 ? 100 * r->mean / total : NAN);
}

static void summary(const struct result *r, FILE *f, const cJSON *pk, double total, bool trips)
{
	double soft = num(pk, "tcp_in_softirq"), proc = num(pk, "tcp_in_process");

	if (trips)
		fprintf(f, "  %-71s %8.1f\n  the mean round trip measured: %.1f us%s (beyond the "
			"stages: the client's own time stamps around its calls, and any packet not "
			"followed)\n", "sum of the means", total,
			r->lat->count ? hist_mean(r->lat) / 1e3 : NAN,
			r->lat->censored ? ", the unanswered in it at their wait" : "");
	else
		fprintf(f, "  a round trip here is not one packet each way (%.0f requests and %.0f "
			"answers read for %llu round trips: merged or several segments): the means "
			"are per packet, and their sum is not a round trip's\n",
			num(pk, "read_by_server"), num(pk, "read_by_clients"),
			(unsigned long long)r->lat->count);
	char n[7][32];

	fprintf(f, "  packets followed: %s of %s requests read by the server, %s of %s answers "
		"by the clients; this host's drops: %s receive queue full, %s UDP queueing "
		"failures, %s TCP retransmits\n",
		fmt_sep(n[0], 32, num(pk, "read_by_server"), 0),
		fmt_sep(n[1], 32, num(pk, "sent_by_clients"), 0),
		fmt_sep(n[2], 32, num(pk, "read_by_clients"), 0),
		fmt_sep(n[3], 32, num(pk, "sent_by_server"), 0),
		fmt_sep(n[4], 32, num(pk, "sock_rcvqueue_full"), 0),
		fmt_sep(n[5], 32, num(pk, "udp_fail_queue_rcv_skb"), 0),
		fmt_sep(n[6], 32, num(pk, "tcp_retransmit_skb"), 0));
	/* (A UDP run's control connection is TCP too: told only where TCP carried the run.) */
	if (soft + proc > 0 && soft + proc >= (num(pk, "read_by_server") + num(pk, "read_by_clients")) / 2)
		fprintf(f, "  TCP receive processing: %.0f%% of the segments taken by their socket in "
			"softirq, %.0f%% in the reading process (its socket's backlog)\n",
			100 * soft / (soft + proc), 100 * proc / (soft + proc));
}

void out_table_trace(const struct result *r, FILE *f)
{
	struct trace_row rows[TRACE_ROWS];
	double total;
	int n = trace_rows(r->trace, !result_open_loop(r), rows, &total);

	if (!n)
		return;
	fprintf(f, "\n  where a round trip goes (--trace: each packet followed in the kernel)\n");
	fprintf(f, "  %-20s %-32s %8s %8s %8s %6s\n", "stage", "", "p50 us", "p99 us", "mean us",
		"share");
	for (int i = 0; i < n; i++)
		row(f, &rows[i], total);
	summary(r, f, cJSON_GetObjectItemCaseSensitive(r->trace, "packets"), total,
		trace_one_packet_each_way(r->trace, (double)(r->lat->count - r->lat->censored)));
}
