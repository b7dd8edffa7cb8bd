/* compare_report.c: compare's verdicts as a table or as a JSON document, with where the time
 * moved when both sides were profiled. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multi/compare_priv.h"
#include "base/util.h"
#include "profile/moved.h"
#include "trace/stage_moved.h"
#include "report/out.h"

/* The rate's words: "B is 1.23x faster (1.18-1.29, 95% confidence)", "B is slower: ...", or
 * no significant difference, with the pairs a difference this size needs. */
static void rate_headline(const struct verdict_row *r, enum verdict v, char *buf, size_t len)
{
	const struct paired *e = &r->e;
	char ci[80];

	if (e->exact)
		snprintf(ci, sizeof(ci), "no spread: every run the same");
	else
		snprintf(ci, sizeof(ci), "%.2f-%.2f, %.0f%% confidence", e->lo, e->hi, e->level * 100);
	if (v == VERDICT_FASTER)
		snprintf(buf, len, "B is %.2fx faster (%s)", e->ratio, ci);
	else if (v == VERDICT_SLOWER)
		snprintf(buf, len, "B is slower: %.2fx the rate of A (%s), A is %.2fx faster", e->ratio,
			 ci, 1 / e->ratio);
	else if (r->needed > 0)
		snprintf(buf, len, "no significant difference: B/A = %.2f (%s); a difference this size "
			 "needs about %d runs of each to show (%.0f%% power)", e->ratio, ci, r->needed,
			 STATS_POWER * 100);
	else
		snprintf(buf, len, "no significant difference: B/A = %.2f (%s)", e->ratio, ci);
}

/* The headline, from the primary figure's row: the rate's words, or another figure's ratio
 * and verdict; without a ratio, why. */
static void headline(const struct verdict_row *r, const struct workload *wl, char *buf,
		     size_t len)
{
	char lab[64];
	const struct paired *e = &r->e;

	if (!r->ratio_ok && !strncmp(r->word, "no verdict", 10))
		snprintf(buf, len, "%s", r->word);
	else if (!r->ratio_ok)
		snprintf(buf, len, "no verdict: a run has no %s", r->f == FIG_RATE ? "rate"
					: figure_label(r->f, wl, lab, sizeof(lab)));
	else if (r->f == FIG_RATE)
		rate_headline(r, stats_verdict_of(e, r->p_adj <= 1 - LEVEL, MIN_GAIN), buf, len);
	else if (e->exact)
		snprintf(buf, len, "%s: B is %.2fx A: %s", figure_label(r->f, wl, lab, sizeof(lab)),
			 e->ratio, r->word);
	else
		snprintf(buf, len, "%s: B/A = %.2f (%.2f-%.2f, %.0f%% confidence): %s",
			 figure_label(r->f, wl, lab, sizeof(lab)), e->ratio, e->lo, e->hi,
			 e->level * 100, r->word);
}

/* How the other figures were judged, in words. */
static void family_rule(const struct verdict_plan *plan, char *buf, size_t len)
{
	if (!plan->family)
		snprintf(buf, len, "no other figure has a ratio to judge");
	else if (plan->gate)
		snprintf(buf, len, "the other %d figures are one family: Holm-adjusted p, judged at "
			 "5%% since the primary's difference is significant", plan->family);
	else
		snprintf(buf, len, "the other %d figures are not judged: the primary showed no "
			 "significant difference, and only then are they judged (as one family, "
			 "Holm-adjusted p at 5%%); --primary FIGURE makes another figure the first",
			 plan->family);
}

static cJSON *row_json(const struct verdict_row *r, const struct workload *wl)
{
	cJSON *e = cJSON_CreateObject();
	char lab[64];

	cJSON_AddStringToObject(e, "key", figure_key(r->f));
	cJSON_AddStringToObject(e, "label", figure_label(r->f, wl, lab, sizeof(lab)));
	cJSON_AddNumberToObject(e, r->ratio_ok ? "a_geomean" : "a_median", r->a);
	cJSON_AddNumberToObject(e, r->ratio_ok ? "b_geomean" : "b_median", r->b);
	if (r->ratio_ok) {
		cJSON_AddNumberToObject(e, "ratio", r->e.ratio);
		cJSON_AddNumberToObject(e, "ci_low", r->e.lo);
		cJSON_AddNumberToObject(e, "ci_high", r->e.hi);
		cJSON_AddNumberToObject(e, "confidence", r->e.level);
		cJSON_AddBoolToObject(e, "exact", r->e.exact);
		cJSON_AddNumberToObject(e, "p_value", r->e.p);
		cJSON_AddNumberToObject(e, "p_adjusted", r->p_adj);
		cJSON_AddStringToObject(e, "method", r->primary ? "primary" : "holm");
		cJSON_AddBoolToObject(e, "judged", r->judged);
		cJSON_AddNumberToObject(e, "pairs", r->e.n);
		if (r->needed > 0)
			cJSON_AddNumberToObject(e, "runs_needed", r->needed);
	}
	cJSON_AddStringToObject(e, "verdict", r->word);
	return e;
}

