/* explore_report.c: explore's ranking as a table (with why the faster strategies were faster,
 * under --profile) or as a JSON document; the search's path and the budget's phases in them
 * come from explore_path.c. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/result_file.h"
#include "multi/explore_priv.h"
#include "profile/moved.h"
#include "trace/stage_moved.h"
#include "report/out.h"

/* The median over c's whole runs of a figure of its samples. */
static double med_whole(const struct config *c, enum figure_id f)
{
	double v[MAX_ROUNDS];
	int n = 0;

	for (int i = 0; i < c->nsamples; i++)
		if (c->s[i].status == RUN_WHOLE)
			v[n++] = c->s[i].fig[f];
	return n ? stats_median(v, n) : 0;
}

static cJSON *sample_sides_json(const struct workload *wl, const struct config *c)
{
	cJSON *sides = cJSON_CreateObject();
	static const char *const side_names[] = {"client", "server"};

	for (int k = 0; k < 2; k++) {
		cJSON *j = cJSON_CreateObject();
		double mcpu = med_whole(c, k ? FIG_SERVER_CPU : FIG_CLIENT_CPU);
		double msc = med_whole(c, k ? FIG_SERVER_SYSCALLS : FIG_CLIENT_SYSCALLS);

		cJSON_AddNumberToObject(j, "cpu_us_per_unit", mcpu);
		if (!wl->units)
			cJSON_AddNumberToObject(j, "cpu_us_per_transaction", mcpu);
		cJSON_AddNumberToObject(j, "user_s", med_whole(c, k ? FIG_SERVER_USER_S : FIG_CLIENT_USER_S));
		cJSON_AddNumberToObject(j, "sys_s", med_whole(c, k ? FIG_SERVER_SYS_S : FIG_CLIENT_SYS_S));
		cJSON_AddNumberToObject(j, "syscalls_per_unit", msc);
		if (!wl->units)
			cJSON_AddNumberToObject(j, "syscalls_per_transaction", msc);
		cJSON_AddItemToObject(sides, side_names[k], j);
	}
	return sides;
}

/* The kept result documents of n runs, into out (MAX_ROUNDS); how many. */
static int docs_of(const struct sample *s, int n, cJSON **out)
{
	int k = 0;

	for (int i = 0; i < n && i < MAX_ROUNDS; i++)
		if (s[i].doc)
			out[k++] = s[i].doc;
	return k;
}

struct moved_set *explore_moved(const struct config *c, const struct sample *base, int nbase)
{
	cJSON *a[MAX_ROUNDS], *b[MAX_ROUNDS];
	int na, nb;

	if (!c->o.profile)
		return NULL;
	na = docs_of(base, nbase, a);
	nb = docs_of(c->s, c->nsamples, b);
	return na && nb ? moved_of(a, na, b, nb) : NULL;
}

/* --trace: which stage of a round trip moved from the baseline's runs to c's (NULL unless
 * both were traced). */
static struct stage_moved *config_stage_moved(const struct explore *x, const struct config *c)
{
	cJSON *a[MAX_ROUNDS], *b[MAX_ROUNDS];
	int na, nb;

	if (!c->o.trace || c == &x->conf[0] || c < x->conf || c >= x->conf + x->nconf)
		return NULL; /* (the search's and the combination's runs: their own pairs) */
	na = docs_of(x->conf[0].s, x->conf[0].nsamples, a);
	nb = docs_of(c->s, c->nsamples, b);
	return na && nb ? stage_moved_of(a, na, b, nb) : NULL;
}

/* Where the time moved from the baseline's runs to c's (NULL without profiles). */
static struct moved_set *config_moved(const struct explore *x, const struct config *c)
{
	if (c == &x->conf[0] || (c != &x->combo && (c < x->conf || c >= x->conf + x->nconf)))
		return NULL; /* the search's runs are paired with their own current best */
	if (c == &x->combo)
		return explore_moved(c, x->combo_base, x->ncombo);
	return explore_moved(c, x->conf[0].s, x->conf[0].nsamples);
}

/* The verdict's words: faster, slower, no real difference, or why there is none. */
const char *explore_verdict_words(const struct config *c, char *buf, size_t len)
{
	if (!c->analysed && c->failed)
		snprintf(buf, len, "failed: %s", c->s[0].why);
	else if (!c->analysed || c->few)
		snprintf(buf, len, "no verdict: %d pair%s of whole runs", c->pairs, c->pairs == 1 ? "" : "s");
	else if (c->verdict == VERDICT_SAME && c->needed > 0)
		snprintf(buf, len, "no real difference (a %+.0f%% one would need ~%d runs, 80%% power)",
			 (c->e.ratio - 1) * 100, c->needed);
	else
		snprintf(buf, len, "%s", stats_verdict_name(c->verdict));
	if (c->dropped) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, "; dropped after %d rounds: clearly slower (below %.2f at "
			 "%.0f%%)", c->dropped, c->drop_hi, 100 * DROP_LEVEL);
	}
	return buf;
}

