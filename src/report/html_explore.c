/* html_explore.c: the report's section for an explore document: the strategies ranked with
 * their intervals, the search's path (each step's configuration and its gain over the step
 * before) and how the budget was spent, those that change what is measured, those not tried.
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

static void explore_entry_row(FILE *f, const cJSON *e, bool ranked)
{
	html_printf(f, "<tr><td>");
	if (ranked)
		html_printf(f, "%.0f", html_jnum(e, "rank"));
	html_printf(f, "</td><td>");
	html_text(f, html_jstr(e, "name"));
	html_printf(f, "</td><td><code>");
	html_text(f, html_jstr(e, "flags"));
	html_printf(f, "</code></td>");
	html_num_cells(f, e, "rate");
	html_printf(f, "<td>%.3fx</td>", html_jnum(e, "speedup"));
	html_interval_cell(f, html_jnum(e, "ci_low"), html_jnum(e, "ci_high"));
	html_printf(f, "<td>%.1f%%</td><td>%.0f</td><td style=\"color:%s\">",
		    100 * html_jnum(e, "ci_level"), html_jnum(e, "pairs"),
		    html_verdict_colour(html_jstr(e, "verdict")));
	html_text(f, *html_jstr(e, "verdict_text") ? html_jstr(e, "verdict_text")
						   : html_jstr(e, "verdict"));
	if (cJSON_IsTrue(html_jget(e, "unsteady")))
		html_printf(f, "; unsteady: its runs spread (sd) %.3f of the log, the others' %.3f "
			    "(Brown-Forsythe p %.2g): something beyond the machine's noise decides its "
			    "rate run by run",
			    html_jnum(e, "sd_log"), html_jnum(e, "others_sd_log"),
			    html_jnum(e, "unsteady_p_value"));
	html_printf(f, "</td></tr>\n");
}

/* The search: each configuration of its path with its gain over the one before, why it
 * stopped, and each phase of the budget (skipped ones with what they needed). */
static void explore_path_section(FILE *f, const cJSON *d)
{
	const cJSON *e, *path = html_jget(d, "search.path");

	if (!cJSON_IsArray(path))
		return; /* a document from before the search */
	html_printf(f, "<table class=\"grid\"><caption>the search: each step tries every strategy "
		    "of another group on top of the configuration before it (and, once another "
		    "was added, each kept strategy's alternatives in its place) and keeps the leader "
		    "when fresh runs show it more likely than not helps, else tries the runner-up; "
		    "the verdict: step k at %.3g/2<sup>k</sup>)</caption><tr><th>"
		    "step</th><th>configuration</th><th>flags</th><th>gain over the step before</th>"
		    "<th>interval</th><th>at</th><th>pairs</th><th>verdict</th></tr>\n",
		    html_jnum(d, "error_budget.search"));
	cJSON_ArrayForEach(e, path) {
		html_printf(f, "<tr><td>%.0f</td><td>", html_jnum(e, "step"));
		html_text(f, html_jstr(e, "names"));
		html_printf(f, "</td><td><code>");
		html_text(f, html_jstr(e, "flags"));
		html_printf(f, "</code></td>");
		if (cJSON_IsObject(html_jget(e, "gain"))) {
			html_printf(f, "<td>%.3fx</td>", html_jnum(e, "gain.speedup"));
			html_interval_cell(f, html_jnum(e, "gain.ci_low"), html_jnum(e, "gain.ci_high"));
			html_printf(f, "<td>%.2f%%</td><td>%.0f</td><td style=\"color:%s\">",
				    100 * html_jnum(e, "gain.ci_level"), html_jnum(e, "gain.pairs"),
				    html_verdict_colour(html_jstr(e, "gain.verdict")));
		} else
			html_printf(f, "<td>-</td><td>-</td><td>-</td><td>-</td><td>");
		html_text(f, *html_jstr(e, "gain.verdict_text") ? html_jstr(e, "gain.verdict_text")
								 : "the baseline");
		html_printf(f, "</td></tr>\n");
	}
	html_printf(f, "</table>\n<p>The search stopped: ");
	html_text(f, html_jstr(d, "search.stopped"));
	html_printf(f, ". Budget %.0f s:", html_jnum(d, "budget.seconds"));
	cJSON_ArrayForEach(e, html_jget(d, "budget.phases")) {
		html_printf(f, " ");
		html_text(f, html_jstr(e, "phase"));
		if (cJSON_IsTrue(html_jget(e, "skipped")))
			html_printf(f, " skipped (it needed %.0f s more: a budget of %.0f s);",
				    html_jnum(e, "needs_s"), html_jnum(e, "budget_needed"));
		else
			html_printf(f, " %.0f runs, %.1f s;", html_jnum(e, "runs"), html_jnum(e, "seconds"));
	}
	html_printf(f, "</p>\n");
}

