/* explore.c: try every user-space strategy on the user's own workload and rank them by the
 * gain measured against the workload as given.
 *
 * Runs go in rounds, each round every configuration once in an order drawn from a seed, and
 * each strategy is paired with the baseline run of the same round, so drift cancels. Each run
 * is a child process (run_isolated): a strategy that cannot start is reported as failed, and
 * a partial run is left out, with its round's pair. The speedup is the ratio of geometric
 * means of the paired runs with a Student t interval on their log-ratios; the verdicts of all
 * the strategies share one 5% error budget (Holm), and each interval is shown at the level
 * its strategy was held to. The strategies found faster are combined (the best of each
 * group) and the combination is measured the same way, against baseline runs of its own.
 * Strategies that change what is measured (--close reset, more connections in flight) are
 * measured and shown apart, never ranked or combined.
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

void explore_schedule(int nconfigs, int rounds, uint64_t seed, int *order)
{
	uint64_t st = stats_seed_state(seed, 0);

	for (int r = 0; r < rounds; r++)
		stats_shuffle(order + r * nconfigs, nconfigs, &st);
}

/* One run, in a child process of its own; false when Ctrl-C cut it (no sample, and stop). */
static bool measure(struct explore *x, const struct config *c, const char *label, struct sample *s)
{
	cJSON *doc;

	progress_line("explore: run", label, x->runs_done, x->runs_total, x->t0);
	*s = (struct sample){0};
	uint64_t t = now_ns();
	s->status = run_isolated(x->wl, &c->o, &doc, s->why, sizeof(s->why));
	x->runs_done++;
	x->wall_s += ns_to_s(now_ns() - t);
	x->planned_s += c->o.duration + c->o.warmup; /* refits change it between rounds */
	x->overhead_s = (x->wall_s - x->planned_s) / x->runs_done;
	if (x->overhead_s < 0)
		x->overhead_s = 0;
	if (run_interrupted()) {
		cJSON_Delete(doc);
		return false;
	}
	if (s->status == RUN_WHOLE)
		figures_of(doc, s->fig);
	s->doc = s->status == RUN_WHOLE && c->o.profile ? doc : NULL;
	if (!s->doc)
		cJSON_Delete(doc);
	return true;
}

static void free_docs(struct sample *s, int n)
{
	for (int i = 0; i < n; i++)
		cJSON_Delete(s[i].doc);
}

/* Take explore's own flags (--budget S, --runs N, --seed N, --list) out of argv. */
/* explore's own flags; the other words are the workload's. */
const struct opt_def explore_flags[] = {
	OWN_FLAG(DBL, struct explore, budget, "budget", 5, 86400),
	OWN_FLAG(INT, struct explore, rounds, "runs", 2, MAX_ROUNDS),
	OWN_FLAG(U64, struct explore, seed, "seed", 1, 0),
	OWN_FLAG(BOOL, struct explore, list, "list", 0, 1),
	OWN_FLAG(BOOL, struct explore, kernel, "kernel", 0, 1),
	{0},
};

/* Before each round after the first: what is left of the budget over the runs still to come,
 * at the overhead the runs so far measured (a slower machine than planned for shortens the
 * windows; one faster lengthens them back, never past the plan). Every run of a round has the
 * same length, so the round's pairs stay like for like. */
static void refit(struct explore *x)
{
	int left_runs = x->runs_total - x->runs_done;
	double left_s = x->budget - ns_to_s(now_ns() - x->t0);

	if (left_runs <= 0)
		return;
	x->run_s = left_s / left_runs - WARMUP_S - x->overhead_s;
	if (x->run_s > x->run_s_planned)
		x->run_s = x->run_s_planned;
	if (x->run_s < MIN_RUN_S)
		x->run_s = MIN_RUN_S;
	for (int i = 0; i < x->nconf; i++)
		x->conf[i].o.duration = x->run_s;
}

static void run_all(struct explore *x)
{
	int *order = xcalloc((size_t)(x->nconf * x->rounds), sizeof(int));
	size_t olen = 0;

	explore_schedule(x->nconf, x->rounds, x->seed, order);
	for (int i = 0; i < x->nconf * x->rounds; i++) {
		struct config *c = &x->conf[order[i]];

		if (i && i % x->nconf == 0)
			refit(x);
		olen += (size_t)snprintf(x->order + olen, sizeof(x->order) - olen, "%s%d",
					 i == 0 ? "" : i % x->nconf ? "," : " ", order[i]);
		if (!measure(x, c, c->name, &c->s[i / x->nconf]))
			break;
		c->nsamples = i / x->nconf + 1;
	}
	free(order);
}

