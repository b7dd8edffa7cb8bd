/* explore_search.c: after the screen, the search an expert makes: start from the best
 * configuration so far (the screen's best found faster, else the workload as given) and try
 * each strategy of another group on top of it, keep the one that helps most if fresh runs
 * confirm it, and go on from there until nothing helps or the budget ends.
 *
 * A step spends where it decides. Strategies the screen found slower, that failed, or that
 * change what is measured are not candidates (no runs at all). The candidates and the current
 * best run in selection rounds (half the screen's rounds), which only pick the leader, the
 * candidate with the largest gain over the current best of the same round, and claim nothing
 * (a lone candidate is the leader without them). The leader alone is then confirmed against the
 * current best in fresh rounds of their own (planned from the selection rounds: plan_confirmation),
 * whose verdict is held to step k's share of the search's error budget, SEARCH_ALPHA / 2^k.
 * Selection and confirmation use different runs, so the one test a step makes is as good as its
 * level, and the steps together stay within SEARCH_ALPHA. The step keeps the leader when the
 * confirmation shows a gain at KEEP_LEVEL, confirmed or not: the search goes where the evidence
 * points, and says which steps were confirmed; the final comparison makes the claim. When the
 * leader is not kept, the selection's runner-up (if it too gained MIN_GAIN there) gets a
 * confirmation of its own as the next step, at that step's share: an expert whose first guess
 * did not hold tries the second before giving up (one runner-up per selection). A strategy that
 * made no difference alone is a candidate like any other: an interaction (zero alone, a gain on top
 * of another) is found here. So is a swap: once a strategy of another group has been kept on
 * top of it, each kept strategy's alternatives (the other strategies of its group: batch 64 for
 * batch 8) are candidates too, in its place, as an expert re-tunes the batch after adding a
 * thread. Runs go through explore.c (explore_rounds), time through its budget (explore_room),
 * the current best through explore_best.c; this file touches nothing else.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#include "multi/explore.h"
#include "multi/explore_priv.h"

/* Strategies that are candidates at all (not apart, not failed, not found slower). */
static bool explore_search_candidate(const struct config *c)
{
	return !c->changes && c->analysed && c->verdict != VERDICT_SLOWER && !c->dropped;
}

/* flags parsed into c (0), or -EINVAL (nothing to free). */
static int config_of(struct explore *x, char **user, int nuser, const char *flags,
		     struct config *c)
{
	struct config_line cl = {.wl = x->wl, .user = user, .nuser = nuser, .extra = flags};
	char err[240];

	if (strlen(flags) >= sizeof(c->flags))
		return -1; /* more flags than a configuration holds */
	if (explore_parse_config(&cl, &c->o, err, sizeof(err))) {
		opts_free(&c->o);
		return -1;
	}
	explore_fit_run(x, &c->o);
	memcpy(c->flags, flags, strlen(flags) + 1);
	return 0;
}

/* The current best's flags plus extra (its strategy at index skip taken out), into c. */
static int step_config(struct explore *x, char **user, int nuser, int skip, const char *extra,
		       struct config *c)
{
	char flags[2 * sizeof(c->flags)];

	explore_best_flags(&x->search, skip, extra, flags, sizeof(flags));
	return config_of(x, user, nuser, flags, c);
}

/* May c be tried in the next step: on top of the current best (a group not in it), or in the
 * place of its group's strategy (a swap: not the one kept, and not the group kept or swapped
 * last, whose alternatives were just measured against it)? *at: the index it replaces, or -1. */
static bool candidate_at(const struct search *s, const struct config *c, int *at)
{
	char rest[sizeof(s->flags)];

	if (!explore_search_candidate(c))
		return false;
	*at = explore_best_group(s, c->group);
	if (*at >= 0 && (*at == s->last_changed || !strcmp(s->kept_flags[*at], c->flags)))
		return false;
	explore_best_flags(s, *at, NULL, rest, sizeof(rest));
	return !explore_flags_clash(rest, c->flags);
}

