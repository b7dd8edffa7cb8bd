/* html_run.c: the report's section for a single run (headline, CDFs, rate over the window,
 * CPU per side, time per syscall, flame graph, kernel counters) and for --runs.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/figure_table.h"
#include "base/util.h"
#include "report/chart.h"
#include "report/html_priv.h"
#include "report/out.h"

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
		const cJSON *sd = html_jget(d, path);
		double u = html_jnum(sd, "user_s"), y = html_jnum(sd, "sys_s"),
		       per = html_jnum(sd, "cpu_us_per_unit");

		if (!cJSON_IsObject(sd) || isnan(per) || !(u + y > 0))
			continue;
		s[n++] = (struct chart_stack){sides[i], per * u / (u + y), per * y / (u + y)};
	}
	if (!n)
		return;
	snprintf(xl, sizeof(xl), "CPU us per %s (that side's processes, getrusage)", html_unit_of(d));
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
		const cJSON *list = html_jget(d, path);

		snprintf(path, sizeof(path), "sides.%s.cpu_us_per_unit", sides[i]);
		double per = html_jnum(d, path);

		if (cJSON_GetArraySize(list) < 1 || isnan(per))
			continue;
		cJSON_ArrayForEach(e, list) {
			double pct = html_jnum(e, "pct");

			if (n == 12)
				break;
			labels[n] = xmalloc(96);
			snprintf(labels[n], 96, "%s (%.1f%%)", html_jstr(e, "name"), pct);
			b[n] = (struct chart_bar){labels[n], per * pct / 100, NAN, NAN, side_colour[i], NULL};
			n++;
		}
		snprintf(title, sizeof(title), "Time per syscall: %s", sides[i]);
		snprintf(xl, sizeof(xl), "CPU us per %s (share of the %s's profile samples)", html_unit_of(d),
			 sides[i]);
		struct chart_bar_opts o = {.title = title, .xlabel = xl, .ref = NAN};

		chart_bars(f, &o, b, n);
		for (int k = 0; k < n; k++)
			free(labels[k]);
	}
}

static int flame_no;

/* One figure of the intervals (-i) over the window, at each interval's middle. */
static void interval_chart(FILE *f, const cJSON *d, const char *key, const char *title,
			   const char *ylabel, double scale)
{
	const cJSON *a = html_jget(d, "intervals"), *e;
	int n = cJSON_GetArraySize(a), k = 0;
	double *x = xmalloc(2 * (size_t)(n ? n : 1) * sizeof(double)), *y = x + n, top = 0;

	cJSON_ArrayForEach(e, a) {
		double v = html_jnum(e, key), t = html_jnum(e, "t_s"), len = html_jnum(e, "len_s");

		if (isnan(v) || isnan(t) || isnan(len))
			continue;
		x[k] = t - len / 2;
		y[k] = v * scale;
		top = fmax(top, y[k]);
		k++;
	}
	if (k > 0) {
		double dur = html_jnum(d, "duration_s");
		struct chart c = {.title = title, .xlabel = "seconds into the window", .ylabel = ylabel,
				  .xa = AX_LIN, .ya = AX_LIN, .xmin = 0, .xmax = isnan(dur) ? x[k - 1] : dur,
				  .ymin = 0, .ymax = top > 0 ? top * 1.1 : 1, .markers = true, .ref = NAN};
		struct chart_series s1 = {.label = html_jstr(d, "intervals_scope"), .x = x, .y = y,
					  .n = k};

		chart_lines(f, &c, &s1, 1);
	}
	free(x);
}

static void interval_charts(FILE *f, const cJSON *d)
{
	char ylabel[64];

	if (!cJSON_IsArray(html_jget(d, "intervals")))
		return;
	const struct workload *wl = workload_find(html_jstr(d, "workload"));
	/* A stream's in Gbit/s, as its rate over the window and its -i lines */
	bool gbit = wl && (workload_shows(wl) & SHOWS_MEGABYTES);

	snprintf(ylabel, sizeof(ylabel), "%ss/s", html_jstr(d, "unit"));
	interval_chart(f, d, "rate", "Rate of each interval (-i)", gbit ? "Gbit/s" : ylabel,
		       gbit ? 8 / 1e3 : 1);
	interval_chart(f, d, "p99_us", "p99 latency of each interval (-i)", "microseconds", 1);
}

void html_run_page_start(void)
{
	flame_no = 0;
}

