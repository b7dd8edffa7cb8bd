/* explore_path.c: what the search did, for people and for programs: its path (where it
 * started, each step's candidates in the selection rounds, the leader's confirmation, which
 * steps were kept), why it stopped, and how the budget was spent per phase (and which phase
 * was skipped, with the seconds it needed). Reads struct explore; runs nothing. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "multi/explore.h"
#include "multi/explore_priv.h"
#include "profile/moved.h"

static const char *verdict_key(const struct config *c)
{
	return !c->analysed && c->failed ? "failed"
	       : !c->analysed || c->few	 ? "no verdict"
					 : stats_verdict_name(c->verdict);
}

/* A gain with its interval: speedup, ci_low, ci_high, ci_level, p_value, pairs, verdict. */
static cJSON *gain_json(const struct config *c, bool verdict)
{
	cJSON *j = cJSON_CreateObject();
	char words[300];

	cJSON_AddStringToObject(j, "name", c->name);
	cJSON_AddStringToObject(j, "flags", c->added ? c->added : c->flags);
	if (c->added)
		cJSON_AddItemToObject(j, "replaces", c->replaces ? cJSON_CreateString(c->replaces)
								 : cJSON_CreateNull());
	cJSON_AddNumberToObject(j, "speedup", c->e.ratio);
	explore_interval_json(j, c->e.lo, c->e.hi);
	cJSON_AddNumberToObject(j, "ci_level", c->level);
	cJSON_AddNumberToObject(j, "pairs", c->pairs);
	if (verdict) {
		cJSON_AddNumberToObject(j, "p_value", c->e.p);
		cJSON_AddStringToObject(j, "verdict", verdict_key(c));
		cJSON_AddStringToObject(j, "verdict_text",
					explore_verdict_words(c, words, sizeof(words)));
		if (c->needed > 0)
			cJSON_AddNumberToObject(j, "runs_needed", c->needed);
	}
	return j;
}

/* What a keep decision rested on: {speedup, ci_low, ci_high, ci_level} at KEEP_LEVEL. */
static cJSON *keep_json(const struct paired *p)
{
	cJSON *k = cJSON_CreateObject();

	cJSON_AddNumberToObject(k, "speedup", p->ratio);
	explore_interval_json(k, p->lo, p->hi);
	cJSON_AddNumberToObject(k, "ci_level", KEEP_LEVEL);
	return k;
}

static cJSON *step_json(const struct search_step *st, int k)
{
	cJSON *j = cJSON_CreateObject(), *cand = cJSON_CreateArray();

	cJSON_AddNumberToObject(j, "step", k);
	cJSON_AddNumberToObject(j, "alpha", st->alpha);
	cJSON_AddNumberToObject(j, "selection_rounds", st->sel_rounds);
	cJSON_AddItemToObject(j, "runner_up_of", st->runner_up_of
						     ? cJSON_CreateNumber(st->runner_up_of)
						     : cJSON_CreateNull());
	cJSON_AddNumberToObject(j, "confirmation_rounds", st->conf ? st->conf_rounds : 0);
	cJSON_AddNumberToObject(j, "left_out", st->left_out);
	for (int i = 1; i <= st->ncand; i++)
		if (st->sel[i].analysed) /* not when the budget or Ctrl-C cut the selection */
			cJSON_AddItemToArray(cand, gain_json(&st->sel[i], false));
	cJSON_AddItemToObject(j, "candidates", cand);
	cJSON_AddItemToObject(j, "leader",
			      st->leader > 0 ? cJSON_CreateString(st->sel[st->leader].name)
					     : cJSON_CreateNull());
	cJSON_AddItemToObject(j, "confirmation",
			      st->conf && st->conf[1].nsamples ? gain_json(&st->conf[1], true)
							       : cJSON_CreateNull());
	cJSON_AddBoolToObject(j, "kept", st->kept);
	cJSON_AddBoolToObject(j, "confirmed", st->confirmed);
	if (st->keep.n >= 2) /* the decision: the confirmation at KEEP_LEVEL */
		cJSON_AddItemToObject(j, "keep_evidence", keep_json(&st->keep));
	return j;
}

/* One element of the path: a configuration, its gain over the one before and, under
 * --profile, where the time moved from the one before (mv, or NULL). */
