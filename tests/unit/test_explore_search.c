/* explore's search on a simulated workload: the whole exploration (plan, screen, search,
 * final comparison) with explore's run and clock replaced by a model of known effects and
 * log-normal noise, at the default budget unless said: does it find the best combination
 * (an interaction included), claim no more than its error budget when nothing changes, spend
 * the budget as it says, and do the same for every workload's strategies and the kernel's
 * knobs. Runs nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "multi/explore.h"
#include "multi/explore_priv.h"
#include "explore_sim.h"

/* The simulated workload: udp-rr's options, strategies of known effect. Alone: batch 8
 * 1.6x, batch 64 2.0x (one group), busy wait 1.3x, no checksums 0.7x (clearly worse), the
 * others nothing; connected sockets nothing alone and 1.35x on top of a batch (the
 * interaction). The best combination: batch 64 + connected + busy wait, 3.51x. */
static const struct strategy sim_strategies[] = {
	{"batch 8", "calls", "--batch 8", false},
	{"batch 64", "calls", "--batch 64", false},
	{"connected sockets", "route", "--connected", false},
	{"busy wait", "wait", "--wait busy", false},
	{"no checksums", "csum", "--no-check", false},
	{"pin to CPUs", "pin", "--pin", false},
	{"SO_BUSY_POLL 50 us", "busypoll", "--busy-poll 50", false},
	{0},
};

static const struct sim_effect sim_effects[] = {
	{"--batch 8", 1.6, 1.6, NULL},
	{"--batch 64", 2.0, 2.0, NULL},
	{"--connected", 1.0, 1.35, "--batch"},
	{"--wait busy", 1.3, 1.3, NULL},
	{"--no-check", 0.7, 0.7, NULL},
	{0},
};

static struct workload sim_wl;

/* The same on udp-rr with the strategies above. */
static struct explore *sim_explore(uint64_t seed, double budget, bool null, struct sim *m,
				   int rounds)
{
	sim_wl = wl_udp_rr;
	sim_wl.strategies = sim_strategies;
	return sim_run_wl(&sim_wl, seed, budget, null ? NULL : sim_effects, m, rounds);
}


/* The search's final configuration is batch 64 + connected + busy wait, nothing else. */
static bool found_best(const struct explore *x)
{
	const char *f = x->search.flags;

	return x->search.nstrategies == 3 && has(f, "--batch 64") && has(f, "--connected") &&
	       has(f, "--wait busy");
}

/* The JSON of a search that found it: the path is the start (batch 64, the screen's best)
 * and two kept steps, each with the strategy it added and its gain over the step before at
 * its step's level; best_combination is the final configuration. */
