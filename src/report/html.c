/* html.c: `sockbench report`: one self-contained HTML page (inline CSS, SVG and script; no
 * network) from saved --json results of any kind: a single run, --runs, compare, explore,
 * sweep. Each document gets its section: the headline, config and environment, the latency
 * CDF, CPU per side (user and system), time per syscall, the flame graph (with --profile),
 * explore's ranking with interval whiskers, compare's ratios, a sweep's curve. Several
 * documents also get an overview: their headline rates side by side and their latency CDFs
 * overlaid. Every figure drawn is one the document holds: nothing is measured here.
 * It reads cJSON trees and writes HTML.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/chart.h"
#include "report/out.h"

static const cJSON *jget(const cJSON *o, const char *path)
{
	char key[64];

	while (o && *path) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);

		if (len >= sizeof(key))
			return NULL;
		memcpy(key, path, len);
		key[len] = 0;
		o = cJSON_GetObjectItemCaseSensitive(o, key);
		path += len + (dot ? 1 : 0);
	}
	return o;
}

static double jnum(const cJSON *o, const char *path)
{
	const cJSON *v = jget(o, path);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *jstr(const cJSON *o, const char *path)
{
	const char *s = cJSON_GetStringValue(jget(o, path));

	return s ? s : "";
}

static void esc(FILE *f, const char *s)
{
	out_xml_escape(f, s ? s : "");
}

/* A number as the text tables print it (base/util's fmt_fig). */
static void num(FILE *f, double v)
{
	char buf[32];

	fputs(fmt_fig(buf, sizeof(buf), v), f);
}

static void row(FILE *f, const char *k, double v, const char *unit)
{
	fprintf(f, "<tr><th>");
	esc(f, k);
	fprintf(f, "</th><td>");
	num(f, v);
	if (unit && !isnan(v))
		fprintf(f, " %s", unit);
	fprintf(f, "</td></tr>\n");
}

static void row_s(FILE *f, const char *k, const char *v)
{
	fprintf(f, "<tr><th>");
	esc(f, k);
	fprintf(f, "</th><td>");
	esc(f, v && *v ? v : "-");
	fprintf(f, "</td></tr>\n");
}

enum kind { K_RUN, K_RUNS, K_COMPARE, K_EXPLORE, K_SWEEP, K_BAD };

static enum kind kind_of(const cJSON *d)
{
	const char *k = jstr(d, "kind");

	if (!*k)
		return jget(d, "workload") && cJSON_IsNumber(jget(d, "rate")) ? K_RUN : K_BAD;
	return !strcmp(k, "runs")      ? K_RUNS
	       : !strcmp(k, "compare") ? K_COMPARE
	       : !strcmp(k, "explore") ? K_EXPLORE
	       : !strcmp(k, "sweep")   ? K_SWEEP
				       : K_BAD;
}

const char *report_check(const cJSON *d)
{
	if (!cJSON_IsObject(d))
		return "not a JSON object";
	if (strcmp(jstr(d, "tool"), "sockbench"))
		return "not a sockbench result (no \"tool\": \"sockbench\")";
	if (jnum(d, "schema") != 1)
		return "a result of another schema than 1 (a newer sockbench wrote it)";
	if (kind_of(d) == K_BAD)
		return "a sockbench document of a kind the report does not know";
	return NULL;
}

/* ---- pieces shared by the kinds ---- */

/* What the rate counts: the document's "unit", else the workload's. */
static const char *unit_of(const cJSON *d)
{
	static const char *const by_wl[][2] = {{"udp-rr", "transaction"}, {"tcp-rr", "transaction"},
					       {"tcp-crr", "connection"}, {"tcp-stream", "megabyte"},
					       {"udp-stream", "packet"}};
	const char *u = jstr(d, "unit");

	if (*u)
		return u;
	for (size_t i = 0; i < sizeof(by_wl) / sizeof(by_wl[0]); i++)
		if (!strcmp(jstr(d, "workload"), by_wl[i][0]))
			return by_wl[i][1];
	return "unit";
}

static void config_table(FILE *f, const cJSON *cfg)
{
	const cJSON *e;

	if (!cJSON_IsObject(cfg))
		return;
	fprintf(f, "<details><summary>configuration</summary><table class=\"kv\">\n");
	cJSON_ArrayForEach(e, cfg) {
		char *v = cJSON_PrintUnformatted(e);

		fprintf(f, "<tr><th>--");
		for (const char *c = e->string; *c; c++)
			fputc(*c == '_' ? '-' : *c, f);
		fprintf(f, "</th><td>");
		esc(f, v);
		fprintf(f, "</td></tr>\n");
		free(v);
	}
	fprintf(f, "</table></details>\n");
}

static void env_table(FILE *f, const cJSON *env)
{
	char buf[160];

	if (!cJSON_IsObject(env))
		return;
	fprintf(f, "<details><summary>environment</summary><table class=\"kv\">\n");
	row_s(f, "host", jstr(env, "hostname"));
	row_s(f, "kernel", jstr(env, "kernel.release"));
	row_s(f, "CPU", jstr(env, "cpu.model"));
	row(f, "CPUs online", jnum(env, "cpu.online"), NULL);
	row_s(f, "hypervisor", jstr(env, "virtualization.hypervisor"));
	row(f, "steal in the window", jnum(env, "virtualization.steal_pct_in_window"), "%");
	row_s(f, "clock source", jstr(env, "clocksource"));
	snprintf(buf, sizeof(buf), "%s (%s, MTU %.0f, qdisc %s)", jstr(env, "interface.name"),
		 jstr(env, "interface.driver"), jnum(env, "interface.mtu"), jstr(env, "interface.qdisc"));
	row_s(f, "interface", buf);
	fprintf(f, "</table></details>\n");
}