static void flame(FILE *f, const cJSON *prof, const char *what)
{
	char id[32], title[160];

	if (!cJSON_IsArray(html_jget(prof, "stacks")))
		return;
	snprintf(id, sizeof(id), "flame%d", ++flame_no);
	snprintf(title, sizeof(title), "%s: where the window's CPU time went", what);
	html_printf(f, "<div class=\"flamebox\"><label>search the flame graph (a regular expression): "
		   "<input type=\"search\" data-flame=\"%s\"></label>\n", id);
	if (out_flamegraph(prof, title, id, false, f))
		html_printf(f, "<p>(the profile took no samples)</p>\n");
	html_printf(f, "</div>\n");
}

/* A latency figure, "≥" before it when the document says it is only a lower bound. */
static void lat_row(FILE *f, const cJSON *d, const char *key, const char *label)
{
	const cJSON *it;
	char path[40];
	bool bound = false;

	cJSON_ArrayForEach(it, html_jget(d, "latency_us.at_least"))
		bound |= cJSON_IsString(it) && !strcmp(it->valuestring, key);
	snprintf(path, sizeof(path), "latency_us.%s", key);
	if (!bound) {
		html_row(f, label, html_jnum(d, path), "us");
		return;
	}
	html_printf(f, "<tr><th>");
	html_text(f, label);
	html_printf(f, "</th><td>&ge; ");
	html_num(f, html_jnum(d, path));
	html_printf(f, " us</td></tr>\n");
}

/* A figure of the table (base/figure_table.h) as a row: its value and unit, named so. */
static void figure_row(FILE *f, const cJSON *d, const char *name, int fig)
{
	html_row(f, name, html_jnum(d, figures[fig].path), figures[fig].unit);
}

static void headline(FILE *f, const cJSON *d)
{
	html_printf(f, "<table class=\"kv\">\n");
	char unit[48];

	snprintf(unit, sizeof(unit), "%ss/s", html_unit_of(d));
	html_row(f, "rate", html_jnum(d, "rate"), unit);
	html_printf(f, "<tr><th></th><td class=\"sub\">over a %.3g s window</td></tr>\n",
		html_jnum(d, "duration_s"));
	if (html_jget(d, "latency_us")) {
		static const char *const keys[][2] = {{"p50", "latency p50"}, {"p99", "latency p99"},
						      {"p999", "latency p99.9"}, {"p9999", "latency p99.99"}};

		for (size_t i = 0; i < 4; i++)
			lat_row(f, d, keys[i][0], keys[i][1]);
		if (html_jnum(d, "latency_us.unanswered") > 0) {
			html_row(f, "unanswered or failed", html_jnum(d, "latency_us.unanswered"), NULL);
			html_printf(f, "<tr><th></th><td class=\"sub\">in the latencies at what each waited; "
				    "&ge;: a lower bound</td></tr>\n");
		}
	} else { /* a stream */
		figure_row(f, d, "throughput", FIG_GBIT);
		if (html_jget(d, figures[FIG_LOSS].path))
			figure_row(f, d, "loss", FIG_LOSS);
		if (html_jget(d, "jitter_ms"))
			html_row(f, "jitter (RFC 3550)", html_jnum(d, "jitter_ms"), "ms");
		if (html_jget(d, figures[FIG_RETRANS].path))
			figure_row(f, d, "retransmits", FIG_RETRANS);
	}
	if (html_jget(d, "connect_latency_us"))
		figure_row(f, d, "connect() p50", FIG_CONNECT_P50);
	figure_row(f, d, "client CPU", FIG_CLIENT_CPU);
	figure_row(f, d, "server CPU", FIG_SERVER_CPU);
	html_row(f, "errors", html_jnum(d, "errors"), NULL);
	html_printf(f, "</table>\n");
}

/* ---- the kinds ---- */