void explore_combo_order(uint64_t seed, int rounds, bool *combo_first)
{
	uint64_t st = stats_seed_state(seed, 0xc0bb1e); /* its own stream of the seed */

	for (int r = 0; r < rounds; r++)
		combo_first[r] = stats_rand(&st) & 1;
}

static void run_combination(struct explore *x)
{
	bool first[MAX_ROUNDS];

	explore_combo_order(x->seed, (int)x->rounds, first);
	for (int r = 0; r < x->rounds && !run_interrupted(); r++) {
		for (int k = 0; k < 2; k++) {
			bool combo = k == (first[r] ? 0 : 1);
			bool ok = combo ? measure(x, &x->combo, "best combination", &x->combo.s[r])
					: measure(x, &x->conf[0], "baseline (for the combination)",
						  &x->combo_base[r]);

			if (!ok)
				goto out;
		}
		x->ncombo = x->combo.nsamples = r + 1;
	}
out:
	explore_analyse(&x->combo, x->combo_base, x->ncombo);
	if (!x->combo.few && x->combo.verdict == VERDICT_SAME && fabs(x->combo.e.ratio - 1) >= MIN_GAIN)
		x->combo.needed = stats_runs_needed(&x->combo.e, x->combo.level, STATS_POWER, 1000);
}

int cmd_explore(int argc, char **argv)
{
	struct explore *x;
	char **rest;
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf("usage: sockbench explore WORKLOAD [workload flags] [--budget S] [--runs N] "
		       "[--seed N] [--json] [--list] [--kernel]\n"
		       "Runs the workload as given and every applicable strategy in rounds (each round "
		       "all of them, in a random order), then the best combination of those found "
		       "faster, and ranks them by measured gain; the verdicts share one 5%% error "
		       "budget.\n"
		       "  --budget S   total time to spend (default %d)\n"
		       "  --runs N     rounds (default %d; fewer when the budget is short, down to %d)\n"
		       "  --seed N     of the order of runs (default: a fresh one, printed)\n"
		       "  --list       print the strategies (name, flags) and exit\n"
		       "  --kernel     add the kernel's knobs (root): busy polling, buffer sizes, backlog "
		       "and budget, RPS and RFS, TCP autocorking, timestamps, slow start after idle; "
		       "each set with "
		       "--sysctl for its runs only, marked [sys] (system-wide)\n",
		       DEFAULT_BUDGET, STATS_DEFAULT_RUNS, MIN_ROUNDS);
		return argc < 2 ? 2 : 0;
	}
	x = xcalloc(1, sizeof(*x));
	rest = xcalloc((size_t)argc + 1, sizeof(char *));
	x->wl = workload_or_exit("explore", argv[1]);
	x->budget = DEFAULT_BUDGET;
	x->rounds = 0; /* given or not: see below */
	int nrest;
	char err[200];

	if (opts_take(explore_flags, x, argc - 2, argv + 2, rest, &nrest, err, sizeof(err)))
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
	x->overhead_s = RUN_OVERHEAD_S;
	run_signals_keep();
	out_noise_warnings(stderr);
	run_all(x);

	struct config *ranked[MAX_CONFIGS], *apart[MAX_CONFIGS];
	int n, napart;

	explore_judge(x, ranked, &n, apart, &napart);
	/* The combination runs only if the budget still has room for it, at the runs' measured
	 * overhead; its runs are refitted to what is left like a round's. */
	refit(x);
	double left = x->budget - ns_to_s(now_ns() - x->t0);
	bool room = left >= 2 * x->rounds * (MIN_RUN_S + WARMUP_S + x->overhead_s);
	bool combo = !run_interrupted() && room && explore_plan_combination(x, rest, nrest, ranked, n);

	if (combo)
		run_combination(x);
	progress_clear();
	if (x->json)
		explore_print_json(x, ranked, n, apart, napart, combo && x->combo.analysed);
	else
		explore_print_table(x, ranked, n, apart, napart, combo && x->combo.analysed);
	for (int i = 0; i < x->nconf; i++) {
		free_docs(x->conf[i].s, x->conf[i].nsamples);
		opts_free(&x->conf[i].o);
	}
	free_docs(x->combo_base, x->ncombo);
	free_docs(x->combo.s, x->combo.nsamples);
	if (combo) {
		opts_free(&x->combo.o);
		free((char *)x->combo.name);
	}
	free(rest);
	free(x);
	return 0;
}
