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
#include "report/html_priv.h"
#include "report/out.h"

enum kind { K_RUN, K_RUNS, K_COMPARE, K_EXPLORE, K_SWEEP, K_BAD };

static enum kind kind_of(const cJSON *d)
{
	const char *k = html_jstr(d, "kind");

	if (!*k)
		return html_jget(d, "workload") && cJSON_IsNumber(html_jget(d, "rate")) ? K_RUN : K_BAD;
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
	if (strcmp(html_jstr(d, "tool"), "sockbench"))
		return "not a sockbench result (no \"tool\": \"sockbench\")";
	if (html_jnum(d, "schema") != 1)
		return "a result of another schema than 1 (a newer sockbench wrote it)";
	if (!strcmp(html_jstr(d, "kind"), "knee"))
		return "a knee result, which the report does not draw: `sockbench knee WORKLOAD "
		       "--plot knee.svg` draws its curve (p50, p99 and p99.9 against the offered "
		       "rate)";
	if (kind_of(d) == K_BAD)
		return "a sockbench document of a kind the report does not know (it draws a single "
		       "run, --runs, compare, explore and sweep results)";
	return NULL;
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

/* The page's head, its CSS and the list of the documents it draws. */
static void page_head(FILE *f, cJSON *const *docs, const char *const *names, int n)
{
	html_printf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		   "<title>sockbench report</title>\n<style>");
	html_raw(f, css); /* the page's own */
	html_printf(f,
		    "</style></head>\n<body>\n<h1>sockbench report</h1>\n<p>From %d saved "
		    "result%s, drawn by sockbench %s. Every figure is the result file's own; hover "
		    "a bar or a frame for its value.</p>\n"
		    "<ul>\n",
		    n, n == 1 ? "" : "s", SB_VERSION);
	for (int i = 0; i < n; i++) {
		html_printf(f, "<li><a href=\"#doc%d\">", i + 1);
		html_text(f, names[i]);
		html_printf(f, "</a>: %s of <code>", kind_name(kind_of(docs[i])));
		html_text(f, html_jstr(docs[i], "workload"));
		html_printf(f, "</code>");
		if (*html_jstr(docs[i], "version")) {
			html_printf(f, " (sockbench ");
			html_text(f, html_jstr(docs[i], "version"));
			html_printf(f, ")");
		}
		html_printf(f, "</li>\n");
	}
	html_printf(f, "</ul>\n");
}

/* The bars of the results whose rate counts unit u, one chart: rates of different units never
 * share an axis. */
static void overview_bars(FILE *f, const struct chart_bar *b, const char *const *units, int nb,
			  const char *u)
{
	struct chart_bar *mine = xcalloc((size_t)nb, sizeof(*mine));
	char title[160], xl[96];
	int n = 0;

	for (int i = 0; i < nb; i++)
		if (!strcmp(units[i], u))
			mine[n++] = b[i];
	snprintf(title, sizeof(title), "Rate of each result in %ss/s (repeated runs: the median and "
		 "its interval)", u);
	snprintf(xl, sizeof(xl), "%ss per second", u);
	struct chart_bar_opts o = {.title = title, .xlabel = xl, .ref = NAN};

	chart_bars(f, &o, mine, n);
	free(mine);
}

/* Several documents: their runs' rates side by side (a chart per unit) and their latency CDFs
 * overlaid (a --runs document's median rate and its first run's CDF), when two or more have a
 * run. Result i takes colour i in both (chart_palette). */
static void overview(FILE *f, cJSON *const *docs, const char *const *names, int n)
{
	struct chart_bar *b = xcalloc((size_t)n, sizeof(*b));
	struct chart_series *s = xcalloc((size_t)n, sizeof(*s));
	const char **units = xcalloc((size_t)n, sizeof(*units));
	int nb = 0, ns = 0;

	for (int i = 0; i < n; i++) {
		bool runs = kind_of(docs[i]) == K_RUNS;
		const cJSON *one = kind_of(docs[i]) == K_RUN ? docs[i]
				   : runs ? cJSON_GetArrayItem(html_jget(docs[i], "results"), 0)
					  : NULL;
		double rate = runs ? html_jnum(docs[i], "summary.rate.median") : html_jnum(one, "rate");
		const char *col = chart_palette[nb % CHART_COLOURS];

		if (!one)
			continue;
		units[nb] = html_unit_of(one);
		b[nb++] = (struct chart_bar){names[i], rate,
					     runs ? html_jnum(docs[i], "summary.rate.ci_low") : NAN,
					     runs ? html_jnum(docs[i], "summary.rate.ci_high") : NAN,
					     col, NULL};
		if (html_cdf_series(html_jget(one, "latency_us"), &s[ns], names[i]))
			s[ns++].colour = col;
	}
	if (nb > 1) {
		html_printf(f, "<section><h2>Overview</h2>\n");
		for (int i = 0; i < nb; i++) {
			bool seen = false;

			for (int k = 0; k < i; k++)
				seen |= !strcmp(units[k], units[i]);
			if (!seen)
				overview_bars(f, b, units, nb, units[i]);
		}
		if (ns)
			html_cdf_charts(f, "Latency of each result (repeated runs: the first)", s, ns);
		html_printf(f, "</section>\n");
	}
	for (int i = 0; i < ns; i++)
		free((void *)s[i].x);
	free(units);
	free(s);
	free(b);
}

/* Document i's section, as its kind draws it. */
static void doc_section(FILE *f, const cJSON *d, const char *name, int i)
{
	enum kind k = kind_of(d);

	html_printf(f, "<section id=\"doc%d\" data-kind=\"%s\"><h2>", i + 1, kind_name(k));
	html_text(f, name);
	html_printf(f, ": %s of <code>", kind_name(k));
	html_text(f, html_jstr(d, "workload"));
	html_printf(f, "</code></h2>\n");
	switch (k) {
	case K_RUN: html_run_section(f, d); break;
	case K_RUNS: html_runs_section(f, d); break;
	case K_COMPARE: html_compare_section(f, d); break;
	case K_EXPLORE: html_explore_section(f, d); break;
	case K_SWEEP: html_sweep_section(f, d); break;
	default: break;
	}
	html_printf(f, "</section>\n");
}

int out_report_html(cJSON *const *docs, const char *const *names, int n, FILE *f)
{
	html_run_page_start();
	page_head(f, docs, names, n);
	if (n > 1)
		overview(f, docs, names, n);
	for (int i = 0; i < n; i++)
		doc_section(f, docs[i], names[i], i);
	html_printf(f, "<script>\n");
	html_raw(f, out_flame_script()); /* the page's own script: no string from a file */
	html_raw(f, "document.querySelectorAll('svg.flame').forEach(function(s){window.sbFlame."
		    "init(s);});\n"
		    "document.querySelectorAll('input[data-flame]').forEach(function(i){"
		    "i.addEventListener('input',function(){window.sbFlame.search("
		    "document.getElementById(i.getAttribute('data-flame')),i.value);});});\n"
		    "var m=/^#search=(.*)$/.exec(location.hash);\n"
		    "if(m) document.querySelectorAll('input[data-flame]').forEach(function(i){"
		    "i.value=decodeURIComponent(m[1]);i.dispatchEvent(new Event('input'));});\n"
		    "document.body.setAttribute('data-ready','1');\n</script>\n</body></html>\n");
	return ferror(f) ? -EIO : 0;
}
