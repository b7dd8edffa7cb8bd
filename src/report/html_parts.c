/* html_parts.c: the pieces every section of the report page uses (html_priv.h): reading a
 * document's keys, a row of figures, the configuration and environment tables, latency CDFs
 * as charts. Every string goes out through the escaping writer (html_esc.c).
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

const cJSON *html_jget(const cJSON *o, const char *path)
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

double html_jnum(const cJSON *o, const char *path)
{
	const cJSON *v = html_jget(o, path);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *html_jstr(const cJSON *o, const char *path)
{
	const char *s = cJSON_GetStringValue(html_jget(o, path));

	return s ? s : "";
}

/* A number as the text tables print it (base/util's fmt_fig). */
void html_num(FILE *f, double v)
{
	char buf[32];

	fputs(fmt_fig(buf, sizeof(buf), v), f);
}

void html_interval_cell(FILE *f, double lo, double hi)
{
	if (isnan(lo) || isnan(hi))
		html_printf(f, "<td>none</td>");
	else
		html_printf(f, "<td>%.3f to %.3f</td>", lo, hi);
}

void html_num_cells(FILE *f, const struct cJSON *e, const char *keys)
{
	char key[32];
	size_t n;

	for (const char *k = keys; *k; k += n + (k[n] == ' ')) {
		n = strcspn(k, " ");
		snprintf(key, sizeof(key), "%.*s", (int)n, k);
		html_printf(f, "<td>");
		html_num(f, html_jnum(e, key));
		html_printf(f, "</td>");
	}
}

void html_row(FILE *f, const char *k, double v, const char *unit)
{
	html_printf(f, "<tr><th>");
	html_text(f, k);
	html_printf(f, "</th><td>");
	if (!unit && isfinite(v)) /* a count: a whole number, never "0.00" */
		html_printf(f, "%.0f", v);
	else
		html_num(f, v);
	if (unit && !isnan(v))
		html_printf(f, " %s", unit);
	html_printf(f, "</td></tr>\n");
}

void html_row_s(FILE *f, const char *k, const char *v)
{
	html_printf(f, "<tr><th>");
	html_text(f, k);
	html_printf(f, "</th><td>");
	html_text(f, v && *v ? v : "-");
	html_printf(f, "</td></tr>\n");
}

/* ---- pieces shared by the kinds ---- */

/* What the rate counts: the document's "unit", else its workload's. */
const char *html_unit_of(const cJSON *d)
{
	const char *u = html_jstr(d, "unit");
	const struct workload *wl = workload_find(html_jstr(d, "workload"));

	return *u ? u : wl ? wl->unit : "unit";
}

void html_config_table(FILE *f, const cJSON *cfg)
{
	const cJSON *e;

	if (!cJSON_IsObject(cfg))
		return;
	html_printf(f, "<details><summary>configuration</summary><table class=\"kv\">\n");
	cJSON_ArrayForEach(e, cfg) {
		char *v = cJSON_PrintUnformatted(e);

		char *k = xstrdup(e->string ? e->string : "");

		for (char *c = k; *c; c++)
			*c = *c == '_' ? '-' : *c;
		html_printf(f, "<tr><th>--%s</th><td>", k); /* a key is a file's string too */
		free(k);
		html_text(f, v);
		html_printf(f, "</td></tr>\n");
		free(v);
	}
	html_printf(f, "</table></details>\n");
}

void html_env_table(FILE *f, const cJSON *env)
{
	char buf[160];

	if (!cJSON_IsObject(env))
		return;
	html_printf(f, "<details><summary>environment</summary><table class=\"kv\">\n");
	html_row_s(f, "host", html_jstr(env, "hostname"));
	html_row_s(f, "kernel", html_jstr(env, "kernel.release"));
	html_row_s(f, "CPU", html_jstr(env, "cpu.model"));
	html_row(f, "CPUs online", html_jnum(env, "cpu.online"), NULL);
	html_row_s(f, "hypervisor", html_jstr(env, "virtualization.hypervisor"));
	html_row(f, "steal in the window", html_jnum(env, "virtualization.steal_pct_in_window"), "%");
	html_row_s(f, "clock source", html_jstr(env, "clocksource"));
	snprintf(buf, sizeof(buf), "%s (%s, MTU %.0f, qdisc %s)", html_jstr(env, "interface.name"),
		 html_jstr(env, "interface.driver"), html_jnum(env, "interface.mtu"),
		 html_jstr(env, "interface.qdisc"));
	html_row_s(f, "interface", buf);
	html_printf(f, "</table></details>\n");
}

/* A CDF ([[us, fraction], ...]) as a series (arrays allocated; the caller frees x). */
int html_cdf_series_of(const cJSON *cdf, struct chart_series *s, const char *label)
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
int html_cdf_series(const cJSON *lat, struct chart_series *s, const char *label)
{
	return html_cdf_series_of(html_jget(lat, "cdf"), s, label);
}

/* Latency CDFs overlaid: a linear percent axis (the body) and a nines one (the tail). */
void html_cdf_charts(FILE *f, const char *what, struct chart_series *s, int n)
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

void html_partial_note(FILE *f, const cJSON *d)
{
	if (cJSON_IsTrue(html_jget(d, "partial"))) {
		html_printf(f, "<p class=\"warn\">Partial: ");
		html_text(f, *html_jstr(d, "partial_reason") ? html_jstr(d, "partial_reason") : "cut short");
		html_printf(f, "</p>\n");
	}
}

const char *html_verdict_colour(const char *v)
{
	if (strstr(v, "better") || !strcmp(v, "faster"))
		return "#2ca02c";
	if (strstr(v, "worse") || !strcmp(v, "slower"))
		return "#d62728";
	return "#999";
}

struct chart_bar html_verdict_bar(const struct cJSON *e, const char *label, const char *v,
				  const char *note)
{
	return (struct chart_bar){label,
				  html_jnum(e, v),
				  html_jnum(e, "ci_low"),
				  html_jnum(e, "ci_high"),
				  html_verdict_colour(html_jstr(e, "verdict")),
				  html_jstr(e, note)};
}

void html_ratio_bars(FILE *f, const char *title, const char *xlabel, const char *ref_label,
		     const struct chart_bar *b, int n)
{
	struct chart_bar_opts o = {
	    .title = title, .xlabel = xlabel, .ref = 1.0, .ref_label = ref_label, .xa = AX_LOG};

	chart_bars(f, &o, b, n);
}