static cJSON *family_json(const struct verdict_plan *plan, const struct verdict_row *rows)
{
	cJSON *j = cJSON_CreateObject();
	char rule[300];

	family_rule(plan, rule, sizeof(rule));
	cJSON_AddStringToObject(j, "primary", plan->primary_row >= 0
			? figure_key(rows[plan->primary_row].f) : figure_key(plan->primary_fig));
	cJSON_AddNumberToObject(j, "primary_confidence", LEVEL);
	cJSON_AddStringToObject(j, "method", "holm");
	cJSON_AddNumberToObject(j, "alpha", STATS_ALPHA);
	cJSON_AddNumberToObject(j, "figures", plan->family);
	cJSON_AddBoolToObject(j, "judged", plan->gate);
	cJSON_AddStringToObject(j, "rule", rule);
	return j;
}

/* What differs between A's and B's environments, and whether it should: the subject (a sysctl
 * one side's --sysctl set) should; anything else is a warning in a live comparison (it
 * changed while the rounds ran), and in saved files when it spans more than one group
 * (kernel, cpu, sysctl, ...), since the ratios then mix the effects. */
struct env_report {
	struct env_row rows[ENV_ROWS];
	int n, nother, groups;
	char other[600]; /* the groups that differ besides the subject */
	struct env_row ch[2][ENV_ROWS]; /* changes during A's runs, B's runs */
	int nch[2], at[2];
	bool warn;
};

static void env_report(const struct side *a, const struct side *b, bool paired,
		       struct env_report *e)
{
	size_t o = 0;

	e->n = env_rows(a->docs[0], b->docs[0], e->rows, ENV_ROWS);
	for (int i = 0; i < e->n; i++) {
		char group[64];
		const char *p = e->rows[i].path;

		if (e->rows[i].subject || !strcmp(p, "hostname"))
			continue;
		e->nother++;
		snprintf(group, sizeof(group), "%.*s", (int)strcspn(p, "."), p);
		if (!strstr(e->other, group)) {
			o += (size_t)snprintf(e->other + o, sizeof(e->other) - o, "%s%s",
					      e->groups ? ", " : "", group);
			e->groups++;
		}
	}
	e->nch[0] = env_changes(a->docs, a->n, e->ch[0], ENV_ROWS, &e->at[0]);
	e->nch[1] = env_changes(b->docs, b->n, e->ch[1], ENV_ROWS, &e->at[1]);
	e->warn = paired ? e->nother > 0 : e->groups > 1;
}

static cJSON *env_report_json(const struct env_report *e)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddItemToObject(j, "differences", env_rows_json(e->rows, e->n));
	cJSON_AddItemToObject(j, "changed_during_a", env_rows_json(e->ch[0], e->nch[0]));
	cJSON_AddItemToObject(j, "changed_during_b", env_rows_json(e->ch[1], e->nch[1]));
	cJSON_AddBoolToObject(j, "warning", e->warn || e->nch[0] || e->nch[1]);
	return j;
}

static void env_report_print(const struct env_report *e, bool paired)
{
	if (!e->n) {
		printf("  environment: the same for A and B (every recorded key)\n");
	} else {
		printf("  environment, A -> B:\n");
		for (int i = 0; i < e->n; i++)
			printf("    %-44s %s -> %s%s\n", e->rows[i].path, e->rows[i].a, e->rows[i].b,
			       e->rows[i].subject ? "   (the subject: --sysctl)" : "");
	}
	if (e->warn && paired)
		printf("  WARNING: %s changed between A's and B's runs though neither asked for it; the "
		       "ratios below include that change.\n", e->other);
	else if (e->warn)
		printf("  WARNING: A and B differ in more than one thing (%s); the ratios below mix "
		       "their effects: compare results that differ in one.\n", e->other);
	print_env_changes(" of A", e->ch[0], e->nch[0], e->at[0]);
	print_env_changes(" of B", e->ch[1], e->nch[1], e->at[1]);
}