static void check_path_json(const struct explore *x)
{
	cJSON *p = explore_path_json(x), *path = cJSON_GetObjectItem(p, "path");
	cJSON *fin = cJSON_GetObjectItem(p, "final");

	assert_int_equal(cJSON_GetArraySize(path), 3);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(path, 0), "flags")->valuestring,
			    "--batch 64");
	for (int k = 1; k < 3; k++) {
		cJSON *e = cJSON_GetArrayItem(path, k), *g = cJSON_GetObjectItem(e, "gain");

		/* the k-th kept step; a step whose leader was not kept, and its runner-up's step,
		 * may come between (step numbers count every step tried) */
		int n = cJSON_GetObjectItem(e, "step")->valueint;

		assert_true(n >= k && n > cJSON_GetObjectItem(cJSON_GetArrayItem(path, k - 1),
							      "step")->valueint);
		assert_true(fabs(cJSON_GetObjectItem(g, "ci_level")->valuedouble -
				 (1 - SEARCH_ALPHA / pow(2, n))) < 1e-12);
		/* kept: confirmed ("faster", its interval above 1 at the step's level), or its
		 * KEEP_LEVEL interval above 1 and said so */
		cJSON *st = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "steps"), n - 1);
		cJSON *ru = cJSON_GetObjectItem(st, "runner_up_of");

		assert_int_equal(cJSON_GetObjectItem(st, "step")->valueint, n);
		/* a runner-up's step: the step before it was not kept */
		assert_true(cJSON_IsNull(ru) ||
			    (ru->valueint == n - 1 &&
			     !cJSON_IsTrue(cJSON_GetObjectItem(
				 cJSON_GetArrayItem(cJSON_GetObjectItem(p, "steps"), n - 2), "kept"))));
		cJSON *ke = cJSON_GetObjectItem(st, "keep_evidence");
		bool conf = cJSON_IsTrue(cJSON_GetObjectItem(st, "confirmed"));

		assert_true(cJSON_IsTrue(cJSON_GetObjectItem(st, "kept")));
		assert_true(cJSON_GetObjectItem(ke, "ci_low")->valuedouble > 1);
		assert_true(fabs(cJSON_GetObjectItem(ke, "ci_level")->valuedouble - KEEP_LEVEL) < 1e-12);
		assert_string_equal(cJSON_GetObjectItem(g, "verdict")->valuestring,
				    conf ? "faster" : "no real difference");
		assert_true(!conf || cJSON_GetObjectItem(g, "ci_low")->valuedouble > 1);
		assert_true(has(cJSON_GetObjectItem(e, "flags")->valuestring,
				cJSON_GetObjectItem(g, "flags")->valuestring));
	}
	assert_string_equal(cJSON_GetObjectItem(fin, "flags")->valuestring, x->search.flags);
	cJSON_Delete(p);
}

#define NSIM 200

/* At the default budget, the search finds the best combination, interaction included, in at
 * least 90% of 200 seeded explorations; it never spends a run on the strategy the screen
 * found worse; the budget holds, and the final comparison is measured. A search that only
 * combines what was faster alone never adds connected sockets (0 of 200). */
static void test_search_finds_best(void **state)
{
	(void)state;
	int found = 0, final = 0;

	for (int i = 0; i < NSIM; i++) {
		struct sim m = {0};
		struct explore *x = sim_explore(1000 + i, DEFAULT_BUDGET, false, &m, 0);

		found += found_best(x);
		final += x->have_final && x->combo.verdict == VERDICT_FASTER &&
			 x->combo.e.lo > 2.5 && x->combo.e.hi < 5;
		assert_true(m.now <= DEFAULT_BUDGET + 1e-6);
		assert_int_equal(x->rounds, STATS_DEFAULT_RUNS);
		for (int k = 0; k < x->search.nsteps; k++) {
			const struct search_step *st = &x->search.step[k];

			for (int c = 1; c <= st->ncand; c++)
				assert_string_not_equal(st->sel[c].name, "no checksums");
			/* step k+1 held to SEARCH_ALPHA / 2^(k+1): every step within 2.5% */
			assert_true(fabs(st->alpha - SEARCH_ALPHA / pow(2, k + 1)) < 1e-12);
			if (st->conf && st->conf[1].analysed)
				assert_true(fabs(st->conf[1].level - (1 - st->alpha)) < 1e-12);
		}
		if (getenv("SIM_DEBUG") && i < 2) /* the first ones, as explore prints them */
			*getenv("SIM_DEBUG") == 'j' ? explore_print_json(x) : explore_print_table(x);
		for (int p = 0; p < x->nphases; p++)
			assert_false(x->phase[p].skipped && !strcmp(x->phase[p].name, "final"));
		if (found_best(x))
			check_path_json(x);
		sim_free(x);
	}
	print_message("search: best combination found in %d of %d, final confirmed in %d\n", found,
		      NSIM, final);
	assert_true(found >= NSIM * 9 / 10);
	assert_true(final >= NSIM * 9 / 10);
}