/* The candidates of the next step, into st->sel[1..]: each strategy of a group not yet in the
 * current best, and each swap (candidate_at), that the screen did not find worse, whose flags go
 * with its flags. */
static void gather(struct explore *x, char **user, int nuser, struct search_step *st)
{
	struct search *s = &x->search;
	struct config *c, *cand[MAX_CONFIGS];
	int n = 0, at[MAX_CONFIGS];

	for (int i = 0; i < x->nranked; i++) {
		c = x->ranked[i];
		if (candidate_at(s, c, &at[n]))
			cand[n++] = c;
	}
	st->sel = xcalloc((size_t)n + 1, sizeof(*st->sel));
	step_config(x, user, nuser, -1, NULL, &st->sel[0]);
	st->sel[0].name = "current best";
	for (int i = 0; i < n; i++) {
		struct config *t = &st->sel[st->ncand + 1];

		if (step_config(x, user, nuser, at[i], cand[i]->flags, t))
			continue;
		t->name = t->added_name = cand[i]->name;
		t->group = cand[i]->group;
		t->added = cand[i]->flags;
		if (at[i] >= 0) {
			t->replaces = s->kept_names[at[i]];
			snprintf(t->label, sizeof(t->label), "%s in place of %s", t->name, t->replaces);
			t->name = t->label;
		}
		st->ncand++;
	}
}

/* d gets c's search identity (name, group, the strategy it adds or swaps in). */
static void same_candidate(struct config *d, const struct config *c)
{
	d->group = c->group;
	d->added = c->added;
	d->added_name = c->added_name;
	d->replaces = c->replaces;
	memcpy(d->label, c->label, sizeof(d->label));
	d->name = c->name == c->label ? d->label : c->name;
}

/* The candidate with the largest gain over the current best in the selection rounds, if it
 * gained MIN_GAIN: its index, or -1. */
static int leader(struct search_step *st)
{
	int best = -1;

	for (int i = 1; i <= st->ncand; i++) {
		struct config *c = &st->sel[i];

		explore_analyse(c, st->sel[0].s, st->sel[0].nsamples);
		if (c->analysed && c->e.ratio >= 1 + MIN_GAIN &&
		    (best < 0 || c->e.ratio > st->sel[best].e.ratio))
			best = i;
	}
	return best;
}

/* The candidate second to the leader in the selection rounds, if it gained MIN_GAIN too: its
 * index, or -1 (leader() analysed them all). */
static int runner_up(const struct search_step *st)
{
	int best = -1;

	for (int i = 1; i <= st->ncand; i++) {
		const struct config *c = &st->sel[i];

		if (i == st->leader || !c->analysed || c->e.ratio < 1 + MIN_GAIN)
			continue;
		if (best < 0 || c->e.ratio > st->sel[best].e.ratio)
			best = i;
	}
	return best;
}

/* A step of one candidate, the runner-up (s->runner_up) of the last step's selection, on top of
 * the same current best (that step's leader was not kept, so the best did not move). */
static void gather_runner_up(struct explore *x, char **user, int nuser, struct search_step *st)
{
	const struct search *s = &x->search;
	const struct config *c = &s->step[s->nsteps - 1].sel[s->runner_up];

	st->sel = xcalloc(2, sizeof(*st->sel));
	step_config(x, user, nuser, -1, NULL, &st->sel[0]);
	st->sel[0].name = "current best";
	st->runner_up_of = s->nsteps;
	if (config_of(x, user, nuser, c->flags, &st->sel[1])) /* the same current best's */
		return;
	same_candidate(&st->sel[1], c);
	st->plan_from = c;
	st->ncand = 1;
}

/* The confirmation's rounds, from what the selection rounds showed of the leader (they are
 * not its evidence, only its plan, so its test keeps its level): enough to find a gain like the
 * one they showed at the step's level with STATS_POWER, planned on the upper bound of their
 * spread (stats_runs_needed), up to MAX_ROUNDS and as far as the budget has room beside the
 * next step and the final comparison; never fewer than the screen's rounds. A lone candidate
 * (no selection rounds) gets the screen's. */