/* A CDF ([[us, fraction], ...]) as a series (arrays allocated; the caller frees x). */
static int cdf_series_of(const cJSON *cdf, struct chart_series *s, const char *label)
{
	const cJSON *p;
	int n = cJSON_GetArraySize(cdf), k = 0;

	if (n < 1)
		return 0;
	double *x = xmalloc(2 * (size_t)n * sizeof(double)), *y = x + n;

	cJSON_ArrayForEach(p, cdf) {
		x[k] = cJSON_GetNumberValue(cJSON_GetArrayItem(p, 0));
		y[k] = cJSON_GetNumberValue(cJSON_GetArrayItem(p, 1));
		if (x[k] > 0 && !isnan(y[k]))
			k++;
	}
	*s = (struct chart_series){.label = label, .x = x, .y = y, .n = k};
	if (!k)
		free(x);
	return k > 0;
}

/* A document's latency CDF (its latency_us or connect_latency_us object) as a series. */
static int cdf_series(const cJSON *lat, struct chart_series *s, const char *label)
{
	return cdf_series_of(jget(lat, "cdf"), s, label);
}

/* Latency CDFs overlaid: a linear percent axis (the body) and a nines one (the tail). */
static void cdf_charts(FILE *f, const char *what, struct chart_series *s, int n)
{
	double lo = INFINITY, hi = 0, top = 0.5;
	char title[160];

	for (int i = 0; i < n; i++)
		for (int k = 0; k < s[i].n; k++) {
			lo = fmin(lo, s[i].x[k]);
			hi = fmax(hi, s[i].x[k]);
			if (s[i].y[k] < 1)
				top = fmax(top, s[i].y[k]);
		}
	if (!n || !(hi > 0))
		return;
	snprintf(title, sizeof(title), "%s: the distribution (CDF)", what);
	struct chart c = {.title = title, .xlabel = "latency (us, log scale)",
			  .ylabel = "share of units at or below", .xa = AX_LOG, .ya = AX_LIN,
			  .xmin = lo / 1.15, .xmax = hi * 1.15, .ymin = 0, .ymax = 1, .step = true,
			  .ref = NAN};

	chart_lines(f, &c, s, n);
	snprintf(title, sizeof(title), "%s: the tail (percentile by nines)", what);
	struct chart t = {.title = title, .xlabel = "percentile", .ylabel = "latency (us, log scale)",
			  .xa = AX_NINES, .ya = AX_LOG, .xmin = 0, .xmax = fmin(top, 0.99999),
			  .ymin = lo / 1.15, .ymax = hi * 1.15, .ref = NAN};
	/* The same points with the axes swapped. */
	struct chart_series *sw = xmalloc((size_t)n * sizeof(*sw));

	for (int i = 0; i < n; i++)
		sw[i] = (struct chart_series){.label = s[i].label, .x = s[i].y, .y = s[i].x, .n = s[i].n,
					      .colour = s[i].colour};
	for (int i = 0; i < n; i++) /* the last point (fraction 1) has no nines */
		while (sw[i].n > 0 && sw[i].x[sw[i].n - 1] >= 0.999999)
			sw[i].n--;
	chart_lines(f, &t, sw, n);
	free(sw);
}

/* CPU per unit of each side, user and system, from the sides' seconds and the units. */
static void cpu_chart(FILE *f, const cJSON *d)
{
	static const char *const sides[] = {"client", "server"};
	static const char *const parts[2] = {"user", "system"};
	struct chart_stack s[2];
	int n = 0;
	char path[64], xl[96];

	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "sides.%s", sides[i]);
		const cJSON *sd = jget(d, path);
		double u = jnum(sd, "user_s"), y = jnum(sd, "sys_s"), per = jnum(sd, "cpu_us_per_unit");

		if (!cJSON_IsObject(sd) || isnan(per) || !(u + y > 0))
			continue;
		s[n++] = (struct chart_stack){sides[i], per * u / (u + y), per * y / (u + y)};
	}
	if (!n)
		return;
	snprintf(xl, sizeof(xl), "CPU us per %s (that side's processes, getrusage)", unit_of(d));
	chart_stacked(f, "CPU per unit, each side", xl, parts, s, n);
}

/* Time per syscall of each side: the profile's share of that side's samples, as CPU us per
 * unit (the side's CPU per unit divided as its samples fell). */
static void syscall_chart(FILE *f, const cJSON *d)
{
	static const char *const sides[] = {"client", "server"};
	static const char *const side_colour[] = {"#e6550d", "#3182bd"}; /* as the flame graph's */

	for (int i = 0; i < 2; i++) {
		char path[64], title[96], xl[96], *labels[12];
		struct chart_bar b[12];
		const cJSON *e;
		int n = 0;

		snprintf(path, sizeof(path), "profile.syscalls.%s", sides[i]);
		const cJSON *list = jget(d, path);

		snprintf(path, sizeof(path), "sides.%s.cpu_us_per_unit", sides[i]);
		double per = jnum(d, path);

		if (cJSON_GetArraySize(list) < 1 || isnan(per))
			continue;
		cJSON_ArrayForEach(e, list) {
			double pct = jnum(e, "pct");

			if (n == 12)
				break;
			labels[n] = xmalloc(96);
			snprintf(labels[n], 96, "%s (%.1f%%)", jstr(e, "name"), pct);
			b[n] = (struct chart_bar){labels[n], per * pct / 100, NAN, NAN, side_colour[i], NULL};
			n++;
		}
		snprintf(title, sizeof(title), "Time per syscall: %s", sides[i]);
		snprintf(xl, sizeof(xl), "CPU us per %s (share of the %s's profile samples)", unit_of(d),
			 sides[i]);
		chart_bars(f, title, xl, b, n, NAN, NULL, AX_LIN);
		for (int k = 0; k < n; k++)
			free(labels[k]);
	}
}