void explore_interval_json(cJSON *j, double lo, double hi)
{
	bool none = !isfinite(lo) || !isfinite(hi) || hi > RESULT_FILE_NUM_MAX;

	cJSON_AddItemToObject(j, "ci_low", none ? cJSON_CreateNull() : cJSON_CreateNumber(lo));
	cJSON_AddItemToObject(j, "ci_high", none ? cJSON_CreateNull() : cJSON_CreateNumber(hi));
}

cJSON *explore_config_json(const struct explore *x, const struct config *c, int rank)
{
	struct moved_set *mv = config_moved(x, c);
	cJSON *j = cJSON_CreateObject(), *samples = cJSON_CreateArray(), *left = cJSON_CreateArray();
	char words[300];
	bool base = c == &x->conf[0];

	if (rank)
		cJSON_AddNumberToObject(j, "rank", rank);
	cJSON_AddStringToObject(j, "name", c->name);
	cJSON_AddStringToObject(j, "flags", c->flags);
	cJSON_AddBoolToObject(j, "changes_workload", c->changes);
	cJSON_AddStringToObject(j, "unit", x->wl->unit);
	cJSON_AddNumberToObject(j, "rate", c->tps);
	if (!x->wl->units)
		cJSON_AddNumberToObject(j, "transactions_per_s", c->tps);
	cJSON_AddNumberToObject(j, "spread_pct", c->spread);
	cJSON_AddNumberToObject(j, "runs", c->whole);
	if (c->spread_tested) {
		cJSON_AddNumberToObject(j, "sd_log", c->sd_log);
		cJSON_AddNumberToObject(j, "others_sd_log", c->others_sd_log);
		cJSON_AddBoolToObject(j, "unsteady", c->unsteady);
		cJSON_AddNumberToObject(j, "unsteady_p_value", c->unsteady_p);
	}
	if (!base) {
		cJSON_AddNumberToObject(j, "pairs", c->pairs);
		cJSON_AddNumberToObject(j, "speedup", c->e.ratio);
		explore_interval_json(j, c->e.lo, c->e.hi);
		cJSON_AddNumberToObject(j, "ci_level", c->level);
		cJSON_AddNumberToObject(j, "p_value", c->e.p);
		cJSON_AddBoolToObject(j, "significant", c->reject);
		if (c->needed > 0)
			cJSON_AddNumberToObject(j, "runs_needed", c->needed);
		if (c->dropped)
			cJSON_AddNumberToObject(j, "dropped_after", c->dropped);
		cJSON_AddStringToObject(j, "verdict", !c->analysed && c->failed ? "failed"
						      : !c->analysed || c->few ? "no verdict"
									       : stats_verdict_name(c->verdict));
		cJSON_AddStringToObject(j, "verdict_text", explore_verdict_words(c, words, sizeof(words)));
	}
	cJSON_AddItemToObject(j, "sides", sample_sides_json(x->wl, c));
	for (int i = 0; i < c->nsamples; i++) {
		if (c->s[i].status == RUN_WHOLE) {
			cJSON_AddItemToArray(samples, cJSON_CreateNumber(c->s[i].fig[FIG_RATE]));
			continue;
		}
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "round", i + 1);
		cJSON_AddStringToObject(e, "status", run_status_name(c->s[i].status));
		cJSON_AddStringToObject(e, "reason", c->s[i].why);
		cJSON_AddItemToArray(left, e);
	}
	cJSON_AddItemToObject(j, "samples", samples);
	cJSON_AddItemToObject(j, "left_out", left);
	if (mv)
		cJSON_AddItemToObject(j, "where_time_moved", moved_json(mv));
	moved_free(mv);
	struct stage_moved *sm = config_stage_moved(x, c);

	if (sm)
		cJSON_AddItemToObject(j, "where_wait_moved", stage_moved_json(sm));
	stage_moved_free(sm);
	return j;
}