/* Nothing changes anything: an exploration claims a gain (a screen verdict "faster", a step
 * confirmed "faster", or the final configuration "faster" than the baseline) in at most the
 * stated 5% of 200, plus two binomial standard deviations of 200 explorations at 5% (16 of
 * 200). A step kept on KEEP_LEVEL's weaker evidence is no claim: it only says where the search
 * went (in some of these explorations it keeps a null strategy, which the final comparison
 * then finds no different). A screen without Holm (each strategy at 5%) claims in 18 of these
 * 200. */
static void test_search_null(void **state)
{
	(void)state;
	int claims = 0, kept = 0;
	double limit = NSIM * STATS_ALPHA + 2 * sqrt(NSIM * STATS_ALPHA * (1 - STATS_ALPHA));

	for (int i = 0; i < NSIM; i++) {
		struct sim m = {0};
		struct explore *x = sim_explore(5000 + i, DEFAULT_BUDGET, true, &m, 0);
		bool claim = x->have_final && x->combo.verdict == VERDICT_FASTER;

		for (int k = 0; k < x->nranked; k++)
			claim |= x->ranked[k]->verdict == VERDICT_FASTER;
		for (int k = 0; k < x->search.nsteps; k++)
			claim |= x->search.step[k].kept && x->search.step[k].confirmed;
		kept += x->search.nstrategies > 0;
		claims += claim;
		sim_free(x);
	}
	print_message("all null: %d of %d explorations claimed a gain (limit %.1f); %d ended with a "
		      "strategy kept\n", claims, NSIM, limit, kept);
	assert_true(claims <= limit);
}

/* A budget with room for the screen and the final comparison but not for a step of the
 * search (70 s at 12 rounds: 120 runs of at least 0.55 s): the step is skipped, recorded with
 * the seconds it needed, and the final comparison (kept room for) still runs; the budget
 * holds. */
static void test_search_budget_short(void **state)
{
	(void)state;
	struct sim m = {0};
	struct explore *x = sim_explore(42, 70, false, &m, 12);
	bool skipped = false;

	for (int p = 0; p < x->nphases; p++)
		if (x->phase[p].skipped) {
			skipped = true;
			assert_true(!strncmp(x->phase[p].name, "search step", 11));
			assert_true(x->phase[p].needs_s > 0);
		}
	assert_true(skipped);
	assert_true(x->have_final);
	assert_true(m.now <= 70 + 1e-6);
	assert_int_equal(x->search.nsteps, 1);
	assert_int_equal(explore_selection_rounds(12), 6);
	assert_int_equal(explore_selection_rounds(4), 3);
	assert_int_equal(explore_selection_rounds(2), 2); /* --runs 2: never more rounds */
	assert_int_equal(x->search.step[0].sel[0].nsamples, 0);
	assert_false(x->search.step[0].ran);
	assert_true(strstr(x->search.stopped, "needed") != NULL);
	/* The JSON says the same: the path is its start only, the step's phase skipped with the
	 * seconds and the --budget it needed, and the final configuration measured. */
	cJSON *p = explore_path_json(x), *b = explore_budget_json(x), *e;
	int nskipped = 0;

	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(p, "path")), 1);
	assert_true(cJSON_IsObject(cJSON_GetObjectItem(p, "final")));
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(b, "phases"))
		if (cJSON_IsTrue(cJSON_GetObjectItem(e, "skipped"))) {
			nskipped++;
			assert_true(cJSON_GetObjectItem(e, "needs_s")->valuedouble > 0);
			assert_true(cJSON_GetObjectItem(e, "budget_needed")->valuedouble > 70);
		}
	assert_int_equal(nskipped, 1);
	cJSON_Delete(p);
	cJSON_Delete(b);
	sim_free(x);
}

/* Every workload's own strategy table: its first ranked strategy (A) gains 1.6x, and the
 * first strategy of another group that goes with it (B) nothing alone and 1.4x on top of A.
 * The search ends with both in at least 9 of 10 seeded explorations of each workload. */