static int flame_no;

static void flame(FILE *f, const cJSON *prof, const char *what)
{
	char id[32], title[160];

	if (!cJSON_IsArray(jget(prof, "stacks")))
		return;
	snprintf(id, sizeof(id), "flame%d", ++flame_no);
	snprintf(title, sizeof(title), "%s: where the window's CPU time went", what);
	fprintf(f, "<div class=\"flamebox\"><label>search the flame graph (a regular expression): "
		   "<input type=\"search\" data-flame=\"%s\"></label>\n", id);
	if (out_flamegraph(prof, title, id, false, f))
		fprintf(f, "<p>(the profile took no samples)</p>\n");
	fprintf(f, "</div>\n");
}

static void partial_note(FILE *f, const cJSON *d)
{
	if (cJSON_IsTrue(jget(d, "partial"))) {
		fprintf(f, "<p class=\"warn\">Partial: ");
		esc(f, *jstr(d, "partial_reason") ? jstr(d, "partial_reason") : "cut short");
		fprintf(f, "</p>\n");
	}
}

static void headline(FILE *f, const cJSON *d)
{
	fprintf(f, "<table class=\"kv\">\n");
	char unit[48];

	snprintf(unit, sizeof(unit), "%ss/s", unit_of(d));
	row(f, "rate", jnum(d, "rate"), unit);
	fprintf(f, "<tr><th></th><td class=\"sub\">over a %.3g s window</td></tr>\n",
		jnum(d, "duration_s"));
	if (jget(d, "latency_us")) {
		row(f, "latency p50", jnum(d, "latency_us.p50"), "us");
		row(f, "latency p99", jnum(d, "latency_us.p99"), "us");
		row(f, "latency p99.9", jnum(d, "latency_us.p999"), "us");
		row(f, "latency p99.99", jnum(d, "latency_us.p9999"), "us");
	} else { /* a stream */
		row(f, "throughput", jnum(d, "gbit_per_s"), "Gbit/s");
		if (jget(d, "loss_pct"))
			row(f, "loss", jnum(d, "loss_pct"), "%");
		if (jget(d, "jitter_ms"))
			row(f, "jitter (RFC 3550)", jnum(d, "jitter_ms"), "ms");
		if (jget(d, "retransmits"))
			row(f, "retransmits", jnum(d, "retransmits"), NULL);
	}
	if (jget(d, "connect_latency_us"))
		row(f, "connect() p50", jnum(d, "connect_latency_us.p50"), "us");
	row(f, "client CPU", jnum(d, "sides.client.cpu_us_per_unit"), "us per unit");
	row(f, "server CPU", jnum(d, "sides.server.cpu_us_per_unit"), "us per unit");
	row(f, "errors", jnum(d, "errors"), NULL);
	fprintf(f, "</table>\n");
}

/* ---- the kinds ---- */

static void run_section(FILE *f, const cJSON *d)
{
	struct chart_series s[2];
	int n = 0;

	headline(f, d);
	partial_note(f, d);
	config_table(f, jget(d, "config"));
	env_table(f, jget(d, "environment"));
	n += cdf_series(jget(d, "latency_us"), &s[n], "round trip");
	if (jget(d, "connect_latency_us"))
		n += cdf_series(jget(d, "connect_latency_us"), &s[n], "connect() alone");
	if (!strcmp(jstr(d, "workload"), "tcp-crr") && n)
		s[0].label = "connect start to last byte";
	cdf_charts(f, "Latency", s, n);
	for (int i = 0; i < n; i++)
		free((void *)s[i].x);
	const cJSON *pts = jget(d, "rate_over_window.points"), *p;
	int np = cJSON_GetArraySize(pts);

	if (np > 1) {
		double *x = xmalloc(2 * (size_t)np * sizeof(double)), *y = x + np, top = 0, dur;
		int k = 0;
		char title[160];

		cJSON_ArrayForEach(p, pts) {
			x[k] = cJSON_GetNumberValue(cJSON_GetArrayItem(p, 0));
			y[k] = cJSON_GetNumberValue(cJSON_GetArrayItem(p, 1));
			top = fmax(top, y[k]);
			k++;
		}
		dur = jnum(d, "duration_s");
		snprintf(title, sizeof(title), "Rate over the window: %s, over each %.2g s",
			 jstr(d, "rate_over_window.what"), jnum(d, "rate_over_window.step_s"));
		struct chart c = {.title = title, .xlabel = "seconds into the window", .ylabel = "Gbit/s",
				  .xa = AX_LIN, .ya = AX_LIN, .xmin = 0, .xmax = isnan(dur) ? x[k - 1] : dur,
				  .ymin = 0, .ymax = top > 0 ? top * 1.1 : 1, .markers = true, .ref = NAN};
		struct chart_series s1 = {.label = "clients", .x = x, .y = y, .n = k};

		chart_lines(f, &c, &s1, 1);
		free(x);
	}
	cpu_chart(f, d);
	const cJSON *prof = jget(d, "profile");

	if (cJSON_IsFalse(jget(prof, "available"))) {
		fprintf(f, "<p class=\"warn\">No profile: ");
		esc(f, jstr(prof, "error"));
		fprintf(f, "</p>\n");
	} else if (prof) {
		syscall_chart(f, d);
		flame(f, prof, jstr(d, "workload"));
	}
	const cJSON *kc = jget(d, "kernel_check.counters"), *e;

	if (cJSON_IsObject(kc)) {
		fprintf(f, "<table class=\"grid\"><caption>our counts beside the kernel's (%s)</caption>"
			   "<tr><th>counter</th><th>ours</th><th>kernel</th><th>difference</th></tr>\n",
			jstr(d, "kernel_check.scope"));
		cJSON_ArrayForEach(e, kc) {
			fprintf(f, "<tr><td>");
			esc(f, e->string);
			fprintf(f, "</td><td>%.0f</td><td>%.0f</td><td>%.3f%%</td></tr>\n", jnum(e, "ours"),
				jnum(e, "kernel"), jnum(e, "diff_pct"));
		}
		fprintf(f, "</table>\n");
	}
}