static void plan_confirmation(struct explore *x, struct search_step *st, int next)
{
	const struct config *l = st->plan_from ? st->plan_from : &st->sel[st->leader];
	int want = (int)x->rounds, n;

	if ((st->sel_rounds || st->plan_from) && l->analysed && !l->few && !l->e.exact) {
		n = stats_runs_needed(&l->e, 1 - st->alpha, STATS_POWER, MAX_ROUNDS);
		want = n < 0 ? MAX_ROUNDS : n > want ? n : want;
	}
	while (want > x->rounds && explore_room(x, 2 * want + next) > 0)
		want--;
	st->conf_rounds = want;
}

/* The leader against the current best in fresh rounds, at the step's level. */
static bool confirm(struct explore *x, char **user, int nuser, struct search_step *st, int k)
{
	struct config *both[2];

	st->conf = xcalloc(2, sizeof(*st->conf));
	step_config(x, user, nuser, -1, NULL, &st->conf[0]);
	config_of(x, user, nuser, st->sel[st->leader].flags, &st->conf[1]);
	st->conf[0].name = "current best (confirmation)";
	same_candidate(&st->conf[1], &st->sel[st->leader]);
	both[0] = &st->conf[0];
	both[1] = &st->conf[1];
	if (!explore_rounds(x, both, 2, st->conf_rounds, 0x5ea7c40000ULL + 2 * (uint64_t)k + 1))
		return false;
	explore_analyse_at(&st->conf[1], st->conf[0].s, st->conf[0].nsamples, 1 - st->alpha);
	struct config *c = &st->conf[1];

	if (!c->few && c->verdict == VERDICT_SAME && fabs(c->e.ratio - 1) >= MIN_GAIN)
		c->needed = stats_runs_needed(&c->e, c->level, STATS_POWER, 1000);
	return true;
}

/* Does the leader help enough to go on from it (KEEP_LEVEL)? And is that a verdict at the
 * step's level (confirmed)? */
static bool helps(struct search_step *st)
{
	double a[MAX_ROUNDS], b[MAX_ROUNDS];
	int n = explore_pairs(&st->conf[1], st->conf[0].s, st->conf[0].nsamples, a, b);

	st->confirmed = st->conf[1].verdict == VERDICT_FASTER;
	if (n < 2)
		return false;
	stats_paired(a, b, n, KEEP_LEVEL, &st->keep);
	return st->confirmed || (st->keep.lo > 1 && st->keep.ratio >= 1 + MIN_GAIN);
}

/* The leader goes into the current best. */
static void keep(struct explore *x, struct search_step *st)
{
	const struct config *c = &st->conf[1];

	st->kept = true;
	x->search.stopped[0] = '\0'; /* a runner-up's step kept: the leader's "not clearly" is past */
	explore_best_take(&x->search, c->group, c->added, c->added_name);
}

/* Step k begins: its candidates, those that go with the current best, or the last step's
 * runner-up. */
static void start_step(struct explore *x, char **user, int nuser, struct search_step *st, int k)
{
	struct search *s = &x->search;

	*st = (struct search_step){.leader = -1, .alpha = SEARCH_ALPHA / pow(2, k)};
	/* A lone candidate needs no selection: it goes straight to its confirmation. */
	st->sel_rounds = explore_selection_rounds((int)x->rounds);
	st->conf_rounds = (int)x->rounds;
	snprintf(st->flags, sizeof(st->flags), "%s", s->flags); /* until a strategy is kept */
	snprintf(st->names, sizeof(st->names), "%s", s->names);
	if (s->runner_up > 0)
		gather_runner_up(x, user, nuser, st);
	else
		gather(x, user, nuser, st);
	s->runner_up = 0;
	s->nsteps++;
	if (st->ncand == 1)
		st->sel_rounds = 0;
}

/* Step k fitted to the budget; false when not even one candidate fits (the phase recorded as
 * skipped with what it needed, s->stopped says why). */