/* Each strategy's gain over the baseline as a bar with its interval, the final
 * configuration's last. */
static void gains_chart(FILE *f, const cJSON *st, const cJSON *best)
{
	const cJSON *e;
	int ns = cJSON_GetArraySize(st), n = 0;
	struct chart_bar *b = xcalloc((size_t)ns + 1, sizeof(*b));
	char **labels = xcalloc((size_t)ns + 1, sizeof(*labels));

	cJSON_ArrayForEach(e, st) {
		labels[n] = xmalloc(128);
		snprintf(labels[n], 128, "%.0f. %s", html_jnum(e, "rank"), html_jstr(e, "name"));
		b[n] = html_verdict_bar(e, labels[n], "speedup", "verdict_text");
		if (!isnan(b[n].v))
			n++;
		else
			free(labels[n]);
	}
	if (cJSON_IsObject(best) && !isnan(html_jnum(best, "speedup"))) {
		labels[n] = xmalloc(128);
		snprintf(labels[n], 128, "final: %s", html_jstr(best, "name"));
		b[n] = html_verdict_bar(best, labels[n], "speedup", "verdict_text");
		n++;
	}
	html_ratio_bars(f,
			"Each strategy's gain over the baseline, with its interval (green: faster, "
			"red: slower, grey: no verdict)",
			"rate / the baseline's rate", "baseline", b, n);
	for (int i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	free(b);
}

void html_explore_section(FILE *f, const cJSON *d)
{
	const cJSON *st = html_jget(d, "strategies"), *e, *best = html_jget(d, "search.final");

	html_printf(f, "<p>Baseline <code>");
	html_text(f, html_jstr(d, "workload"));
	html_printf(f, "</code> as given: ");
	html_num(f, html_jnum(d, "baseline.rate"));
	html_printf(f, " %s/s (median of %.0f runs). %.0f rounds of %.3g s runs, each round every "
		   "configuration once in an order from seed %s; the strategies' verdicts share one "
		   "%.1f%% family-wise confidence (Holm), so each strategy's interval is drawn at the "
		   "level it was held to.</p>\n",
		html_unit_of(d), html_jnum(d, "baseline.runs"), html_jnum(d, "runs"), html_jnum(d, "run_seconds"),
		html_jstr(d, "seed"), 100 * html_jnum(d, "family_confidence"));
	html_partial_note(f, d);
	if (!cJSON_IsObject(best))
		best = html_jget(d, "best_combination"); /* a document from before the search */
	gains_chart(f, st, best);
	html_printf(f, "<table class=\"grid\"><tr><th>rank</th><th>strategy</th><th>flags</th>"
		   "<th>%s/s</th><th>gain</th><th>interval</th><th>at</th><th>pairs</th>"
		   "<th>verdict</th></tr>\n", html_unit_of(d));
	cJSON_ArrayForEach(e, st)
		explore_entry_row(f, e, true);
	if (cJSON_IsObject(best))
		explore_entry_row(f, best, false);
	html_printf(f, "</table>\n");
	explore_path_section(f, d);
	if (cJSON_GetArraySize(html_jget(d, "changes_workload")) > 0) {
		html_printf(f, "<table class=\"grid\"><caption>strategies that change what is measured "
			   "(not ranked)</caption><tr><th></th><th>strategy</th><th>flags</th><th>rate"
			   "</th><th>gain</th><th>interval</th><th>at</th><th>pairs</th><th>verdict</th>"
			   "</tr>\n");
		cJSON_ArrayForEach(e, html_jget(d, "changes_workload"))
			explore_entry_row(f, e, false);
		html_printf(f, "</table>\n");
	}
	if (cJSON_GetArraySize(html_jget(d, "not_applicable")) > 0) {
		html_printf(f, "<details><summary>not tried</summary><ul>\n");
		cJSON_ArrayForEach(e, html_jget(d, "not_applicable")) {
			html_printf(f, "<li>");
			html_text(f, html_jstr(e, "name"));
			html_printf(f, ": ");
			html_text(f, html_jstr(e, "reason"));
			html_printf(f, "</li>\n");
		}
		html_printf(f, "</ul></details>\n");
	}
	html_config_table(f, html_jget(d, "config"));
}