static void runs_section(FILE *f, const cJSON *d)
{
	const cJSON *sum = jget(d, "summary"), *e;
	const cJSON *results = jget(d, "results");
	int nr = cJSON_GetArraySize(results), n = 0;

	fprintf(f, "<p>%.0f whole runs of %.0f asked%s.</p>\n", jnum(d, "runs"), jnum(d, "runs_asked"),
		cJSON_IsTrue(jget(d, "unstable")) ? "; <b>unstable</b>: the rate's spread is over 10% "
						    "of its median" : "");
	partial_note(f, d);
	fprintf(f, "<table class=\"grid\"><tr><th>figure</th><th>median</th><th>interval</th>"
		   "<th>its confidence</th><th>min</th><th>max</th></tr>\n");
	cJSON_ArrayForEach(e, sum) {
		fprintf(f, "<tr><td>");
		esc(f, e->string);
		fprintf(f, "</td><td>");
		num(f, jnum(e, "median"));
		fprintf(f, "</td><td>");
		num(f, jnum(e, "ci_low"));
		fprintf(f, " to ");
		num(f, jnum(e, "ci_high"));
		fprintf(f, "</td><td>%.0f%%</td><td>", 100 * jnum(e, "ci_confidence"));
		num(f, jnum(e, "min"));
		fprintf(f, "</td><td>");
		num(f, jnum(e, "max"));
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
	if (nr < 1)
		return;
	struct chart_bar *b = xcalloc((size_t)nr, sizeof(*b));
	struct chart_series *s = xcalloc((size_t)nr, sizeof(*s));
	char **labels = xcalloc((size_t)nr, sizeof(*labels));
	char xl[96];
	int i = 0;

	cJSON_ArrayForEach(e, results) {
		labels[i] = xmalloc(32);
		snprintf(labels[i], 32, "run %d", i + 1);
		b[i] = (struct chart_bar){labels[i], jnum(e, "rate"), NAN, NAN, NULL, NULL};
		n += cdf_series(jget(e, "latency_us"), &s[n], labels[i]);
		i++;
	}
	snprintf(xl, sizeof(xl), "%s/s", unit_of(cJSON_GetArrayItem(results, 0)));
	chart_bars(f, "Rate of each run", xl, b, nr, NAN, NULL, AX_LIN);
	cdf_charts(f, "Latency of each run", s, n);
	for (i = 0; i < n; i++)
		free((void *)s[i].x);
	for (i = 0; i < nr; i++)
		free(labels[i]);
	free(labels);
	free(s);
	free(b);
	config_table(f, jget(d, "config"));
	env_table(f, jget(cJSON_GetArrayItem(results, 0), "environment"));
}

static void moved_table(FILE *f, const cJSON *list, const char *what, const char *a, const char *b)
{
	const cJSON *e;
	int n = 0;

	if (cJSON_GetArraySize(list) < 1)
		return;
	fprintf(f, "<table class=\"grid\"><caption>where the time moved: %s (CPU us per unit)</caption>"
		   "<tr><th>%s</th><th>%s</th><th>%s</th><th>change</th></tr>\n", what, what, a, b);
	cJSON_ArrayForEach(e, list) {
		if (n++ == 12)
			break;
		fprintf(f, "<tr><td>");
		esc(f, jstr(e, "name"));
		fprintf(f, "</td><td>%.3f</td><td>%.3f</td><td>%+.3f</td></tr>\n", jnum(e, "a_us_per_unit"),
			jnum(e, "b_us_per_unit"), jnum(e, "change"));
	}
	fprintf(f, "</table>\n");
}

static const char *verdict_colour(const char *v)
{
	if (strstr(v, "better") || !strcmp(v, "faster"))
		return "#2ca02c";
	if (strstr(v, "worse") || !strcmp(v, "slower"))
		return "#d62728";
	return "#999";
}

/* Every run's latency CDF, A's in one colour and B's in another: the spread of the runs of
 * each beside the distance between them. */
static void compare_cdfs(FILE *f, const cJSON *d)
{
	const cJSON *side[2] = {jget(d, "latency_cdfs.a"), jget(d, "latency_cdfs.b")}, *e;
	int cap = cJSON_GetArraySize(side[0]) + cJSON_GetArraySize(side[1]), n = 0;
	static const char *const name[2] = {"A (each run)", "B (each run)"};

	if (cap < 1)
		return;
	struct chart_series *s = xcalloc((size_t)cap, sizeof(*s));

	for (int k = 0; k < 2; k++) {
		int first = n;

		cJSON_ArrayForEach(e, side[k])
			n += cdf_series_of(e, &s[n], n == first ? name[k] : NULL);
		for (int i = first; i < n; i++) /* blue and orange: not the verdicts' red and green */
			s[i].colour = chart_palette[k ? 3 : 0];
	}
	cdf_charts(f, "Latency of every run of A and of B", s, n);
	for (int i = 0; i < n; i++)
		free((void *)s[i].x);
	free(s);
}

static void compare_section(FILE *f, const cJSON *d)
{
	const cJSON *figs = jget(d, "figures"), *e;
	int n = 0, nf = cJSON_GetArraySize(figs);

	fprintf(f, "<p class=\"verdict\">");
	esc(f, jstr(d, "verdict"));
	fprintf(f, "</p>\n<table class=\"kv\">");
	row_s(f, "A", jstr(d, "a"));
	row_s(f, "B", jstr(d, "b"));
	row(f, "whole runs of A", jnum(d, "runs_a"), NULL);
	row(f, "whole runs of B", jnum(d, "runs_b"), NULL);
	row_s(f, "runs", cJSON_IsTrue(jget(d, "paired")) ? "paired: A and B in one round each, in an "
							     "order drawn from the seed"
							   : "two saved results (unpaired)");
	row_s(f, "interval", jstr(d, "interval"));
	row_s(f, "order (seed)", jstr(d, "seed"));
	fprintf(f, "</table>\n");
	partial_note(f, d);
	struct chart_bar *b = xcalloc((size_t)(nf > 0 ? nf : 1), sizeof(*b));

	fprintf(f, "<table class=\"grid\"><tr><th>figure</th><th>A</th><th>B</th><th>B/A</th>"
		   "<th>95%% interval</th><th>p</th><th>verdict</th></tr>\n");
	cJSON_ArrayForEach(e, figs) {
		double r = jnum(e, "ratio");

		fprintf(f, "<tr><td>");
		esc(f, jstr(e, "label"));
		fprintf(f, "</td><td>");
		num(f, isnan(r) ? jnum(e, "a_median") : jnum(e, "a_geomean"));
		fprintf(f, "</td><td>");
		num(f, isnan(r) ? jnum(e, "b_median") : jnum(e, "b_geomean"));
		if (isnan(r))
			fprintf(f, "</td><td>-</td><td>-</td><td>-</td><td style=\"color:%s\">",
				verdict_colour(jstr(e, "verdict")));
		else
			fprintf(f, "</td><td>%.3f</td><td>%.3f to %.3f</td><td>%.3g</td><td style=\"color:%s\">",
				r, jnum(e, "ci_low"), jnum(e, "ci_high"), jnum(e, "p_value"),
				verdict_colour(jstr(e, "verdict")));
		esc(f, jstr(e, "verdict"));
		fprintf(f, "</td></tr>\n");
		if (!isnan(r))
			b[n++] = (struct chart_bar){jstr(e, "label"), r, jnum(e, "ci_low"), jnum(e, "ci_high"),
						    verdict_colour(jstr(e, "verdict")), jstr(e, "verdict")};
	}
	fprintf(f, "</table>\n");
	chart_bars(f, "B/A of each figure, with its 95% interval (green: better, red: worse, grey: no "
		      "significant difference)", "B / A", b, n, 1.0, "no difference", AX_LOG);
	free(b);
	compare_cdfs(f, d);
	moved_table(f, jget(d, "where_time_moved.syscalls"), "syscall", "A", "B");
	moved_table(f, jget(d, "where_time_moved.functions"), "kernel function", "A", "B");
	const cJSON *diff = jget(d, "environment.differences");

	if (cJSON_GetArraySize(diff) > 0) {
		fprintf(f, "<table class=\"grid\"><caption>environment: A against B%s</caption><tr>"
			   "<th>setting</th><th>A</th><th>B</th></tr>\n",
			cJSON_IsTrue(jget(d, "environment.warning")) ? " (warning: more than the subject "
								       "differs)" : "");
		cJSON_ArrayForEach(e, diff) {
			char *a = cJSON_PrintUnformatted(jget(e, "a")), *bb = cJSON_PrintUnformatted(jget(e, "b"));

			fprintf(f, "<tr><td>");
			esc(f, jstr(e, "path"));
			fprintf(f, "</td><td>");
			esc(f, a);
			fprintf(f, "</td><td>");
			esc(f, bb);
			fprintf(f, "</td></tr>\n");
			free(a);
			free(bb);
		}
		fprintf(f, "</table>\n");
	}
}

static void explore_entry_row(FILE *f, const cJSON *e, bool ranked)
{
	fprintf(f, "<tr><td>");
	if (ranked)
		fprintf(f, "%.0f", jnum(e, "rank"));
	fprintf(f, "</td><td>");
	esc(f, jstr(e, "name"));
	fprintf(f, "</td><td><code>");
	esc(f, jstr(e, "flags"));
	fprintf(f, "</code></td><td>");
	num(f, jnum(e, "rate"));
	fprintf(f, "</td><td>%.3fx</td><td>%.3f to %.3f</td><td>%.1f%%</td><td>%.0f</td>"
		   "<td style=\"color:%s\">",
		jnum(e, "speedup"), jnum(e, "ci_low"), jnum(e, "ci_high"), 100 * jnum(e, "ci_level"),
		jnum(e, "pairs"), verdict_colour(jstr(e, "verdict")));
	esc(f, *jstr(e, "verdict_text") ? jstr(e, "verdict_text") : jstr(e, "verdict"));
	fprintf(f, "</td></tr>\n");
}

static void explore_section(FILE *f, const cJSON *d)
{
	const cJSON *st = jget(d, "strategies"), *e, *best = jget(d, "best_combination");
	int ns = cJSON_GetArraySize(st), n = 0;
	struct chart_bar *b = xcalloc((size_t)ns + 1, sizeof(*b));
	char **labels = xcalloc((size_t)ns + 1, sizeof(*labels));

	fprintf(f, "<p>Baseline <code>");
	esc(f, jstr(d, "workload"));
	fprintf(f, "</code> as given: ");
	num(f, jnum(d, "baseline.rate"));
	fprintf(f, " %s/s (median of %.0f runs). %.0f rounds of %.3g s runs, each round every "
		   "configuration once in an order from seed %s; the verdicts share one %.0f%% "
		   "family-wise confidence (Holm), so each strategy's interval is drawn at the level it "
		   "was held to.</p>\n",
		unit_of(d), jnum(d, "baseline.runs"), jnum(d, "runs"), jnum(d, "run_seconds"),
		jstr(d, "seed"), 100 * jnum(d, "family_confidence"));
	partial_note(f, d);
	cJSON_ArrayForEach(e, st) {
		labels[n] = xmalloc(128);
		snprintf(labels[n], 128, "%.0f. %s", jnum(e, "rank"), jstr(e, "name"));
		b[n] = (struct chart_bar){labels[n], jnum(e, "speedup"), jnum(e, "ci_low"), jnum(e, "ci_high"),
					  verdict_colour(jstr(e, "verdict")), jstr(e, "verdict_text")};
		if (!isnan(b[n].v))
			n++;
		else
			free(labels[n]);
	}
	if (cJSON_IsObject(best) && !isnan(jnum(best, "speedup"))) {
		labels[n] = xmalloc(128);
		snprintf(labels[n], 128, "best combination: %s", jstr(best, "name"));
		b[n] = (struct chart_bar){labels[n], jnum(best, "speedup"), jnum(best, "ci_low"),
					  jnum(best, "ci_high"), verdict_colour(jstr(best, "verdict")),
					  jstr(best, "verdict_text")};
		n++;
	}
	chart_bars(f, "Each strategy's gain over the baseline, with its interval (green: faster, "
		      "red: slower, grey: no verdict)", "rate / the baseline's rate", b, n, 1.0,
		   "baseline", AX_LOG);
	for (int i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	free(b);
	fprintf(f, "<table class=\"grid\"><tr><th>rank</th><th>strategy</th><th>flags</th>"
		   "<th>%s/s</th><th>gain</th><th>interval</th><th>at</th><th>pairs</th>"
		   "<th>verdict</th></tr>\n", unit_of(d));
	cJSON_ArrayForEach(e, st)
		explore_entry_row(f, e, true);
	if (cJSON_IsObject(best))
		explore_entry_row(f, best, false);
	fprintf(f, "</table>\n");
	if (cJSON_GetArraySize(jget(d, "changes_workload")) > 0) {
		fprintf(f, "<table class=\"grid\"><caption>strategies that change what is measured "
			   "(not ranked)</caption><tr><th></th><th>strategy</th><th>flags</th><th>rate"
			   "</th><th>gain</th><th>interval</th><th>at</th><th>pairs</th><th>verdict</th>"
			   "</tr>\n");
		cJSON_ArrayForEach(e, jget(d, "changes_workload"))
			explore_entry_row(f, e, false);
		fprintf(f, "</table>\n");
	}
	if (cJSON_GetArraySize(jget(d, "not_applicable")) > 0) {
		fprintf(f, "<details><summary>not tried</summary><ul>\n");
		cJSON_ArrayForEach(e, jget(d, "not_applicable")) {
			fprintf(f, "<li>");
			esc(f, jstr(e, "name"));
			fprintf(f, ": ");
			esc(f, jstr(e, "reason"));
			fprintf(f, "</li>\n");
		}
		fprintf(f, "</ul></details>\n");
	}
	config_table(f, jget(d, "config"));
}

static void sweep_section(FILE *f, const cJSON *d)
{
	const cJSON *pts = jget(d, "points"), *e;
	int n = cJSON_GetArraySize(pts), i = 0;
	bool cmp = cJSON_IsString(jget(d, "compare"));

	if (n < 1)
		return;
	double *v = xcalloc(8 * (size_t)n, sizeof(double));
	double *x = v, *ya = v + n, *la = v + 2 * n, *ha = v + 3 * n, *yb = v + 4 * n, *lb = v + 5 * n;
	double *r = v + 6 * n, *lr = v + 7 * n, *hr = xcalloc((size_t)n, sizeof(double)),
	       *hb = xcalloc((size_t)n, sizeof(double));
	char **names = xcalloc((size_t)n, sizeof(*names));
	double top = 0, rlo = 1, rhi = 1;
	char xl[128] = "", blabel[160];

	cJSON_ArrayForEach(e, pts) {
		const cJSON *kv;
		FILE *m;
		size_t len;

		if (!(m = open_memstream(&names[i], &len)))
			die("out of memory");
		bool first = true;

		cJSON_ArrayForEach(kv, jget(e, "values")) {
			char *s = cJSON_PrintUnformatted(kv);

			fprintf(m, "%s%s=%s", first ? "" : " ", kv->string, s);
			first = false;
			free(s);
		}
		fclose(m);
		x[i] = i;
		ya[i] = jnum(e, "a.rate.median");
		la[i] = jnum(e, "a.rate.ci_low");
		ha[i] = jnum(e, "a.rate.ci_high");
		yb[i] = jnum(e, "b.rate.median");
		lb[i] = jnum(e, "b.rate.ci_low");
		hb[i] = jnum(e, "b.rate.ci_high");
		r[i] = jnum(e, "ratio");
		lr[i] = jnum(e, "ci_low");
		hr[i] = jnum(e, "ci_high");
		top = fmax(top, fmax(ha[i], cmp ? hb[i] : 0));
		if (!isnan(lr[i]))
			rlo = fmin(rlo, lr[i]), rhi = fmax(rhi, hr[i]);
		i++;
	}
	cJSON_ArrayForEach(e, jget(d, "params")) {
		const char *p = cJSON_IsString(e) ? e->valuestring : e->string ? e->string : "?";

		snprintf(xl + strlen(xl), sizeof(xl) - strlen(xl), "%s--%s", *xl ? ", " : "", p);
	}
	snprintf(blabel, sizeof(blabel), "B: A plus %s", jstr(d, "compare"));
	/* Two swept flags: the first (which varies fastest) along x, a line per value of the
	 * second, as `sweep --plot` draws it. Otherwise every point along x. */
	const cJSON *params = jget(d, "params");
	int k1 = n, groups = 1;

	if (cJSON_GetArraySize(params) == 2) {
		const char *p2 = cJSON_GetStringValue(cJSON_GetArrayItem(params, 1));
		const cJSON *v0 = jget(cJSON_GetArrayItem(pts, 0), "values");

		for (k1 = 1; k1 < n; k1++)
			if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(
						   jget(cJSON_GetArrayItem(pts, k1), "values"), p2 ? p2 : ""),
					   cJSON_GetObjectItemCaseSensitive(v0, p2 ? p2 : ""), true))
				break;
		groups = k1 < n && n % k1 == 0 ? n / k1 : 1;
		if (groups == 1)
			k1 = n;
	}
	char **xn = names, **gl = xcalloc((size_t)groups, sizeof(*gl));
	struct chart_series *s = xcalloc((size_t)groups + 1, sizeof(*s));
	struct chart_series *rs = xcalloc((size_t)groups, sizeof(*rs));

	if (groups > 1) {
		const char *p1 = cJSON_GetStringValue(cJSON_GetArrayItem(params, 0));
		const char *p2 = cJSON_GetStringValue(cJSON_GetArrayItem(params, 1));

		xn = xcalloc((size_t)k1, sizeof(*xn));
		for (int k = 0; k < k1; k++) {
			char *v = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(
				jget(cJSON_GetArrayItem(pts, k), "values"), p1 ? p1 : ""));

			xn[k] = xmalloc(96);
			snprintf(xn[k], 96, "%s=%s", p1 ? p1 : "?", v ? v : "?");
			free(v);
		}
		for (int g = 0; g < groups; g++) {
			char *v = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(
				jget(cJSON_GetArrayItem(pts, g * k1), "values"), p2 ? p2 : ""));

			gl[g] = xmalloc(96);
			snprintf(gl[g], 96, "%s=%s", p2 ? p2 : "?", v ? v : "?");
			free(v);
		}
		snprintf(xl, sizeof(xl), "--%s (a line per --%s)", p1 ? p1 : "?", p2 ? p2 : "?");
	}
	int ns = 0;

	for (int g = 0; g < groups; g++) {
		s[ns++] = (struct chart_series){.label = groups > 1 ? gl[g] : "A", .x = x,
						.y = ya + g * k1, .lo = la + g * k1, .hi = ha + g * k1,
						.n = k1};
		rs[g] = (struct chart_series){.label = groups > 1 ? gl[g] : "B / A", .x = x,
					      .y = r + g * k1, .lo = lr + g * k1, .hi = hr + g * k1,
					      .n = k1};
	}
	if (cmp && groups == 1)
		s[ns++] = (struct chart_series){.label = blabel, .x = x, .y = yb, .lo = lb, .hi = hb,
						.n = n};
	char yl[64], title[200];

	snprintf(yl, sizeof(yl), "%s/s", unit_of(d));
	snprintf(title, sizeof(title), "Median rate%s at each point of the sweep (%.0f runs a point), "
		 "whiskers: its interval", groups > 1 && cmp ? " of A" : "", jnum(d, "runs"));
	struct chart c = {.title = title, .xlabel = xl, .ylabel = yl, .xa = AX_LIN, .ya = AX_LIN,
			  .xmin = -0.5, .xmax = k1 - 0.5, .ymin = 0, .ymax = top > 0 ? top * 1.1 : 1,
			  .markers = true, .ref = NAN, .xnames = (const char *const *)xn,
			  .nxnames = k1};

	chart_lines(f, &c, s, ns);
	if (cmp) {
		struct chart rc = c;
		char rt[200];

		snprintf(rt, sizeof(rt), "B / A at each point (B: A plus %s; geometric mean of the "
			 "paired runs), whiskers: 95%% interval", jstr(d, "compare"));
		rc.title = rt;
		rc.ylabel = "B / A";
		rc.ymin = fmax(0, rlo - (rhi - rlo) * 0.1 - 0.05);
		rc.ymax = rhi + (rhi - rlo) * 0.1 + 0.05;
		rc.ref = 1;
		rc.ref_label = "no difference (B/A = 1)";
		chart_lines(f, &rc, rs, groups);
	}
	if (xn != names) {
		for (int k = 0; k < k1; k++)
			free(xn[k]);
		free(xn);
	}
	for (int g = 0; g < groups; g++)
		free(gl[g]);
	free(gl);
	free(s);
	free(rs);
	fprintf(f, "<table class=\"grid\"><tr><th>point</th><th>A median</th><th>A interval</th>%s</tr>\n",
		cmp ? "<th>B median</th><th>B/A</th><th>95% interval</th>" : "");
	for (i = 0; i < n; i++) {
		fprintf(f, "<tr><td>");
		esc(f, names[i]);
		fprintf(f, "</td><td>");
		num(f, ya[i]);
		fprintf(f, "</td><td>");
		num(f, la[i]);
		fprintf(f, " to ");
		num(f, ha[i]);
		if (cmp) {
			fprintf(f, "</td><td>");
			num(f, yb[i]);
			fprintf(f, "</td><td>%.3f</td><td>%.3f to %.3f", r[i], lr[i], hr[i]);
		}
		fprintf(f, "</td></tr>\n");
		free(names[i]);
	}
	fprintf(f, "</table>\n");
	free(names);
	free(v);
	free(hr);
	free(hb);
}