static bool fit_step(struct explore *x, struct search_step *st, int k, const char *phase)
{
	struct search *s = &x->search;
	double needs;

	/* A budget short of the step's plan takes fewer selection rounds, down to MIN_ROUNDS:
	 * the confirmation, which decides, keeps all of its own. */
	for (;;) {
		needs = explore_room(x, st->sel_rounds * (st->ncand + 1) + 2 * st->conf_rounds);
		if (needs <= 0 || st->sel_rounds <= MIN_ROUNDS)
			break;
		st->sel_rounds--;
	}
	/* Still short: the candidates the screen ranked lowest wait (those left are tried, as an
	 * expert short of time tries the likeliest first; down to one, which goes straight to its
	 * confirmation), and the path says how many waited. */
	double needs_all = needs;

	while (needs > 0 && st->ncand > 1) {
		opts_free(&st->sel[st->ncand--].o);
		st->left_out++;
		if (st->ncand == 1)
			st->sel_rounds = 0;
		needs = explore_room(x, st->sel_rounds * (st->ncand + 1) + 2 * st->conf_rounds);
	}
	if (needs <= 0)
		return true;
	/* not even one fits: what the step as planned needs, and nothing "left out" (the
	 * configurations left out are freed: ncand stays) */
	int planned = st->ncand + st->left_out;

	needs = needs_all;
	st->left_out = 0;
	explore_phase(x, phase, 0, 0, needs);
	if (st->runner_up_of)
		snprintf(s->stopped, sizeof(s->stopped),
			 "the budget had no room for step %d (%s, the runner-up of step %d): "
			 "it needed %.0f s more", k, st->sel[1].name, st->runner_up_of, needs);
	else
		snprintf(s->stopped, sizeof(s->stopped),
			 "the budget had no room for step %d (%d candidates): it needed %.0f "
			 "s more", k, planned, needs);
	return false;
}

/* Step k's runs: the selection rounds, then its leader's confirmation; false when Ctrl-C cut
 * them. */
static bool run_step(struct explore *x, char **user, int nuser, struct search_step *st, int k)
{
	struct config *sel[MAX_CONFIGS];

	st->ran = true;
	for (int i = 0; i <= st->ncand; i++)
		sel[i] = &st->sel[i];
	/* The windows leave room for a next step (one candidate fewer) as well as for the final
	 * comparison: a step that runs to the end of the budget would end the search there. */
	int next = st->ncand > 1 ? st->sel_rounds * st->ncand + 2 * st->conf_rounds : 0;

	x->reserve_runs = 2 * st->conf_rounds + next;
	bool whole = explore_rounds(x, sel, st->ncand + 1, st->sel_rounds,
				    0x5ea7c40000ULL + 2 * (uint64_t)k);

	x->reserve_runs = next;
	if (whole && (st->leader = st->ncand == 1 ? 1 : leader(st)) > 0) {
		plan_confirmation(x, st, next);
		whole = confirm(x, user, nuser, st, k);
	}
	x->reserve_runs = 0;
	return whole;
}

/* What a whole step's runs showed: its leader kept (true), or why the search stops there
 * (false), unless a runner-up's confirmation is the next step (true). */
static bool conclude_step(struct explore *x, struct search_step *st)
{
	struct search *s = &x->search;

	if (st->leader < 0) {
		snprintf(s->stopped, sizeof(s->stopped),
			 "no candidate gained %.0f%% on top of it in the selection rounds",
			 MIN_GAIN * 100);
		return false;
	}
	if (!helps(st)) {
		int r = st->runner_up_of ? -1 : runner_up(st);

		snprintf(s->stopped, sizeof(s->stopped),
			 "the %s (%s) gained %.2fx in its confirmation, %.2f-%.2f at %.0f%%: "
			 "not clearly a gain", st->runner_up_of ? "runner-up" : "leader",
			 st->conf[1].name, st->keep.ratio, st->keep.lo, st->keep.hi,
			 100 * KEEP_LEVEL);
		s->runner_up = r;
		return r > 0; /* the runner-up's confirmation is the next step */
	}
	keep(x, st);
	snprintf(st->flags, sizeof(st->flags), "%s", s->flags);
	snprintf(st->names, sizeof(st->names), "%s", s->names);
	return true;
}

