/* html_priv.h: what the report page's files share (html.c draws the page; html_run.c,
 * html_compare.c, html_explore.c and html_sweep.c a section each; html_parts.c the pieces
 * they use). Not for use outside report/. Every string a document holds reaches the page
 * through the escaping writer of out.h (html_text, html_printf): a result file is untrusted.
 */
#ifndef SB_HTML_PRIV_H
#define SB_HTML_PRIV_H

#include <stdbool.h>
#include <stdio.h>

#include "report/chart.h"

struct cJSON;

/* A key by its dotted path ("latency_us.p50"): the item, its number (NAN when none) or its
 * string ("" when none). */
const struct cJSON *html_jget(const struct cJSON *o, const char *path);
double html_jnum(const struct cJSON *o, const char *path);
const char *html_jstr(const struct cJSON *o, const char *path);
/* A number as the text tables print it. */
void html_num(FILE *f, double v);
/* An interval's cell, "0.931 to 1.02", or "none" where it has none (ci_low and ci_high null:
 * one pair). */
void html_interval_cell(FILE *f, double lo, double hi);
/* Cells of e's numbers at the keys named in keys (space-separated: "min max"), a <td> each. */
void html_num_cells(FILE *f, const struct cJSON *e, const char *keys);
/* A row of a key-value table: a number with its unit (unit NULL: a count, printed whole), or a
 * string ("-" when empty). */
void html_row(FILE *f, const char *k, double v, const char *unit);
void html_row_s(FILE *f, const char *k, const char *v);
/* What the document's rate counts: its "unit", else its workload's. */
const char *html_unit_of(const struct cJSON *d);
void html_config_table(FILE *f, const struct cJSON *cfg);
void html_env_table(FILE *f, const struct cJSON *env);
/* A CDF ([[us, fraction], ...]), or a latency object's "cdf", as a series (x allocated: the
 * caller frees it when 1 is returned). */
int html_cdf_series_of(const struct cJSON *cdf, struct chart_series *s, const char *label);
int html_cdf_series(const struct cJSON *lat, struct chart_series *s, const char *label);
/* The CDFs overlaid: a linear percent axis (the body) and a nines one (the tail). */
void html_cdf_charts(FILE *f, const char *what, struct chart_series *s, int n);
void html_partial_note(FILE *f, const struct cJSON *d);
const char *html_verdict_colour(const char *v);
/* A bar for entry e: its value at key v, its 95% interval (ci_low, ci_high), coloured by its
 * "verdict", the hover note the text at key note. label is the caller's. */
struct chart_bar html_verdict_bar(const struct cJSON *e, const char *label, const char *v,
				  const char *note);
/* Bars of ratios around 1 (no difference: the reference line, labelled ref_label), on a log
 * axis. */
void html_ratio_bars(FILE *f, const char *title, const char *xlabel, const char *ref_label,
		     const struct chart_bar *b, int n);

/* --trace's stages as bars (html_trace.c); nothing without a trace. */
void html_trace_chart(FILE *f, const struct cJSON *d);

/* The sections, one a kind of document. */
void html_run_section(FILE *f, const struct cJSON *d);
void html_runs_section(FILE *f, const struct cJSON *d);
void html_compare_section(FILE *f, const struct cJSON *d);
void html_explore_section(FILE *f, const struct cJSON *d);
void html_sweep_section(FILE *f, const struct cJSON *d);
/* Flame graphs are numbered across the page: a new page starts again at 1. */
void html_run_page_start(void);

#endif