/* Each run's latency CDF, A's then B's (null for a run that has none), for pictures. */
static cJSON *cdfs_json(const struct side *a, const struct side *b)
{
	cJSON *j = cJSON_CreateObject();
	const struct side *sd[2] = {a, b};

	for (int k = 0; k < 2; k++) {
		cJSON *arr = cJSON_AddArrayToObject(j, k ? "b" : "a");

		for (int i = 0; i < sd[k]->n; i++) {
			const cJSON *lat = cJSON_GetObjectItemCaseSensitive(sd[k]->docs[i], "latency_us");
			const cJSON *cdf = cJSON_GetObjectItemCaseSensitive(lat, "cdf");

			cJSON_AddItemToArray(arr, cJSON_IsArray(cdf) ? cJSON_Duplicate(cdf, true)
								     : cJSON_CreateNull());
		}
	}
	return j;
}

static void print_json(const struct compare_report *cr, const char *head,
		       const struct env_report *env)
{
	const struct side *a = cr->a, *b = cr->b;
	const struct compare_log *lg = cr->lg;
	bool paired = cr->paired;
	cJSON *j = cJSON_CreateObject(), *arr = cJSON_CreateArray();

	cJSON_AddNumberToObject(j, "schema", RESULT_SCHEMA);
	cJSON_AddStringToObject(j, "tool", "sockbench");
	cJSON_AddStringToObject(j, "kind", "compare");
	cJSON_AddStringToObject(j, "workload", a->wl->name);
	cJSON_AddStringToObject(j, "a", a->label);
	cJSON_AddStringToObject(j, "b", b->label);
	cJSON_AddNumberToObject(j, "runs_a", a->n);
	cJSON_AddNumberToObject(j, "runs_b", b->n);
	cJSON_AddBoolToObject(j, "paired", paired);
	cJSON_AddStringToObject(j, "interval", paired ? "t on the paired log-ratios"
						       : "Welch t on the logs");
	if (lg) {
		char seed[24];

		snprintf(seed, sizeof(seed), "%llu", (unsigned long long)lg->seed);
		cJSON_AddStringToObject(j, "seed", seed);
		cJSON_AddStringToObject(j, "order", lg->order);
		cJSON_AddNumberToObject(j, "rounds_asked", lg->asked);
		cJSON_AddItemToObject(j, "left_out", left_out_json(lg->lo, lg->nlo));
	}
	cJSON_AddBoolToObject(j, "partial", lg && lg->partial);
	cJSON_AddStringToObject(j, "verdict", head);
	cJSON_AddItemToObject(j, "verdicts", family_json(cr->plan, cr->rows));
	for (int i = 0; i < cr->n; i++)
		cJSON_AddItemToArray(arr, row_json(&cr->rows[i], a->wl));
	cJSON_AddItemToObject(j, "figures", arr);
	cJSON_AddItemToObject(j, "environment", env_report_json(env));
	cJSON_AddItemToObject(j, "latency_cdfs", cdfs_json(a, b));
	if (cr->mv)
		cJSON_AddItemToObject(j, "where_time_moved", moved_json(cr->mv));
	else if (cr->mv_why)
		cJSON_AddStringToObject(j, "where_time_moved_note", cr->mv_why);
	if (cr->sm)
		cJSON_AddItemToObject(j, "where_wait_moved", stage_moved_json(cr->sm));
	out_print_json(j, stdout);
	cJSON_Delete(j);
}

