/* explore.c: try every user-space strategy on the user's own workload and rank them by the
 * gain measured against the workload as given.
 *
 * Runs go in rounds, each round every configuration once in an order drawn from a seed, and
 * each strategy is paired with the baseline run of the same round, so drift cancels. Each run
 * is a child process (run_isolated): a strategy that cannot start is reported as failed, and
 * a partial run is left out, with its round's pair. The speedup is the ratio of geometric
 * means of the paired runs with a Student t interval on their log-ratios. Three phases share
 * the budget: the screen (every strategy, Holm at SCREEN_ALPHA, each interval at the level
 * its strategy was held to), the forward search on top of the best (explore_search.c, its
 * steps within SEARCH_ALPHA), and the final configuration against baseline runs of its own.
 * Each phase leaves room for the final one; one that does not fit is skipped and recorded
 * with the seconds it needed. Runs go through x->run and time through x->clock, so that the
 * unit tests can simulate both. Strategies that change what is measured (--close reset, more
 * connections in flight) are measured and shown apart, never ranked or combined.
 * With --profile every run is profiled and each strategy that helped is explained: where the
 * time moved against the baseline runs (moved.h).
 */

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/moved.h"
#include "multi/repeat.h"
#include "report/out.h"
#include "base/util.h"

#include "multi/explore_priv.h"
#include "multi/wl_help.h"

/* One run, in a child process of its own (run_isolated); false when Ctrl-C cut it. */
static bool isolated_run(struct explore *x, const struct config *c, struct sample *s)
{
	cJSON *doc;

	s->status = run_isolated(x->wl, &c->o, &doc, s->why, sizeof(s->why));
	if (run_interrupted()) {
		cJSON_Delete(doc);
		return false;
	}
	if (s->status == RUN_WHOLE)
		figures_of(doc, s->fig);
	s->doc = s->status == RUN_WHOLE && (c->o.profile || c->o.trace) ? doc : NULL;
	if (!s->doc)
		cJSON_Delete(doc);
	return true;
}

static double monotonic_clock(const struct explore *x)
{
	return ns_to_s(now_ns() - x->t0);
}

/* One run through x->run, its wall time counted; false when Ctrl-C cut it (no sample). */
static bool measure(struct explore *x, const struct config *c, const char *label, struct sample *s)
{
	progress_line("explore: run", label, x->runs_done, x->runs_total, x->t0);
	*s = (struct sample){0};
	double t = x->clock(x);
	bool ok = x->run(x, c, s);

	x->runs_done++;
	x->wall_s += x->clock(x) - t;
	x->planned_s += c->o.duration + c->o.warmup; /* refits change it between rounds */
	x->overhead_s = (x->wall_s - x->planned_s) / x->runs_done;
	if (x->overhead_s < 0)
		x->overhead_s = 0;
	return ok;
}

static void free_docs(struct sample *s, int n)
{
	for (int i = 0; i < n; i++)
		cJSON_Delete(s[i].doc);
}

/* explore's own flags; the other words are the workload's. */
const struct opt_def explore_flags[] = {
	{OWN_FLAG(DBL, struct explore, budget, "budget", 5, 86400, "S", "total time to spend"),
	 .def = STRINGIFY(DEFAULT_BUDGET)},
	{OWN_FLAG(INT, struct explore, rounds, "runs", 2, MAX_ROUNDS, "N", "rounds"),
	 .shown = STRINGIFY(STATS_DEFAULT_RUNS) "; fewer when the budget is short, down to "
		  STRINGIFY(MIN_ROUNDS)},
	{OWN_FLAG(U64, struct explore, seed, "seed", 1, 0, "N", "of the order of runs"),
	 .shown = "a fresh one, printed"},
	{OWN_FLAG(BOOL, struct explore, list, "list", 0, 1, "",
		  "print the strategies (name, flags) and exit")},
	{OWN_FLAG(BOOL, struct explore, kernel, "kernel", 0, 1, "",
		  "add the kernel's knobs (root): busy polling, buffer sizes, backlog and budget, RPS "
		  "and RFS, TCP autocorking, timestamps, slow start after idle; each set with "
		  "--sysctl for its runs only, marked [sys] (system-wide)")},
	{0},
};