void html_run_section(FILE *f, const cJSON *d)
{
	const struct workload *wl = workload_find(html_jstr(d, "workload"));
	struct chart_series s[2];
	int n = 0;

	headline(f, d);
	html_partial_note(f, d);
	html_config_table(f, html_jget(d, "config"));
	html_env_table(f, html_jget(d, "environment"));
	n += html_cdf_series(html_jget(d, "latency_us"), &s[n], "round trip");
	if (html_jget(d, "connect_latency_us"))
		n += html_cdf_series(html_jget(d, "connect_latency_us"), &s[n], "connect() alone");
	if (wl && (wl->shows & SHOWS_CONNECTIONS) && n)
		s[0].label = "connect start to last byte";
	html_cdf_charts(f, "Latency", s, n);
	for (int i = 0; i < n; i++)
		free((void *)s[i].x);
	const cJSON *pts = html_jget(d, "rate_over_window.points"), *p;
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
		dur = html_jnum(d, "duration_s");
		snprintf(title, sizeof(title), "Rate over the window: %s, over each %.2g s",
			 html_jstr(d, "rate_over_window.what"), html_jnum(d, "rate_over_window.step_s"));
		struct chart c = {.title = title, .xlabel = "seconds into the window", .ylabel = "Gbit/s",
				  .xa = AX_LIN, .ya = AX_LIN, .xmin = 0, .xmax = isnan(dur) ? x[k - 1] : dur,
				  .ymin = 0, .ymax = top > 0 ? top * 1.1 : 1, .markers = true, .ref = NAN};
		struct chart_series s1 = {.label = "clients", .x = x, .y = y, .n = k};

		chart_lines(f, &c, &s1, 1);
		free(x);
	}
	interval_charts(f, d);
	html_trace_chart(f, d);
	cpu_chart(f, d);
	const cJSON *prof = html_jget(d, "profile");

	if (cJSON_IsFalse(html_jget(prof, "available"))) {
		html_printf(f, "<p class=\"warn\">No profile: ");
		html_text(f, html_jstr(prof, "error"));
		html_printf(f, "</p>\n");
	} else if (prof) {
		syscall_chart(f, d);
		flame(f, prof, html_jstr(d, "workload"));
	}
	const cJSON *kc = html_jget(d, "kernel_check.counters"), *e;

	if (cJSON_IsObject(kc) && kc->child) { /* none (tcp-rr): no table, not an empty one */
		html_printf(f, "<table class=\"grid\"><caption>our counts beside the kernel's (%s)</caption>"
			   "<tr><th>counter</th><th>ours</th><th>kernel</th><th>difference</th></tr>\n",
			html_jstr(d, "kernel_check.scope"));
		cJSON_ArrayForEach(e, kc) {
			html_printf(f, "<tr><td>");
			html_text(f, e->string);
			html_printf(f, "</td><td>%.0f</td><td>%.0f</td><td>%.3f%%</td></tr>\n", html_jnum(e, "ours"),
				html_jnum(e, "kernel"), html_jnum(e, "diff_pct"));
		}
		html_printf(f, "</table>\n");
	}
}

void html_runs_section(FILE *f, const cJSON *d)
{
	const cJSON *sum = html_jget(d, "summary"), *e;
	const cJSON *results = html_jget(d, "results");
	int nr = cJSON_GetArraySize(results), n = 0;

	/* The markup in the format, never in an argument: html_printf escapes those */
	html_printf(f, "<p>%.0f whole runs of %.0f asked", html_jnum(d, "runs"),
		    html_jnum(d, "runs_asked"));
	if (cJSON_IsTrue(html_jget(d, "unstable")))
		html_printf(f, "; <b>unstable</b>: the rate's spread is over 10%% of its median");
	html_printf(f, ".</p>\n");
	html_partial_note(f, d);
	html_printf(f, "<table class=\"grid\"><tr><th>figure</th><th>median</th><th>interval</th>"
		   "<th>its confidence</th><th>min</th><th>max</th></tr>\n");
	cJSON_ArrayForEach(e, sum) {
		html_printf(f, "<tr><td>");
		html_text(f, e->string);
		html_printf(f, "</td>");
		html_num_cells(f, e, "median");
		html_printf(f, "<td>");
		html_num(f, html_jnum(e, "ci_low"));
		html_printf(f, " to ");
		html_num(f, html_jnum(e, "ci_high"));
		html_printf(f, "</td><td>%.0f%%</td>", 100 * html_jnum(e, "ci_confidence"));
		html_num_cells(f, e, "min max");
		html_printf(f, "</tr>\n");
	}
	html_printf(f, "</table>\n");
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
		b[i] = (struct chart_bar){labels[i], html_jnum(e, "rate"), NAN, NAN, NULL, NULL};
		n += html_cdf_series(html_jget(e, "latency_us"), &s[n], labels[i]);
		i++;
	}
	snprintf(xl, sizeof(xl), "%s/s", html_unit_of(cJSON_GetArrayItem(results, 0)));
	struct chart_bar_opts o = {.title = "Rate of each run", .xlabel = xl, .ref = NAN};

	chart_bars(f, &o, b, nr);
	html_cdf_charts(f, "Latency of each run", s, n);
	for (i = 0; i < n; i++)
		free((void *)s[i].x);
	for (i = 0; i < nr; i++)
		free(labels[i]);
	free(labels);
	free(s);
	free(b);
	html_config_table(f, html_jget(d, "config"));
	html_env_table(f, html_jget(cJSON_GetArrayItem(results, 0), "environment"));
}