static void test_search_every_workload(void **state)
{
	(void)state;
	for (const struct workload *const *w = workloads; *w; w++) {
		const struct strategy *a = NULL, *b = NULL;
		char both[400], err[240];
		struct config_line cl = {.wl = *w, .extra = both};
		struct opts o;
		int found = 0;

		for (const struct strategy *st = (*w)->strategies; st && st->name; st++) {
			if (st->changes_workload)
				continue;
			if (!a) {
				a = st;
				continue;
			}
			snprintf(both, sizeof(both), "%s %s", a->args, st->args);
			bool ok = strcmp(st->group, a->group) && !explore_flags_clash(a->args, st->args) &&
				  !explore_parse_config(&cl, &o, err, sizeof(err));

			opts_free(&o);
			if (ok) {
				b = st;
				break;
			}
		}
		assert_non_null(b);
		struct sim_effect eff[] = {{a->args, 1.6, 1.6, NULL}, {b->args, 1.0, 1.4, a->args}, {0}};

		for (int i = 0; i < 10; i++) {
			struct sim m = {0};
			struct explore *x = sim_run_wl(*w, 300 + i, DEFAULT_BUDGET, eff, &m, 0);

			found += has(x->search.flags, a->args) && has(x->search.flags, b->args);
			if (getenv("SIM_DEBUG") && !i) explore_print_table(x);
			assert_true(m.now <= DEFAULT_BUDGET + 1e-6);
			sim_free(x);
		}
		print_message("%s: %s + %s found in %d of 10\n", (*w)->name, a->name, b->name, found);
		assert_true(found >= 9);
	}
}

/* The kernel's knobs (each set with --sysctl, marked [sys]) combine with each other and with
 * user-space strategies: two knobs that set different keys go together, one that gains only on
 * top of the other is found. */
static const struct strategy sim_kernel[] = {
	{"batch 64", "calls", "--batch 64", false},
	{"connected sockets", "route", "--connected", false},
	{"busy_read/busy_poll 50us [sys]", "kbusy",
	 "--sysctl net.core.busy_read=50 --sysctl net.core.busy_poll=50", false},
	{"socket buffers 1 MiB [sys]", "kbuf",
	 "--sysctl net.core.rmem_default=1048576 --sysctl net.core.wmem_default=1048576", false},
	{0},
};

static void test_search_kernel_knobs(void **state)
{
	(void)state;
	static const struct sim_effect eff[] = {
		{"--batch 64", 2.0, 2.0, NULL},
		{"--sysctl net.core.busy_read=50", 1.3, 1.3, NULL},
		{"--sysctl net.core.rmem_default=1048576", 1.0, 1.35, "--sysctl net.core.busy_read=50"},
		{0},
	};
	int found = 0;

	sim_wl = wl_udp_rr;
	sim_wl.strategies = sim_kernel;
	for (int i = 0; i < 20; i++) {
		struct sim m = {0};
		struct explore *x = sim_run_wl(&sim_wl, 700 + i, DEFAULT_BUDGET, eff, &m, 0);
		const char *f = x->search.flags;

		found += x->search.nstrategies == 3 && has(f, "--batch 64") &&
			 has(f, "--sysctl net.core.busy_read=50") &&
			 has(f, "--sysctl net.core.rmem_default=1048576");
		sim_free(x);
	}
	print_message("kernel knobs: batch 64 + busy_read + buffers found in %d of 20\n", found);
	assert_true(found >= 18);
}

/* A machine slower than planned (0.6 s of overhead a run, not 0.25): the refits shorten the
 * windows, so the exploration overruns the budget by at most the first round's misplanning
 * (each run's extra overhead) and one run; the search still runs a step and the final
 * comparison is measured. */