/* Before each round: what is left of the budget over the runs still to come, at the overhead
 * the runs so far measured (a slower machine than planned for shortens the windows; one
 * faster lengthens them back, never past the plan). Every run of a round has the same
 * length, so the round's pairs stay like for like. */
static void refit(struct explore *x, struct config **cs, int n)
{
	int left_runs = x->runs_total - x->runs_done;
	double left_s = x->budget - x->clock(x);

	if (left_runs > 0) {
		x->run_s = left_s / left_runs - WARMUP_S - x->overhead_s;
		if (x->run_s > x->run_s_planned)
			x->run_s = x->run_s_planned;
		if (x->run_s < MIN_RUN_S)
			x->run_s = MIN_RUN_S;
	}
	for (int i = 0; i < n; i++)
		cs[i]->o.duration = x->run_s;
}

/* The final comparison's runs, while it is still to come: every phase leaves room for it. */
static int final_reserve(const struct explore *x)
{
	return x->final_begun ? 0 : 2 * (int)x->rounds;
}

double explore_room(const struct explore *x, int runs)
{
	double need = (runs + final_reserve(x)) * (MIN_RUN_S + WARMUP_S + x->overhead_s);
	double left = x->budget - x->clock(x);

	return need > left ? need - left : 0;
}

void explore_phase(struct explore *x, const char *name, int runs, double seconds, double needs_s)
{
	struct phase_use *p;

	if (x->nphases == MAX_PHASES)
		return;
	p = &x->phase[x->nphases++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->runs = runs;
	p->seconds = seconds;
	p->skipped = needs_s > 0;
	p->needs_s = needs_s;
}

/* Some rounds of a phase: n configurations, rounds from .. to - 1 (a phase in stages: a later
 * stage of fewer configurations), in orders drawn from the seed's stream; with order, each
 * round's order appended to x->order (the screen's). */
struct round_span {
	struct config **cs;
	int n;
	int from, to;
	uint64_t stream;
	bool order;
};

/* The span's rounds, each sample in its round's slot; false when Ctrl-C cut them. */
static bool rounds_run(struct explore *x, const struct round_span *sp)
{
	uint64_t st = stats_seed_state(x->seed, sp->stream + (uint64_t)sp->from);
	int o[MAX_CONFIGS], n = sp->n;
	size_t olen = sp->order ? strlen(x->order) : 0;

	x->runs_total = x->runs_done + n * (sp->to - sp->from) + x->reserve_runs + final_reserve(x);
	for (int r = sp->from; r < sp->to; r++) {
		stats_shuffle(o, n, &st);
		refit(x, sp->cs, n);
		for (int i = 0; i < n; i++) {
			struct config *c = sp->cs[o[i]];

			/* the screen's: configuration numbers, whatever the subset */
			if (sp->order)
				olen += (size_t)snprintf(x->order + olen, sizeof(x->order) - olen,
							 "%s%d", !r && !i ? "" : i ? "," : " ",
							 (int)(c - x->conf));
			if (!measure(x, c, c->name, &c->s[r]))
				return false;
			c->nsamples = r + 1;
		}
	}
	return true;
}

bool explore_rounds(struct explore *x, struct config **cs, int n, int rounds, uint64_t stream)
{
	struct round_span sp = {.cs = cs, .n = n, .to = rounds, .stream = stream};

	return rounds_run(x, &sp);
}

void explore_schedule(int nconfigs, int rounds, uint64_t seed, int *order)
{
	uint64_t st = stats_seed_state(seed, 0);

	for (int r = 0; r < rounds; r++)
		stats_shuffle(order + r * nconfigs, nconfigs, &st);
}

void explore_combo_order(uint64_t seed, int rounds, bool *combo_first)
{
	uint64_t st = stats_seed_state(seed, 0xc0bb1e); /* its own stream of the seed */

	for (int r = 0; r < rounds; r++)
		combo_first[r] = stats_rand(&st) & 1;
}

/* The final configuration against baseline runs of its own, in a random order per round. */
static void run_final(struct explore *x)
{
	struct config *both[2] = {&x->combo, &x->conf[0]};
	bool first[MAX_ROUNDS];

	explore_combo_order(x->seed, (int)x->rounds, first);
	x->runs_total = x->runs_done + 2 * (int)x->rounds;
	for (int r = 0; r < x->rounds && !run_interrupted(); r++) {
		refit(x, both, 2);
		for (int k = 0; k < 2; k++) {
			bool combo = k == (first[r] ? 0 : 1);
			bool ok = combo ? measure(x, &x->combo, "final configuration", &x->combo.s[r])
					: measure(x, &x->conf[0], "baseline (for the final)",
						  &x->combo_base[r]);

			if (!ok)
				goto out;
		}
		x->ncombo = x->combo.nsamples = r + 1;
	}
out:
	explore_analyse_at(&x->combo, x->combo_base, x->ncombo, FINAL_LEVEL);
	if (!x->combo.few && x->combo.verdict == VERDICT_SAME && fabs(x->combo.e.ratio - 1) >= MIN_GAIN)
		x->combo.needed = stats_runs_needed(&x->combo.e, x->combo.level, STATS_POWER, 1000);
}

/* The search's final configuration (when it holds a strategy) against the baseline. */
static void final_phase(struct explore *x, char **user, int nuser)
{
	struct config_line cl = {.wl = x->wl, .user = user, .nuser = nuser,
				 .extra = x->search.flags};
	char err[512];
	double t = x->clock(x), needs;
	int r0 = x->runs_done;

	x->final_begun = true;
	if (!x->search.nstrategies || run_interrupted())
		return;
	if ((needs = explore_room(x, 0)) > 0) {
		explore_phase(x, "final", 0, 0, needs);
		return;
	}
	if (explore_parse_config(&cl, &x->combo.o, err, sizeof(err))) {
		opts_free(&x->combo.o); /* every step's configuration parsed already */
		return;
	}
	explore_fit_run(x, &x->combo.o);
	snprintf(x->combo.flags, sizeof(x->combo.flags), "%s", x->search.flags);
	x->combo.name = xstrdup(x->search.names);
	x->combo.group = "";
	run_final(x);
	x->have_final = x->combo.analysed;
	explore_phase(x, "final", x->runs_done - r0, x->clock(x) - t, 0);
}

void explore_free(struct explore *x)
{
	for (int i = 0; i < x->nconf; i++) {
		free_docs(x->conf[i].s, x->conf[i].nsamples);
		opts_free(&x->conf[i].o);
	}
	free_docs(x->combo_base, x->ncombo);
	free_docs(x->combo.s, x->combo.nsamples);
	if (x->combo.name) {
		opts_free(&x->combo.o);
		free((char *)x->combo.name);
	}
	explore_search_free(x);
}

/* The screen's first stage: rounds every strategy runs before the clearly slower ones are
 * dropped (0: no stages, too few rounds to spare any). */
static int explore_screen_stage(int rounds)
{
	int first = rounds / 3 < MIN_ROUNDS ? MIN_ROUNDS : rounds / 3;

	return rounds - first >= MIN_ROUNDS ? first : 0;
}

/* The screen: every strategy and the baseline in the same rounds; in two stages when the
 * rounds allow (explore_screen_stage), the clearly slower strategies dropped after the first. */
static void screen(struct explore *x, struct config **cs)
{
	int first = explore_screen_stage((int)x->rounds), n = 0;
	struct config *left[MAX_CONFIGS];
	struct round_span sp = {.cs = cs, .n = x->nconf, .to = first, .order = true};

	if (!first) {
		sp.to = (int)x->rounds;
		rounds_run(x, &sp);
		return;
	}
	if (!rounds_run(x, &sp))
		return;
	for (int i = 0; i < x->nconf; i++) {
		struct config *c = cs[i];

		if (i) { /* the baseline (conf[0]) always runs */
			explore_analyse_at(c, x->conf[0].s, x->conf[0].nsamples, DROP_LEVEL);
			if (c->analysed && !c->few && c->e.hi < 1) {
				c->dropped = c->nsamples;
				c->drop_hi = c->e.hi;
				x->ndropped++;
				continue;
			}
		}
		left[n++] = c;
	}
	/* What the dropped would have run is no longer planned (rounds_run counts the runs left):
	 * the later phases get its time. */
	sp = (struct round_span){.cs = left, .n = n, .from = first, .to = (int)x->rounds,
				 .order = true};
	rounds_run(x, &sp);
}

void explore_execute(struct explore *x, char **user, int nuser)
{
	struct config *cs[MAX_CONFIGS];
	double t = x->clock(x);
	int r0 = x->runs_done;

	for (int i = 0; i < x->nconf; i++)
		cs[i] = &x->conf[i];
	/* The screen's windows leave room for the search step the plan holds (a slower machine
	 * than planned shortens them rather than the search). */
	x->reserve_runs = x->runs_total - x->nconf * (int)x->rounds - 2 * (int)x->rounds;
	screen(x, cs);
	x->reserve_runs = 0;
	x->screen_run_s = x->run_s;
	explore_phase(x, "screen", x->runs_done - r0, x->clock(x) - t, 0);
	explore_judge(x, x->ranked, &x->nranked, x->apart, &x->napart);
	explore_search(x, user, nuser);
	final_phase(x, user, nuser);
}

/* No whole run in any configuration: nothing was measured, whatever the report says of the
 * ranking. Say so on stderr and exit 1 (as sweep and compare do); 0 when a run was whole. */
static int nothing_ran(const struct explore *x)
{
	const char *why = NULL;
	int runs = 0;

	for (int i = 0; i < x->nconf; i++) {
		for (int k = 0; k < x->conf[i].nsamples; k++) {
			const struct sample *sm = &x->conf[i].s[k];

			if (sm->status == RUN_WHOLE)
				return 0;
			if (!why && sm->status == RUN_FAILED)
				why = sm->why;
			runs++;
		}
	}
	fprintf(stderr, "sockbench: explore: no run succeeded: none of the %d runs was "
		"whole%s%s%s\n", runs, why ? " (first failure: " : "", why ? why : "", why ? ")" : "");
	return 1;
}

static const struct cmd_usage explore_usage = {
    .cmd = "explore",
    .args = "WORKLOAD [workload flags]",
    .more = "[--json]",
    .summary = "Runs the workload as given and every applicable strategy in rounds (each round all "
	       "of them, in a random order) and ranks them by measured gain; then searches from "
	       "the best: each step tries every strategy of another group on top of the current "
	       "best and keeps the one that helps most, if confirmed in fresh runs; then measures "
	       "the final configuration against the workload as given. Every claim of a gain "
	       "shares one 5% error budget (half for the ranking, half for the search's steps).",
};

int cmd_explore(int argc, char **argv)
{
	struct explore *x;
	char **rest;
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		opts_usage_cmd(explore_flags, &explore_usage, stdout);
		return argc < 2 ? 2 : 0;
	}
	x = xcalloc(1, sizeof(*x));
	rest = xcalloc((size_t)argc + 1, sizeof(char *));
	x->wl = workload_or_exit("explore", argv[1]);
	wl_help_or_return("explore", x->wl, argc - 2, argv + 2);
	opts_own_defaults(explore_flags, x); /* --runs: 0 unless given, see below */
	int nrest;
	char err[512];

	nrest = opts_take(explore_flags, x, &(struct opts_words){argc - 2, argv + 2}, rest, err,
			  sizeof(err));
	if (nrest < 0)
		die_usage("explore: %s", err);
	x->rounds_given = x->rounds != 0;
	if (!x->rounds)
		x->rounds = STATS_DEFAULT_RUNS;
	if (x->list) {
		explore_list(x);
		free(rest);
		free(x);
		return 0;
	}
	if (!x->seed)
		x->seed = fresh_seed();
	explore_plan(x, rest, nrest);
	x->json = x->conf[0].o.json || OPT_IS_SET(&x->conf[0].o, json);
	x->t0 = now_ns();
	x->run_s_planned = x->run_s;
	x->overhead_s = explore_planned_overhead(x);
	run_signals_keep();
	out_noise_warnings(stderr);
	x->run = isolated_run;
	x->clock = monotonic_clock;
	explore_execute(x, rest, nrest);
	progress_clear();
	if (x->json)
		explore_print_json(x);
	else
		explore_print_table(x);
	fflush(stdout);
	int rc = nothing_ran(x);

	explore_free(x);
	free(rest);
	free(x);
	return rc;
}