bool explore_interval_words(double lo, double hi, char *buf, size_t len)
{
	if (!(lo > 0) || !(hi / lo <= INTERVAL_MAX_SPAN)) { /* NaN too */
		snprintf(buf, len, "none");
		return false;
	}
	snprintf(buf, len, "%.2f-%.2f", lo, hi);
	return true;
}

/* The strategy column: as wide as the longest name up to NAME_W_MAX; a longer name has a line
 * of its own above its figures. A verdict that would reach past TABLE_W goes on a line of its
 * own under the speedup, so that the table stays about TABLE_W columns wide. */
#define NAME_W_MAX 24
#define TABLE_W 120
static int name_w = NAME_W_MAX;

static void print_row(const struct config *c, const char *rank, bool base)
{
	char ci[40] = "-", conf[16] = "", words[300] = "", speed[16] = "1.00x";
	const char *name = c->name;
	int len, at, wl;

	if (!base && c->analysed && !c->few) {
		explore_interval_words(c->e.lo, c->e.hi, ci, sizeof(ci));
		snprintf(conf, sizeof(conf), "%.1f%%", c->level * 100);
	}
	if (!base) {
		snprintf(speed, sizeof(speed), c->analysed ? "%.2fx" : "-", c->e.ratio);
		explore_verdict_words(c, words, sizeof(words));
	}
	if ((int)strlen(name) > name_w) {
		printf("%-4s %s\n", rank, name);
		rank = name = "";
	}
	len = printf("%-4s %-*s %14.0f %6.1f %7s %-11s %6s %7.2f %7.2f %6.2f %6.2f", rank, name_w,
		     name, c->tps, c->spread, speed, ci, conf, med_whole(c, FIG_CLIENT_CPU),
		     med_whole(c, FIG_SERVER_CPU), med_whole(c, FIG_CLIENT_SYSCALLS),
		     med_whole(c, FIG_SERVER_SYSCALLS));
	wl = (int)strlen(words);
	at = name_w + 28 + wl <= TABLE_W ? name_w + 28 : TABLE_W - wl; /* under the speedup */
	at = at < 10 ? 10 : at;
	if (!wl)
		printf("\n");
	else if (len + 2 + wl <= TABLE_W)
		printf("  %s\n", words);
	else
		printf("\n%*s%s\n", at, "", words);
}

/* A strategy's name and its flags, the flags in a column (under a long name). */
static void print_flags(const struct config *c)
{
	if ((int)strlen(c->name) > name_w)
		printf("  %s\n  %-*s %s\n", c->name, name_w, "", c->flags);
	else
		printf("  %-*s %s\n", name_w, c->name, c->flags);
}

/* The configurations whose runs spread beyond the others' (explore_unsteady). */
static void print_unsteady(const struct explore *x)
{
	if (!x->nunsteady)
		return;
	printf("\nunsteady: runs that spread beyond the others' (each run's distance from its "
	       "configuration's median log rate, against the others': Brown-Forsythe, one-sided, "
	       "at %.0f%% for the %d configurations together):\n", 100 * UNSTEADY_ALPHA,
	       x->nspread_tested);
	for (int i = 0; i < x->nconf; i++) {
		const struct config *c = &x->conf[i];

		if (c->unsteady)
			printf("  %s: sd %.3f of the log run to run, the others %.3f (p %.2g)\n",
			       c->name, c->sd_log, c->others_sd_log, c->unsteady_p);
	}
	printf("  something beyond this machine's noise decides their rate run by run (threads or "
	       "flows the kernel places differently each run, a task competing with some runs): "
	       "their intervals are wide and a gain on top of them is hard to see; look at their "
	       "runs (--json: samples)\n");
}

/* --profile: why c is faster, from where the time moved. False when there are no profiles. */
static bool print_why_one(struct explore *x, const struct config *c)
{
	struct moved_set *mv = config_moved(x, c);

	if (!mv) {
		printf("\n(--profile: the runs hold no profiles to compare; a run alone says why)\n");
		return false;
	}
	printf("\nwhy %s is %.2fx, where the time moved against the baseline:", c->name,
	       c->e.ratio);
	moved_print(mv, x->wl->unit, WHY_ROWS);
	moved_free(mv);
	return true;
}

/* The first WHY_SHOWN faster strategies, and the combination. */
static void print_why(struct explore *x, struct config **ranked, int n, bool have_combo)
{
	for (int i = 0, shown = 0; i < n && shown < WHY_SHOWN; i++) {
		if (ranked[i]->verdict != VERDICT_FASTER)
			continue;
		if (!print_why_one(x, ranked[i]))
			return;
		shown++;
	}
	if (have_combo)
		print_why_one(x, &x->combo);
}