static cJSON *path_json(int k, const char *names, const char *flags, const struct config *gain,
			struct moved_set *mv)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddNumberToObject(j, "step", k);
	cJSON_AddStringToObject(j, "names", names);
	cJSON_AddStringToObject(j, "flags", flags);
	cJSON_AddItemToObject(j, "gain", gain ? gain_json(gain, true) : cJSON_CreateNull());
	if (mv)
		cJSON_AddItemToObject(j, "where_time_moved", moved_json(mv));
	moved_free(mv);
	return j;
}

/* Where the time moved in a kept step: from the current best's runs to the leader's. */
static struct moved_set *step_moved(const struct search_step *st)
{
	return explore_moved(&st->conf[1], st->conf[0].s, st->conf[0].nsamples);
}

cJSON *explore_path_json(const struct explore *x)
{
	const struct search *s = &x->search;
	cJSON *j = cJSON_CreateObject(), *steps = cJSON_CreateArray(), *path = cJSON_CreateArray();
	const struct config *start = s->start ? &x->conf[s->start] : NULL;

	cJSON_AddNumberToObject(j, "alpha", SEARCH_ALPHA);
	cJSON_AddItemToArray(
	    path,
	    path_json(0, start ? start->name : x->conf[0].name, start ? start->flags : "", start,
		      start ? explore_moved(start, x->conf[0].s, x->conf[0].nsamples) : NULL));
	for (int i = 0; i < s->nsteps; i++) {
		const struct search_step *st = &s->step[i];

		cJSON_AddItemToArray(steps, step_json(st, i + 1));
		if (st->kept)
			cJSON_AddItemToArray(path, path_json(i + 1, st->names, st->flags,
							     &st->conf[1], step_moved(st)));
	}
	/* Where it started: the screen's "faster" (confirmed), or its best-looking strategy kept
	 * on the screen's runs at KEEP_LEVEL (unconfirmed, with that evidence), or the baseline. */
	cJSON_AddItemToObject(j, "start_confirmed",
			      start ? cJSON_CreateBool(!s->start_unconfirmed) : cJSON_CreateNull());
	if (start && s->start_unconfirmed)
		cJSON_AddItemToObject(j, "start_keep_evidence", keep_json(&s->start_keep));
	cJSON_AddItemToObject(j, "path", path);
	cJSON_AddItemToObject(j, "steps", steps);
	cJSON_AddStringToObject(j, "stopped", s->stopped);
	cJSON_AddStringToObject(j, "final_names", s->nstrategies ? s->names : x->conf[0].name);
	cJSON_AddStringToObject(j, "final_flags", s->flags);
	cJSON_AddItemToObject(
	    j, "final", x->have_final ? explore_config_json(x, &x->combo, 0) : cJSON_CreateNull());
	return j;
}

cJSON *explore_budget_json(const struct explore *x)
{
	cJSON *j = cJSON_CreateObject(), *ph = cJSON_CreateArray();

	cJSON_AddNumberToObject(j, "seconds", x->budget);
	for (int i = 0; i < x->nphases; i++) {
		const struct phase_use *p = &x->phase[i];
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "phase", p->name);
		cJSON_AddNumberToObject(e, "runs", p->runs);
		cJSON_AddNumberToObject(e, "seconds", p->seconds);
		cJSON_AddBoolToObject(e, "skipped", p->skipped);
		if (p->skipped) {
			cJSON_AddNumberToObject(e, "needs_s", p->needs_s);
			cJSON_AddNumberToObject(e, "budget_needed", ceil(x->budget + p->needs_s));
		}
		cJSON_AddItemToArray(ph, e);
	}
	cJSON_AddItemToObject(j, "phases", ph);
	return j;
}

static void print_gain(const struct config *c)
{
	char words[300], ci[40];

	if (!c->analysed) {
		printf("%s\n", explore_verdict_words(c, words, sizeof(words)));
		return;
	}
	if (explore_interval_words(c->e.lo, c->e.hi, ci, sizeof(ci)))
		printf("%.2fx (%s at %.2f%%, %d pairs): %s\n", c->e.ratio, ci, 100 * c->level,
		       c->pairs, explore_verdict_words(c, words, sizeof(words)));
	else
		printf("%.2fx (no interval: too few runs, %d pairs): %s\n", c->e.ratio, c->pairs,
		       explore_verdict_words(c, words, sizeof(words)));
}