/* One step: false when the search stops (s->stopped says why). */
static bool step(struct explore *x, char **user, int nuser)
{
	struct search *s = &x->search;
	struct search_step *st = &s->step[s->nsteps];
	int k = s->nsteps + 1, r0 = x->runs_done;
	double t = x->clock(x);
	char phase[40];

	snprintf(phase, sizeof(phase), "search step %d", k);
	start_step(x, user, nuser, st, k);
	if (!st->ncand) {
		snprintf(s->stopped, sizeof(s->stopped),
			 "no strategy of another group (or in the place of one) goes with it");
		return false;
	}
	if (!fit_step(x, st, k, phase))
		return false;
	bool whole = run_step(x, user, nuser, st, k);

	explore_phase(x, phase, x->runs_done - r0, x->clock(x) - t, 0);
	if (!whole) {
		snprintf(s->stopped, sizeof(s->stopped), "interrupted");
		return false;
	}
	return conclude_step(x, st);
}

/* Where the search starts: the screen's best found faster; else, as an expert would, its
 * best-looking strategy when that more likely than not helps (a gain of MIN_GAIN with its
 * KEEP_LEVEL interval above 1: the keep rule of a step, on the screen's runs), said as
 * unconfirmed; else the baseline (0). Ranked holds the screen's strategies, best first. */
static int start_at(struct explore *x, struct paired *keep)
{
	double a[MAX_ROUNDS], b[MAX_ROUNDS];

	for (int i = 0; i < x->nranked; i++) {
		const struct config *c = x->ranked[i];

		if (c->verdict == VERDICT_FASTER && !c->changes)
			return (int)(c - x->conf);
	}
	for (int i = 0; i < x->nranked; i++) {
		const struct config *c = x->ranked[i];
		int n;

		if (!explore_search_candidate(c) || c->few || c->e.ratio < 1 + MIN_GAIN)
			continue;
		n = explore_pairs(c, x->conf[0].s, x->conf[0].nsamples, a, b);
		if (n < 2)
			continue;
		stats_paired(a, b, n, KEEP_LEVEL, keep);
		if (keep->lo > 1 && keep->ratio >= 1 + MIN_GAIN)
			return (int)(c - x->conf);
	}
	return 0;
}

void explore_search(struct explore *x, char **user, int nuser)
{
	struct search *s = &x->search;
	struct paired keep = {0};

	*s = (struct search){0};
	s->start = start_at(x, &keep);
	if (s->start) {
		const struct config *c = &x->conf[s->start];

		s->start_unconfirmed = c->verdict != VERDICT_FASTER;
		s->start_keep = keep;
		explore_best_take(s, c->group, c->flags, c->name);
	}
	if (run_interrupted()) {
		snprintf(s->stopped, sizeof(s->stopped), "interrupted");
		return;
	}
	while (s->nsteps < MAX_STEPS && step(x, user, nuser))
		;
	if (s->nsteps == MAX_STEPS && !s->stopped[0])
		snprintf(s->stopped, sizeof(s->stopped), "%d steps, the most it takes", MAX_STEPS);
}

static void free_configs(struct config *c, int n)
{
	for (int i = 0; c && i < n; i++) {
		for (int r = 0; r < c[i].nsamples; r++)
			cJSON_Delete(c[i].s[r].doc);
		opts_free(&c[i].o);
	}
	free(c);
}

void explore_search_free(struct explore *x)
{
	for (int i = 0; i < x->search.nsteps; i++) {
		free_configs(x->search.step[i].sel, x->search.step[i].ncand + 1);
		free_configs(x->search.step[i].conf, x->search.step[i].conf ? 2 : 0);
	}
}