/* The table of figures: p is each figure's own, "Holm p" the family's adjusted one. */
static void print_rows(const struct side *a, const struct verdict_row *rows, int n)
{
	char lab[64];
	int w = figure_label_width(a->wl, 30);

	printf("\n  %-*s %13s %13s %8s %16s %8s %8s   %s\n", w, "figure (geometric means)", "A",
	       "B", "B/A", "95% interval", "p", "Holm p", "verdict");
	for (int i = 0; i < n; i++) {
		const struct verdict_row *r = &rows[i];
		char ci[40] = "-", ratio[16] = "-", p[16] = "-", padj[16] = "-", va[32], vb[32];

		if (r->ratio_ok) {
			snprintf(ratio, sizeof(ratio), "%.3f", r->e.ratio);
			if (!r->e.exact)
				snprintf(ci, sizeof(ci), "%.3f-%.3f", r->e.lo, r->e.hi);
			else
				snprintf(ci, sizeof(ci), "exact");
			snprintf(p, sizeof(p), "%.3g", r->e.p);
			if (!r->primary)
				snprintf(padj, sizeof(padj), "%.3g", r->p_adj);
			else
				snprintf(padj, sizeof(padj), "primary");
		}
		printf("  %-*s %13s %13s %8s %16s %8s %8s   %s\n", w,
		       figure_label(r->f, a->wl, lab, sizeof(lab)), fmt_fig(va, 32, r->a),
		       fmt_fig(vb, 32, r->b), ratio, ci, p, padj, r->word);
	}
}

/* A side that lost requests is named in the verdict: its latencies count them only at their
 * wait, and its rate has none of them. A stream's loss is datagrams that never arrived. */
static void loss_note(const struct verdict_row *rows, int n, const struct workload *wl, char *head,
		      size_t len)
{
	bool requests = workload_shows(wl) & SHOWS_TRANSACTIONS;

	for (int i = 0; i < n; i++) {
		const struct verdict_row *r = &rows[i];
		size_t at = strlen(head);

		if (r->f != FIG_LOSS || (!(r->a > 0) && !(r->b > 0)) || at >= len)
			continue;
		snprintf(head + at, len - at, "; %s lost %s: %.3g%% of A's, %.3g%% of B's %s (%s%s)",
			 r->a > 0 && r->b > 0 ? "both" : r->a > 0 ? "A" : "B",
			 requests ? "requests" : "datagrams", r->a, r->b,
			 requests ? "went unanswered or failed" : "never arrived",
			 r->ratio_ok ? "geometric means" : "medians",
			 requests ? "; in the latencies at their wait" : "; the rate counts those that did");
	}
}

void compare_print(const struct compare_report *cr, bool json)
{
	const struct side *a = cr->a, *b = cr->b;
	const struct verdict_plan *plan = cr->plan;
	const struct compare_log *lg = cr->lg;
	bool paired = cr->paired;
	char head[600] = "no verdict: no pair of whole runs to compare", rule[300];
	struct env_report *env = xcalloc(1, sizeof(*env));

	env_report(a, b, paired, env);
	if (plan->primary_row >= 0)
		headline(&cr->rows[plan->primary_row], a->wl, head, sizeof(head));
	loss_note(cr->rows, cr->n, a->wl, head, sizeof(head));
	if (json) {
		print_json(cr, head, env);
		free(env);
		return;
	}
	printf("sockbench compare (%s)\n  A: %s  (%d runs)\n  B: %s  (%d runs)\n",
	       paired ? "rounds of A and B in a random order, the two runs of a round paired"
		      : "saved runs, not paired",
	       a->label, a->n, b->label, b->n);
	if (lg)
		printf("  order (seed %llu): %s\n", (unsigned long long)lg->seed, lg->order);
	env_report_print(env, paired);
	free(env);
	print_rows(a, cr->rows, cr->n);
	family_rule(plan, rule, sizeof(rule));
	printf("\n  B/A is the ratio of the two columns beside it: the geometric means of the %s "
	       "runs; the interval is Student's t on the %s (docs/json.md). The primary figure (%s) "
	       "is judged at 95%% on its own p; %s.\n",
	       paired ? "paired" : "saved", paired ? "log-ratios of the pairs" : "logs (Welch)",
	       figure_key(plan->primary_fig), rule);
	if (lg && (lg->nlo || lg->partial)) {
		printf("  ");
		if (lg->partial)
			printf("PARTIAL: interrupted after %d of %d rounds. ", lg->rounds, lg->asked);
		print_left_out(lg->lo, lg->nlo, 2 * lg->rounds);
		if (!lg->nlo)
			printf("\n");
	}
	printf("\n%s\n", head);
	if (cr->mv) {
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(a->docs[0], "unit");

		printf("\nwhere the time moved (from the profiles of every run):");
		moved_print(cr->mv, cJSON_IsString(u) ? u->valuestring : "unit", 12);
	} else if (cr->mv_why) {
		printf("(%s)\n", cr->mv_why);
	}
	if (cr->sm)
		stage_moved_print(cr->sm);
}