static void test_search_slow_machine(void **state)
{
	(void)state;
	struct sim m = {.overhead = 0.6};
	struct explore *x = sim_explore(7, DEFAULT_BUDGET, false, &m, 0);
	double over = x->nconf * (0.6 - RUN_OVERHEAD_S) + x->run_s_planned + WARMUP_S + 0.6;

	print_message("slow machine: %.1f s of a %d s budget (%.1f allowed over)\n", m.now, DEFAULT_BUDGET, over);
	assert_true(m.now <= DEFAULT_BUDGET + over);
	assert_true(x->search.nsteps >= 1 && x->search.step[0].sel[0].nsamples > 0);
	assert_true(x->have_final);
	sim_free(x);
}

/* Two strategies of two groups: batch 64 (2.0x) and connected sockets (nothing alone, 1.35x
 * on top of it). From batch 64 the search has one candidate: no selection rounds, straight
 * to its confirmation, and then nothing left. */
static const struct strategy sim_two[] = {
	{"batch 64", "calls", "--batch 64", false},
	{"connected sockets", "route", "--connected", false},
	{0},
};

static void test_search_lone_candidate(void **state)
{
	(void)state;
	int found = 0;

	sim_wl = wl_udp_rr;
	sim_wl.strategies = sim_two;
	for (int i = 0; i < 20; i++) {
		struct sim m = {0};
		struct explore *x = sim_run_wl(&sim_wl, 900 + i, DEFAULT_BUDGET, sim_effects, &m, 0);
		const struct search_step *st = &x->search.step[0];

		assert_true(st->ran && st->ncand == 1 && st->sel_rounds == 0);
		assert_int_equal(st->sel[0].nsamples, 0);
		if (st->kept) {
			assert_int_equal(st->conf[0].nsamples, STATS_DEFAULT_RUNS);
			assert_int_equal(x->search.nsteps, 2);
			assert_int_equal(x->search.step[1].ncand, 0);
			assert_false(x->search.step[1].ran);
		}
		found += x->search.nstrategies == 2 && has(x->search.flags, "--connected");
		sim_free(x);
	}
	assert_true(found >= 18);
}

/* The text table stays about 120 columns wide: a verdict that would reach past it goes on a
 * line of its own, a long name (the final combination's) on one above its figures; and an
 * interval too wide to say anything is "none" (a short budget's reached from 0 to 33,325,981). */
static void test_table_width(void **state)
{
	struct sim m = {0};
	struct explore *x = sim_explore(1000, DEFAULT_BUDGET, false, &m, 0);
	FILE *f = tmpfile();
	int saved = dup(1), table = 0, wrapped = 0;
	char line[4096], ci[40];

	(void)state;
	assert_non_null(f);
	fflush(stdout);
	dup2(fileno(f), 1);
	explore_print_table(x);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "rank strategy", 13))
			table = 1;
		else if (table && line[0] == '\n')
			table = 0;
		if (!table)
			continue;
		if (strlen(line) > 121)
			fail_msg("a row %zu columns wide: %s", strlen(line) - 1, line);
		wrapped += !strncmp(line, "          ", 10);
	}
	assert_true(wrapped > 0);
	fclose(f);
	sim_free(x);
	assert_false(explore_interval_words(0, 33325981, ci, sizeof(ci)));
	assert_string_equal(ci, "none");
	assert_false(explore_interval_words(NAN, NAN, ci, sizeof(ci)));
	assert_false(explore_interval_words(0.05, 6, ci, sizeof(ci)));
	assert_true(explore_interval_words(0.93, 1.03, ci, sizeof(ci)));
	assert_string_equal(ci, "0.93-1.03");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_finds_best),
		cmocka_unit_test(test_search_null),
		cmocka_unit_test(test_search_budget_short),
		cmocka_unit_test(test_search_every_workload),
		cmocka_unit_test(test_search_kernel_knobs),
		cmocka_unit_test(test_search_slow_machine),
		cmocka_unit_test(test_search_lone_candidate),
		cmocka_unit_test(test_table_width),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
