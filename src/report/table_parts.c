/* table_parts.c: what the short report (table_short.c) and the full one (table.c) both print:
 * the title, the headline, the workload's headline rows, the latency lines and each
 * side's CPU per unit of what that side did. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "report/out.h"
#include "report/out_priv.h"

void out_run_title(const struct result *r, FILE *f)
{
	char desc[300];

	r->wl->describe(r->cfg, desc, sizeof(desc));
	fprintf(f, "sockbench %s: %s\n", r->wl->name, desc);
}

void out_table_top(const struct result *r, FILE *f)
{
	if (r->nintervals > 0 && f == stdout) /* -i printed the title above its lines */
		fputc('\n', f);
	else
		out_run_title(r, f);
	if (r->partial)
		fprintf(f, "PARTIAL RESULT: %s\n", r->partial_reason);
	fprintf(f, "measured %.3f s after the warm-up\n\n", r->duration_s);
}

void out_rate_line(const struct result *r, FILE *f)
{
	const struct side_counters *c = &r->client.c;
	char label[64], v[2][32];

	snprintf(label, sizeof(label), "%ss/s", r->wl->unit);
	fprintf(f, "  %-28s %14s  (%s in %.3f s)\n", label,
		fmt_sep(v[0], 32, result_per_s(c->transactions, r->duration_s), 0),
		fmt_sep(v[1], 32, (double)c->transactions, 0), r->duration_s);
}

void out_headline_rows(const struct result *r, FILE *f)
{
	struct headline h = {.nrows = 0};
	char v[48];

	if (!r->wl->headline)
		return;
	r->wl->headline(r, &h);
	for (int i = 0; i < h.nrows; i++) {
		fprintf(f, "  %-28s %14s", h.row[i].label,
			isnan(h.row[i].value) ? "" : fmt_sep(v, sizeof(v), h.row[i].value, h.row[i].decimals));
		fprintf(f, "%s%s\n", h.row[i].note[0] ? "  " : "", h.row[i].note);
	}
}

void out_side_row(FILE *f, const char *label, const struct result *r, int decimals, double a,
		  double b)
{
	char ca[32] = "-", cb[32] = "-";

	if (r->client.present && !isnan(a))
		fmt_sep(ca, sizeof(ca), a, decimals);
	if (r->server.present && !isnan(b)) /* NaN: withheld (result_server_units) */
		fmt_sep(cb, sizeof(cb), b, decimals);
	fprintf(f, "  %-28s %14s %14s\n", label, ca, cb);
}

/* What a side's per-unit figures divide by: the workload's units (transactions, connections),
 * or for a stream what that side did: the megabytes or packets it sent, or received, or with
 * --bidir both; *what says which ("sent"). NaN: withheld. */
static double side_units(const struct result *r, const struct side_result *s, bool server,
			 const char **what)
{
	bool mb = r->wl->shows & SHOWS_MEGABYTES;
	double rx = mb ? (double)s->c.rx_bytes / 1e6 : (double)s->c.rx_packets;
	double tx = mb ? (double)s->c.tx_bytes / 1e6 : (double)s->c.tx_packets;

	*what = rx > 0 && tx > 0 ? "sent and received" : rx > 0 || tx <= 0 ? "received" : "sent";
	if (out_per_transaction(r))
		return result_side_units(r, server);
	if (server && isnan(result_server_units(r)))
		return NAN;
	return rx + tx; /* one of them is 0 but with --bidir */
}

static double per(double v, double n)
{
	return n > 0 ? v / n : NAN; /* no unit moved (or withheld): nothing to divide by */
}

void out_cpu_rows(const struct result *r, FILE *f, bool all)
{
	const struct side_result *c = &r->client, *s = &r->server;
	const char *wc, *ws;
	double nc = side_units(r, c, false, &wc), ns = side_units(r, s, true, &ws);
	bool mb = r->wl->shows & SHOWS_MEGABYTES;
	const char *unit = mb ? "MB" : r->wl->unit;
	char label[64];

	if (all) {
		snprintf(label, sizeof(label), "user us per %s", unit);
		out_side_row(f, label, r, 2, per(c->user_s * 1e6, nc), per(s->user_s * 1e6, ns));
		snprintf(label, sizeof(label), "sys us per %s", unit);
		out_side_row(f, label, r, 2, per(c->sys_s * 1e6, nc), per(s->sys_s * 1e6, ns));
	}
	/* netperf's service demand: CPU us per megabyte. */
	snprintf(label, sizeof(label), "CPU us per %s%s", unit, mb ? " (demand)" : "");
	out_side_row(f, label, r, 2, per((c->user_s + c->sys_s) * 1e6, nc),
		     per((s->user_s + s->sys_s) * 1e6, ns));
	if (all && (c->c.syscalls || s->c.syscalls)) {
		snprintf(label, sizeof(label), "syscalls per %s", unit);
		out_side_row(f, label, r, 2, per((double)c->c.syscalls, nc),
			     per((double)s->c.syscalls, ns));
	}
	/* A stream's sides did different things: each per unit of its own; so do the sides of a
	 * run that lost requests (the client sent them, the server answered fewer). */
	if (out_per_transaction(r) && r->lat->censored && !isnan(nc) && !isnan(ns) && nc > 0) {
		char a[32], b[32];

		fprintf(f, "  %-28s client: per request sent (%s, answered or not); server: per "
			"request answered (%s)\n", "", fmt_sep(a, sizeof(a), nc, 0),
			fmt_sep(b, sizeof(b), ns, 0));
	}
	if (!out_per_transaction(r))
		fprintf(f, "  %-28s client: per %s %s; server: per %s %s\n", "", unit, wc, unit, ws);
	if (isnan(ns))
		fprintf(f, "  %-28s %s\n", "", r->server_units_withheld);
}

/* One figure of a latency line: "p99 1,234.5", or "p99 ≥200,000.0" when it is a lower
 * bound (its rank falls among requests that got no answer). */
static void lat_fig(FILE *f, const char *name, const struct hist *h, uint64_t ns, bool bound)
{
	char v[32];

	fprintf(f, "%s %s%s  ", name, bound && hist_at_least(h, ns) ? "\u2265" : "",
		fmt_sep(v, sizeof(v), (double)ns / 1e3, 1));
}

void out_latency_line(FILE *f, const char *label, const struct hist *h, bool full)
{
	char v[32];

	fprintf(f, "  %-28s ", label);
	if (!h->count) {
		fprintf(f, "none measured\n");
		return;
	}
	if (full) {
		lat_fig(f, "min", h, h->min, true);
		fprintf(f, "mean %s%s  ", h->censored ? "\u2265" : "", fmt_sep(v, 32, hist_mean(h) / 1e3, 1));
	}
	lat_fig(f, "p50", h, hist_percentile(h, 50), true);
	if (full)
		lat_fig(f, "p90", h, hist_percentile(h, 90), true);
	lat_fig(f, "p99", h, hist_percentile(h, 99), true);
	lat_fig(f, "p99.9", h, hist_percentile(h, 99.9), true);
	if (full)
		lat_fig(f, "p99.99", h, hist_percentile(h, 99.99), true);
	fprintf(f, "max %s%s\n", h->censored ? "\u2265" : "", fmt_sep(v, 32, (double)h->max / 1e3, 1));
}