/* ---- the page ---- */

static const char css[] =
	"body{font-family:sans-serif;margin:24px auto;max-width:1260px;color:#222;background:#fafafa}"
	"h1{font-size:22px}h2{font-size:18px;border-bottom:2px solid #ccc;padding-bottom:4px;margin-top:40px}"
	"section{background:#fff;padding:8px 20px 20px;margin-bottom:24px;border:1px solid #ddd}"
	"table{border-collapse:collapse;margin:10px 0}td,th{padding:3px 10px;text-align:left;"
	"vertical-align:top}table.grid td,table.grid th{border:1px solid #ddd}"
	"table.grid th{background:#f0f0f0}table.kv th{font-weight:normal;color:#555}"
	"caption{text-align:left;font-weight:bold;padding:4px 0}.sub{color:#777;font-size:12px}"
	".warn{color:#b00}.verdict{font-size:18px;font-weight:bold}svg{display:block;margin:14px 0;"
	"max-width:100%;height:auto}code{background:#f3f3f3;padding:1px 4px}"
	".flamebox input{width:320px}details{margin:6px 0}summary{cursor:pointer;color:#335}";

static const char *kind_name(enum kind k)
{
	static const char *const names[] = {"single run", "repeated runs", "compare", "explore",
					    "sweep"};

	return k < K_BAD ? names[k] : "?";
}

