/* intervals.c: the interval reports of -i: a line each on stdout during the window (text
 * mode), the JSON `intervals` array, and a note when there are none to give. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/figure_table.h"
#include "base/util.h"
#include "report/out.h"
#include "report/out_priv.h"
#include "workload/workload.h"

static bool is_tcp(const struct result *r)
{
	return !strcmp(r->wl->snmp_proto, "Tcp");
}

static void col(double v, int width, int decimals)
{
	char s[32];

	printf(" %*s", width, fmt_sep(s, sizeof(s), v, decimals)); /* NaN: "-" */
}

/* A percentile, ">=" before it when it is a lower bound (its rank among unanswered ones). */
static void bound_col(double v, bool at_least)
{
	char s[32];

	if (isnan(v) || !at_least) {
		col(v, 10, 1);
		return;
	}
	char n[32];

	snprintf(s, sizeof(s), ">=%s", fmt_sep(n, sizeof(n), v, 1));
	printf(" %10s", s);
}

void out_interval(const struct result *r, int i)
{
	const struct interval *iv = &r->intervals[i];
	char unit[48];

	if (r->cfg->json || r->cfg->format != FORMAT_TEXT) /* stdout is the document's */
		return;
	out_progress_end(); /* a terminal's progress line is redrawn below */
	/* A stream's bytes in Gbit/s, as its plot and its throughput line give them. */
	bool gbit = workload_shows(r->wl) & SHOWS_MEGABYTES;

	snprintf(unit, sizeof(unit), gbit ? "Gbit/s" : "%ss/s", r->wl->unit);
	if (i == 0)
		out_run_title(r, stdout); /* what runs, before its first line */
	if (i == 0)
		printf("%-13s %14s %10s %10s %10s %8s %8s %8s %11s\n", "interval s", unit, "p50 us",
		       "p99 us", "unanswered", "client%", "server%", "busy%",
		       is_tcp(r) ? "retransmits" : "udp drops");
	printf("%6.2f-%-6.2f", iv->t_s - iv->len_s, iv->t_s);
	if (gbit)
		col(iv->rate * 8 / 1e3, 14, 3); /* megabytes (1e6 bytes) a second to Gbit/s */
	else
		col(iv->rate, 14, iv->rate < 100 ? 2 : 0);
	bound_col(iv->p50_us, iv->p50_at_least);
	bound_col(iv->p99_us, iv->p99_at_least);
	col(iv->unanswered, 10, 0);
	col(iv->cpu_client_pct, 8, 1);
	col(iv->cpu_server_pct, 8, 1);
	col(iv->machine_busy_pct, 8, 1);
	col(is_tcp(r) ? iv->retransmits : iv->udp_drops, 11, 0);
	printf("\n");
	fflush(stdout);
}

void out_intervals_none(const char *why)
{
	fprintf(stderr, "sockbench: -i: no intervals: %s\n", why);
}

static void num_or_null(cJSON *o, const char *key, double v, double scale)
{
	if (isnan(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, round(v * scale) / scale);
}

void out_intervals_json(const struct result *r, cJSON *j)
{
	cJSON *a;

	if (!r->intervals)
		return;
	cJSON_AddStringToObject(j, "intervals_scope", r->intervals_scope);
	a = cJSON_AddArrayToObject(j, "intervals");
	for (int i = 0; i < r->nintervals; i++) {
		const struct interval *iv = &r->intervals[i];
		cJSON *e = cJSON_CreateObject();

		num_or_null(e, "t_s", iv->t_s, 1e4);
		num_or_null(e, "len_s", iv->len_s, 1e4);
		num_or_null(e, "units", iv->units, 1e3);
		num_or_null(e, "rate", iv->rate, 1e3);
		num_or_null(e, "samples", iv->samples, 1);
		num_or_null(e, "p50_us", iv->p50_us, 1e3);
		num_or_null(e, "p99_us", iv->p99_us, 1e3);
		cJSON_AddBoolToObject(e, "p50_at_least", iv->p50_at_least);
		cJSON_AddBoolToObject(e, "p99_at_least", iv->p99_at_least);
		num_or_null(e, "unanswered", iv->unanswered, 1);
		num_or_null(e, "cpu_client_pct", iv->cpu_client_pct, 1e2);
		num_or_null(e, "cpu_server_pct", iv->cpu_server_pct, 1e2);
		num_or_null(e, "machine_busy_pct", iv->machine_busy_pct, 1e2);
		if (is_tcp(r))
			num_or_null(e, "retransmits", iv->retransmits, 1);
		else
			num_or_null(e, "udp_drops", iv->udp_drops, 1);
		cJSON_AddItemToArray(a, e);
	}
}