/* --trace: for the first WHY_SHOWN strategies with a verdict either way, which stage of a
 * round trip moved against the baseline. */
static void print_waits(struct explore *x, struct config **ranked, int n)
{
	for (int i = 0, shown = 0; i < n && shown < WHY_SHOWN; i++) {
		if (ranked[i]->verdict != VERDICT_FASTER && ranked[i]->verdict != VERDICT_SLOWER)
			continue;
		struct stage_moved *sm = config_stage_moved(x, ranked[i]);

		if (!sm)
			continue;
		printf("\n%s against the baseline (%.2fx):", ranked[i]->name, ranked[i]->e.ratio);
		stage_moved_print(sm);
		stage_moved_free(sm);
		shown++;
	}
}

void explore_print_table(struct explore *x)
{
	struct config **ranked = x->ranked, **apart = x->apart;
	int n = x->nranked, napart = x->napart;
	bool have_combo = x->have_final;

	printf("sockbench explore %s: %ld rounds, each configuration once a round in a random order "
	       "(seed %llu), %.2f s runs after %.2f s of warm-up; speedup = ratio of the geometric "
	       "means of the paired runs (a strategy and the baseline of its round), with a "
	       "Student t interval; the verdicts share %.1f%% of the 5%% error budget (Holm), each "
	       "interval at the level its strategy was held to\n\n",
	       x->wl->name, x->rounds, (unsigned long long)x->seed, x->screen_run_s, WARMUP_S,
	       100 * SCREEN_ALPHA);
	char rate[40];

	snprintf(rate, sizeof(rate), "%ss/s", x->wl->unit);
	name_w = 8;
	for (int i = 0; i < x->nconf; i++)
		name_w = (int)strlen(x->conf[i].name) > name_w ? (int)strlen(x->conf[i].name) : name_w;
	if (have_combo && (int)strlen(x->combo.name) > name_w)
		name_w = (int)strlen(x->combo.name);
	name_w = name_w > NAME_W_MAX ? NAME_W_MAX : name_w;
	printf("%-4s %-*s %14s %6s %7s %-11s %6s %7s %7s %6s %6s  %s\n", "rank", name_w, "strategy",
	       rate, "spread", "speedup", "interval", "conf", "cli us", "srv us", "cli sc", "srv sc",
	       "verdict");
	print_row(&x->conf[0], "-", true);
	for (int i = 0; i < n; i++) {
		char rank[16];

		snprintf(rank, sizeof(rank), "%d", i + 1);
		print_row(ranked[i], rank, false);
	}
	if (napart) {
		printf("\nchanges the workload (measured, not ranked, never combined):\n");
		for (int i = 0; i < napart; i++)
			print_row(apart[i], "*", false);
	}
	printf("\n(spread: half the range of a configuration's whole runs, in %% of their median; "
	       "interval and conf: speedup's interval and the confidence it is held to, none where "
	       "too few runs made it over %gx wide; us: CPU "
	       "microseconds per %s; sc: system calls per %s%s)\n", INTERVAL_MAX_SPAN, x->wl->unit,
	       x->wl->unit, x->kernel ? "; [sys]: a kernel setting, system-wide, set with --sysctl "
				   "for its runs only and put back after them" : "");
	for (int i = 0; i < n; i++)
		print_flags(ranked[i]);
	for (int i = 0; i < napart; i++)
		print_flags(apart[i]);
	print_unsteady(x);
	explore_print_path(x);
	if (have_combo) {
		printf("\nfinal configuration: %s\n  flags: %s\n", x->combo.name, x->combo.flags);
		print_row(&x->combo, "", false);
		printf("  (%s)\n", EXPLORE_SEARCH_FAMILY);
	}
	explore_print_budget(x);
	for (int i = 0; i < x->nskipped; i++)
		printf("%s %s (%s): %s\n", i ? "             " : "\nnot tried:  ", x->skipped_name[i],
		       x->skipped_flags[i], x->skipped_why[i]);
	int partial = 0, failed = 0;

	for (int i = 0; i < x->nconf; i++) {
		partial += x->conf[i].partial;
		failed += x->conf[i].failed;
	}
	if (partial || failed)
		printf("\n%d of %d runs were partial and %d failed: left out, with their round's pair "
		       "(--json: left_out)\n", partial, x->runs_done, failed);
	if (x->conf[0].o.profile)
		print_why(x, ranked, n, have_combo);
	if (x->conf[0].o.trace)
		print_waits(x, ranked, n);
	if (run_interrupted())
		printf("\nPARTIAL: interrupted after %d of %d runs\n", x->runs_done, x->runs_total);
}

