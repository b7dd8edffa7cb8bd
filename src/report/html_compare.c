/* html_compare.c: the report's section for a compare document: the verdict, each figure's
 * ratio with its interval, every run's CDF of A and B, where the time moved, the environment.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/chart.h"
#include "report/html_priv.h"
#include "report/out.h"

static void moved_table(FILE *f, const cJSON *list, const char *what, const char *a, const char *b)
{
	const cJSON *e;
	int n = 0;

	if (cJSON_GetArraySize(list) < 1)
		return;
	html_printf(
	    f,
	    "<table class=\"grid\"><caption>where the time moved: %s (CPU us per unit)</caption>"
	    "<tr><th>%s</th><th>%s</th><th>%s</th><th>change</th></tr>\n",
	    what, what, a, b);
	cJSON_ArrayForEach(e, list) {
		if (n++ == 12)
			break;
		html_printf(f, "<tr><td>");
		html_text(f, html_jstr(e, "name"));
		html_printf(f, "</td><td>%.3f</td><td>%.3f</td><td>%+.3f</td></tr>\n",
			    html_jnum(e, "a_us_per_unit"), html_jnum(e, "b_us_per_unit"),
			    html_jnum(e, "change"));
	}
	html_printf(f, "</table>\n");
}

/* Every run's latency CDF, A's in one colour and B's in another: the spread of the runs of
 * each beside the distance between them. */
static void compare_cdfs(FILE *f, const cJSON *d)
{
	const cJSON *side[2] = {html_jget(d, "latency_cdfs.a"), html_jget(d, "latency_cdfs.b")}, *e;
	int cap = cJSON_GetArraySize(side[0]) + cJSON_GetArraySize(side[1]), n = 0;
	static const char *const name[2] = {"A (each run)", "B (each run)"};

	if (cap < 1)
		return;
	struct chart_series *s = xcalloc((size_t)cap, sizeof(*s));

	for (int k = 0; k < 2; k++) {
		int first = n;

		cJSON_ArrayForEach(e, side[k])
			n += html_cdf_series_of(e, &s[n], n == first ? name[k] : NULL);
		for (int i = first; i < n; i++) /* blue and orange: not the verdicts' red and green */
			s[i].colour = chart_palette[k ? 1 : 0];
	}
	html_cdf_charts(f, "Latency of every run of A and of B", s, n);
	for (int i = 0; i < n; i++)
		free((void *)s[i].x);
	free(s);
}

/* The verdict, and what was compared and how. */
static void compare_head(FILE *f, const cJSON *d)
{
	html_printf(f, "<p class=\"verdict\">");
	html_text(f, html_jstr(d, "verdict"));
	html_printf(f, "</p>\n<table class=\"kv\">");
	html_row_s(f, "A", html_jstr(d, "a"));
	html_row_s(f, "B", html_jstr(d, "b"));
	html_row(f, "whole runs of A", html_jnum(d, "runs_a"), NULL);
	html_row(f, "whole runs of B", html_jnum(d, "runs_b"), NULL);
	html_row_s(f, "runs",
		   cJSON_IsTrue(html_jget(d, "paired"))
		       ? "paired: A and B in one round each, in an "
			 "order drawn from the seed"
		       : "two saved results (unpaired)");
	html_row_s(f, "interval", html_jstr(d, "interval"));
	html_row_s(f, "primary figure (95% on its own p)", html_jstr(d, "verdicts.primary"));
	html_row_s(f, "the other figures", html_jstr(d, "verdicts.rule"));
	html_row_s(f, "order (seed)", html_jstr(d, "seed"));
	html_printf(f, "</table>\n");
	html_partial_note(f, d);
}