/* The candidates of a step as the selection rounds saw them, best first. */
static void print_selection(const struct search_step *st)
{
	double g[MAX_CONFIGS];
	int order[MAX_CONFIGS];

	for (int i = 0; i < st->ncand; i++)
		g[i] = st->sel[i + 1].analysed ? st->sel[i + 1].e.ratio : 0;
	explore_rank(g, st->ncand, order);
	if (st->runner_up_of) {
		printf("         the runner-up of step %d's selection (its leader was not kept)\n",
		       st->runner_up_of);
		return;
	}
	if (st->left_out)
		printf("         %d candidate%s the screen ranked lowest left out: the budget had no "
		       "room for %s\n", st->left_out, st->left_out > 1 ? "s" : "",
		       st->left_out > 1 ? "them" : "it");
	if (!st->sel_rounds) {
		printf("         one candidate: no selection rounds\n");
		return;
	}
	printf("         selection, %d rounds (picks the leader, claims nothing):", st->sel_rounds);
	for (int i = 0; i < st->ncand; i++)
		if (g[order[i]] > 0)
			printf("%s %s %.2fx", i ? "," : "", st->sel[order[i] + 1].name,
			       g[order[i]]);
		else
			printf("%s %s -", i ? "," : "", st->sel[order[i] + 1].name);
	printf("\n");
}

void explore_print_path(const struct explore *x)
{
	const struct search *s = &x->search;

	printf("\nsearch on top of the best (each step: every strategy of another group on top of "
	       "the current best, and once another was added each kept one's alternatives in its "
	       "place, in selection rounds, then the leader against the current best in "
	       "fresh rounds, its verdict at %.2f%%/2^k; kept when its gain's %.0f%% interval is "
	       "above 1):\n",
	       100 * SEARCH_ALPHA, 100 * KEEP_LEVEL);
	if (s->start) {
		printf("  start  %s, the screen's best: ", x->conf[s->start].name);
		print_gain(&x->conf[s->start]);
		if (s->start_unconfirmed)
			printf("         the screen found none faster: started from its best-looking, "
			       "%.2f-%.2f at %.0f%% (a gain more likely than not; not a claim)\n",
			       s->start_keep.lo, s->start_keep.hi, 100 * KEEP_LEVEL);
	} else {
		printf("  start  the baseline (the screen found no strategy faster)\n");
	}
	for (int i = 0; i < s->nsteps; i++) {
		const struct search_step *st = &s->step[i];

		if (!st->ran)
			continue; /* not run: "stopped" says why */
		printf("  step %d ", i + 1);
		if (st->conf && st->conf[1].nsamples) {
			printf("%s %s, on top of the step before: ", st->kept ? "+" : "leader",
			       st->conf[1].name);
			print_gain(&st->conf[1]);
			if (st->kept && !st->confirmed)
				printf("         kept, not confirmed: %.2f-%.2f at %.0f%% (a gain more "
				       "likely than not; the final comparison makes the claim)\n",
				       st->keep.lo, st->keep.hi, 100 * KEEP_LEVEL);
		} else {
			printf("no leader\n");
		}
		print_selection(st);
		struct moved_set *mv = st->kept ? step_moved(st) : NULL;

		if (mv) {
			printf("         where the time moved against the step before:");
			moved_print(mv, x->wl->unit, WHY_ROWS);
			moved_free(mv);
		}
	}
	printf("  stopped: %s\n", s->stopped[0] ? s->stopped : "-");
	if (!s->nstrategies)
		printf("  final configuration: the baseline, nothing to compare\n");
	else if (!x->have_final)
		printf("  final configuration: %s (%s), not measured against the baseline\n",
		       s->names, s->flags);
}

void explore_print_budget(const struct explore *x)
{
	printf("\nbudget %.0f s:", x->budget);
	for (int i = 0; i < x->nphases; i++) {
		const struct phase_use *p = &x->phase[i];

		if (p->skipped)
			printf("%s %s skipped (it needed %.0f s more: --budget %.0f)", i ? ";" : "",
			       p->name, p->needs_s, ceil(x->budget + p->needs_s));
		else
			printf("%s %s %d runs, %.1f s", i ? ";" : "", p->name, p->runs, p->seconds);
	}
	printf("\n");
}