int out_report_html(cJSON *const *docs, const char *const *names, int n, FILE *f)
{
	flame_no = 0;
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		   "<title>sockbench report</title>\n<style>%s</style></head>\n<body>\n"
		   "<h1>sockbench report</h1>\n<p>From %d saved result%s, drawn by sockbench %s. "
		   "Every figure is the result file's own; hover a bar or a frame for its value.</p>\n"
		   "<ul>\n",
		css, n, n == 1 ? "" : "s", SB_VERSION);
	for (int i = 0; i < n; i++) {
		fprintf(f, "<li><a href=\"#doc%d\">", i + 1);
		esc(f, names[i]);
		fprintf(f, "</a>: %s of <code>", kind_name(kind_of(docs[i])));
		esc(f, jstr(docs[i], "workload"));
		fprintf(f, "</code>");
		if (*jstr(docs[i], "version")) {
			fprintf(f, " (sockbench ");
			esc(f, jstr(docs[i], "version"));
			fprintf(f, ")");
		}
		fprintf(f, "</li>\n");
	}
	fprintf(f, "</ul>\n");
	if (n > 1) { /* the overview */
		struct chart_bar *b = xcalloc((size_t)n, sizeof(*b));
		struct chart_series *s = xcalloc((size_t)n, sizeof(*s));
		char **labels = xcalloc((size_t)n, sizeof(*labels));
		int nb = 0, ns = 0;

		for (int i = 0; i < n; i++) {
			const cJSON *one = kind_of(docs[i]) == K_RUN ? docs[i]
					   : kind_of(docs[i]) == K_RUNS
						   ? cJSON_GetArrayItem(jget(docs[i], "results"), 0)
						   : NULL;
			double rate = kind_of(docs[i]) == K_RUNS ? jnum(docs[i], "summary.rate.median")
								 : jnum(one, "rate");

			bool runs = kind_of(docs[i]) == K_RUNS;

			if (!one)
				continue;
			/* A result's bar and its CDF take the same colour. */
			labels[nb] = xmalloc(256);
			snprintf(labels[nb], 256, "%s (%ss/s)", names[i], unit_of(one));
			b[nb] = (struct chart_bar){labels[nb], rate,
						   runs ? jnum(docs[i], "summary.rate.ci_low") : NAN,
						   runs ? jnum(docs[i], "summary.rate.ci_high") : NAN,
						   chart_palette[ns % CHART_COLOURS], NULL};
			nb++;
			if (cdf_series(jget(one, "latency_us"), &s[ns], names[i]))
				s[ns].colour = chart_palette[ns % CHART_COLOURS], ns++;
		}
		if (nb > 1) {
			fprintf(f, "<section><h2>Overview</h2>\n");
			chart_bars(f, "Rate of each result (repeated runs: the median and its interval)",
				   "units per second (each result's own unit, in its label)", b, nb, NAN, NULL, AX_LIN);
			cdf_charts(f, "Latency of each result (repeated runs: the first)", s, ns);
			fprintf(f, "</section>\n");
		}
		for (int i = 0; i < ns; i++)
			free((void *)s[i].x);
		for (int i = 0; i < nb; i++)
			free(labels[i]);
		free(labels);
		free(s);
		free(b);
	}
	for (int i = 0; i < n; i++) {
		enum kind k = kind_of(docs[i]);

		fprintf(f, "<section id=\"doc%d\" data-kind=\"%s\"><h2>", i + 1, kind_name(k));
		esc(f, names[i]);
		fprintf(f, ": %s of <code>", kind_name(k));
		esc(f, jstr(docs[i], "workload"));
		fprintf(f, "</code></h2>\n");
		switch (k) {
		case K_RUN: run_section(f, docs[i]); break;
		case K_RUNS: runs_section(f, docs[i]); break;
		case K_COMPARE: compare_section(f, docs[i]); break;
		case K_EXPLORE: explore_section(f, docs[i]); break;
		case K_SWEEP: sweep_section(f, docs[i]); break;
		default: break;
		}
		fprintf(f, "</section>\n");
	}
	fprintf(f, "<script>\n%s"
		   "document.querySelectorAll('svg.flame').forEach(function(s){window.sbFlame.init(s);});\n"
		   "document.querySelectorAll('input[data-flame]').forEach(function(i){"
		   "i.addEventListener('input',function(){window.sbFlame.search("
		   "document.getElementById(i.getAttribute('data-flame')),i.value);});});\n"
		   "var m=/^#search=(.*)$/.exec(location.hash);\n"
		   "if(m) document.querySelectorAll('input[data-flame]').forEach(function(i){"
		   "i.value=decodeURIComponent(m[1]);i.dispatchEvent(new Event('input'));});\n"
		   "document.body.setAttribute('data-ready','1');\n</script>\n</body></html>\n",
		out_flame_script());
	return ferror(f) ? -EIO : 0;
}