/* One figure's row of the table: A, B, and with a ratio its interval, p and Holm p. */
static void figure_row(FILE *f, const cJSON *e)
{
	double r = html_jnum(e, "ratio");

	html_printf(f, "<tr><td>");
	html_text(f, html_jstr(e, "label"));
	html_printf(f, "</td><td>");
	html_num(f, isnan(r) ? html_jnum(e, "a_median") : html_jnum(e, "a_geomean"));
	html_printf(f, "</td><td>");
	html_num(f, isnan(r) ? html_jnum(e, "b_median") : html_jnum(e, "b_geomean"));
	if (isnan(r))
		html_printf(f, "</td><td>-</td><td>-</td><td>-</td><td>-</td><td style=\"color:%s\">",
			html_verdict_colour(html_jstr(e, "verdict")));
	else
		html_printf(f, "</td><td>%.3f</td><td>%.3f to %.3f</td><td>%.3g</td>", r,
			html_jnum(e, "ci_low"), html_jnum(e, "ci_high"), html_jnum(e, "p_value"));
	if (!isnan(r) && !strcmp(html_jstr(e, "method"), "primary"))
		html_printf(f, "<td>primary</td><td style=\"color:%s\">",
			    html_verdict_colour(html_jstr(e, "verdict")));
	else if (!isnan(r)) /* older documents have no p_adjusted: NaN, shown as such */
		html_printf(f, "<td>%.3g</td><td style=\"color:%s\">", html_jnum(e, "p_adjusted"),
			    html_verdict_colour(html_jstr(e, "verdict")));
	html_text(f, html_jstr(e, "verdict"));
	html_printf(f, "</td></tr>\n");
}

/* Every figure in a table, and those with a ratio as bars around 1 with their intervals. */
static void compare_figures(FILE *f, const cJSON *d)
{
	const cJSON *figs = html_jget(d, "figures"), *e;
	int n = 0, nf = cJSON_GetArraySize(figs);
	struct chart_bar *b = xcalloc((size_t)(nf > 0 ? nf : 1), sizeof(*b));

	html_printf(f, "<table class=\"grid\"><tr><th>figure</th><th>A</th><th>B</th><th>B/A</th>"
		   "<th>95%% interval</th><th>p</th><th>Holm p</th><th>verdict</th></tr>\n");
	cJSON_ArrayForEach(e, figs) {
		double r = html_jnum(e, "ratio");

		figure_row(f, e);
		if (!isnan(r))
			b[n++] = html_verdict_bar(e, html_jstr(e, "label"), "ratio", "verdict");
	}
	html_printf(f, "</table>\n");
	html_ratio_bars(f,
			"B/A of each figure, with its 95% interval (green: better, red: worse, "
			"grey: no significant difference)",
			"B / A", "no difference", b, n);
	free(b);
}

/* What differs between A's environment and B's. */
static void env_table(FILE *f, const cJSON *d)
{
	const cJSON *diff = html_jget(d, "environment.differences"), *e;

	if (cJSON_GetArraySize(diff) < 1)
		return;
	html_printf(f, "<table class=\"grid\"><caption>environment: A against B%s</caption><tr>"
		   "<th>setting</th><th>A</th><th>B</th></tr>\n",
		cJSON_IsTrue(html_jget(d, "environment.warning")) ? " (warning: more than the subject "
							       "differs)" : "");
	cJSON_ArrayForEach(e, diff) {
		char *a = cJSON_PrintUnformatted(html_jget(e, "a")),
		     *b = cJSON_PrintUnformatted(html_jget(e, "b"));

		html_printf(f, "<tr><td>");
		html_text(f, html_jstr(e, "path"));
		html_printf(f, "</td><td>");
		html_text(f, a);
		html_printf(f, "</td><td>");
		html_text(f, b);
		html_printf(f, "</td></tr>\n");
		free(a);
		free(b);
	}
	html_printf(f, "</table>\n");
}

void html_compare_section(FILE *f, const cJSON *d)
{
	compare_head(f, d);
	compare_figures(f, d);
	compare_cdfs(f, d);
	moved_table(f, html_jget(d, "where_time_moved.syscalls"), "syscall", "A", "B");
	moved_table(f, html_jget(d, "where_time_moved.functions"), "kernel function", "A", "B");
	env_table(f, d);
}