/* How the 5% is split between the screen, the search's verdicts and the final comparison, and
 * the level a step keeps its leader at (a choice, not a claim). */
static cJSON *error_budget_json(void)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "total", STATS_ALPHA);
	cJSON_AddNumberToObject(e, "screen", SCREEN_ALPHA);
	cJSON_AddNumberToObject(e, "search", SEARCH_ALPHA);
	cJSON_AddStringToObject(e, "search_step", "step k's verdict at search / 2^k");
	cJSON_AddNumberToObject(e, "keep_level", KEEP_LEVEL);
	cJSON_AddNumberToObject(e, "final_level", FINAL_LEVEL);
	return e;
}

void explore_print_json(struct explore *x)
{
	struct config **ranked = x->ranked, **apart = x->apart;
	int n = x->nranked, napart = x->napart;
	bool have_combo = x->have_final && x->search.nstrategies >= 2;

	cJSON *j = cJSON_CreateObject(), *arr = cJSON_CreateArray(), *sk = cJSON_CreateArray();
	cJSON *ap = cJSON_CreateArray();
	char seed[24];

	cJSON_AddNumberToObject(j, "schema", RESULT_SCHEMA);
	cJSON_AddStringToObject(j, "tool", "sockbench");
	cJSON_AddStringToObject(j, "kind", "explore");
	cJSON_AddStringToObject(j, "workload", x->wl->name);
	cJSON_AddItemToObject(j, "config", opts_to_json(x->wl->opts, &x->conf[0].o));
	cJSON_AddBoolToObject(j, "partial", run_interrupted());
	cJSON_AddNumberToObject(j, "runs", x->rounds);
	cJSON_AddNumberToObject(j, "run_seconds", x->run_s);
	cJSON_AddNumberToObject(j, "run_seconds_planned", x->run_s_planned);
	cJSON_AddNumberToObject(j, "overhead_s_per_run", x->overhead_s);
	cJSON_AddNumberToObject(j, "took_s", x->clock(x));
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)x->seed);
	cJSON_AddStringToObject(j, "seed", seed);
	cJSON_AddStringToObject(j, "order", x->order);
	cJSON_AddStringToObject(j, "interval", "t on the paired log-ratios, Holm over the strategies");
	cJSON_AddNumberToObject(j, "family_confidence", 1 - SCREEN_ALPHA);
	cJSON_AddItemToObject(j, "error_budget", error_budget_json());
	cJSON_AddStringToObject(j, "combination_family", EXPLORE_SEARCH_FAMILY);
	cJSON_AddItemToObject(j, "baseline", explore_config_json(x, &x->conf[0], 0));
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, explore_config_json(x, ranked[i], i + 1));
	cJSON_AddItemToObject(j, "strategies", arr);
	for (int i = 0; i < napart; i++)
		cJSON_AddItemToArray(ap, explore_config_json(x, apart[i], 0));
	cJSON_AddItemToObject(j, "changes_workload", ap);
	cJSON_AddItemToObject(j, "best_combination",
			      have_combo ? explore_config_json(x, &x->combo, 0) : cJSON_CreateNull());
	for (int i = 0; i < x->nskipped; i++) {
		cJSON *s = cJSON_CreateObject();

		cJSON_AddStringToObject(s, "name", x->skipped_name[i]);
		cJSON_AddStringToObject(s, "flags", x->skipped_flags[i]);
		cJSON_AddStringToObject(s, "reason", x->skipped_why[i]);
		cJSON_AddItemToArray(sk, s);
	}
	cJSON_AddItemToObject(j, "not_applicable", sk);
	cJSON *u = cJSON_CreateObject(), *un = cJSON_CreateArray();

	cJSON_AddNumberToObject(u, "alpha", UNSTEADY_ALPHA);
	cJSON_AddNumberToObject(u, "configurations", x->nspread_tested);
	for (int i = 0; i < x->nconf; i++)
		if (x->conf[i].unsteady)
			cJSON_AddItemToArray(un, cJSON_CreateString(x->conf[i].name));
	cJSON_AddItemToObject(u, "names", un);
	cJSON_AddItemToObject(j, "unsteady", u);
	cJSON_AddItemToObject(j, "search", explore_path_json(x));
	cJSON_AddItemToObject(j, "budget", explore_budget_json(x));
	char *txt = cJSON_Print(j);

	printf("%s\n", txt);
	free(txt);
	cJSON_Delete(j);
}
