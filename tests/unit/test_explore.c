/* explore's pairing and orders, without running anything: a strategy is paired with the
 * baseline run of the same round, and a round where either run was partial or failed is no
 * pair (the other rounds keep their own partners); the final comparison's order is shuffled
 * whatever the seed. The search after the screen is tested on a simulated workload in
 * test_explore_search.c. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "multi/explore.h"
#include "multi/explore_priv.h"

static void set(struct sample *s, enum run_status st, double rate)
{
	*s = (struct sample){.status = st};
	s->fig[FIG_RATE] = st == RUN_WHOLE ? rate : NAN;
}

/* Rounds 0..4. The baseline failed in round 1; the strategy was partial in round 3. Pairs:
 * rounds 0, 2 and 4, each with its own round's baseline. A pairing that took each side's whole
 * runs in order (baseline 100, 102, 103, 104 against strategy 200, 201, 202, 204) would pair
 * 102 with 201: caught. */
static void test_pairs_after_failed_run(void **state)
{
	(void)state;
	struct sample base[5];
	static struct config c;
	double a[5], b[5];

	set(&base[0], RUN_WHOLE, 100);
	set(&base[1], RUN_FAILED, 0);
	set(&base[2], RUN_WHOLE, 102);
	set(&base[3], RUN_WHOLE, 103);
	set(&base[4], RUN_WHOLE, 104);
	c.nsamples = 5;
	set(&c.s[0], RUN_WHOLE, 200);
	set(&c.s[1], RUN_WHOLE, 201);
	set(&c.s[2], RUN_WHOLE, 202);
	set(&c.s[3], RUN_PARTIAL, 0);
	set(&c.s[4], RUN_WHOLE, 204);
	assert_int_equal(explore_pairs(&c, base, 5, a, b), 3);
	assert_true(a[0] == 100 && b[0] == 200);
	assert_true(a[1] == 102 && b[1] == 202);
	assert_true(a[2] == 104 && b[2] == 204);
	/* The analysis counts the strategy's runs by kind and judges the three pairs. */
	explore_analyse(&c, base, 5);
	assert_int_equal(c.pairs, 3);
	assert_int_equal(c.whole, 4);
	assert_int_equal(c.partial, 1);
	assert_true(c.analysed && fabs(c.e.ratio - cbrt(2.0 * 202 / 102 * 204 / 104)) < 1e-9);
	/* Fewer baseline rounds than the strategy's (Ctrl-C): only rounds both ran. */
	assert_int_equal(explore_pairs(&c, base, 2, a, b), 1);
}

/* One pair (the other round's baseline failed) has no interval: 0 to infinity, which the JSON
 * once held as 1e308, a number report refused to read back (over RESULT_FILE_NUM_MAX). Both
 * ends are null there; two pairs give both as numbers, around the speedup. */
static void test_one_pair_interval_json(void **state)
{
	(void)state;
	struct sample base[2];
	static struct config c;
	cJSON *j = cJSON_CreateObject();

	set(&base[0], RUN_WHOLE, 100);
	set(&base[1], RUN_FAILED, 0);
	c.nsamples = 2;
	set(&c.s[0], RUN_WHOLE, 150);
	set(&c.s[1], RUN_WHOLE, 151);
	explore_analyse(&c, base, 2);
	assert_int_equal(c.pairs, 1);
	explore_interval_json(j, c.e.lo, c.e.hi);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "ci_low")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "ci_high")));
	cJSON_Delete(j);
	set(&base[1], RUN_WHOLE, 101);
	explore_analyse(&c, base, 2);
	j = cJSON_CreateObject();
	explore_interval_json(j, c.e.lo, c.e.hi);
	double lo = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "ci_low"));
	double hi = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "ci_high"));

	assert_int_equal(c.pairs, 2);
	assert_true(lo < c.e.ratio && c.e.ratio < hi && hi < 1e18);
	cJSON_Delete(j);
	/* Two pairs far apart at a search step's level (99.9%): t = 637 on one degree of freedom
	 * puts the upper end near 1e151, finite, and past what report reads back: null too. */
	set(&c.s[0], RUN_WHOLE, 150);
	set(&c.s[1], RUN_WHOLE, 50.5);
	explore_analyse_at(&c, base, 2, 0.999);
	assert_true(isfinite(c.e.hi) && c.e.hi > 1e18);
	j = cJSON_CreateObject();
	explore_interval_json(j, c.e.lo, c.e.hi);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "ci_high")));
	cJSON_Delete(j);
}

/* --seed 12628766 = 0xc0bb1e made the combination's generator state 0 (seed ^ 0xc0bb1e), so the
 * baseline ran first in every round. Now each seed's order is drawn, for that seed too. */
static void test_combo_order(void **state)
{
	(void)state;
	const uint64_t seeds[] = {12628766, 1, 0xc0bb1eULL << 1, UINT64_MAX};
	bool first[MAX_ROUNDS];

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		int n = 0;

		explore_combo_order(seeds[i], MAX_ROUNDS, first);
		for (int r = 0; r < MAX_ROUNDS; r++)
			n += first[r];
		assert_true(n > 4 && n < MAX_ROUNDS - 4);
	}
	/* And the strategies' schedule from that seed is not one order repeated. */
	int order[4 * 8], same = 0;

	explore_schedule(4, 8, 12628766, order);
	for (int r = 1; r < 8; r++)
		same += order[4 * r] == order[0];
	assert_true(same < 7);
}

/* The reason explore gives for not trying udp-rr's strategy named name with the user's flags,
 * or NULL when it would be tried. */
static const char *skipped_why(char **user, int nuser, const char *name)
{
	static struct explore x;
	static const char *why;

	explore_free(&x);
	x = (struct explore){.wl = &wl_udp_rr, .budget = DEFAULT_BUDGET, .rounds = 12, .seed = 1};
	explore_plan(&x, user, nuser);
	why = NULL;
	for (int i = 0; i < x.nskipped; i++)
		if (!strcmp(x.skipped_name[i], name))
			why = x.skipped_why[i];
	return why;
}

/* The steered server threads pin clients and server threads to CPUs 0 and 1: not tried where
 * the user placed the threads (--pin) or where the two sides are on different hosts; tried on
 * loopback as given. */
static void test_steered_skipped(void **state)
{
	const char *steered = NULL, *why;
	char pin[] = "--pin", srv[] = "--server", host[] = "198.18.0.2";
	char *u1[] = {pin}, *u2[] = {srv, host};

	(void)state;
	for (const struct strategy *st = wl_udp_rr.strategies; st->name; st++)
		if (strstr(st->args, "--cpus"))
			steered = st->name;
	assert_non_null(steered);
	cpu_set_t set;
	bool both = !sched_getaffinity(0, sizeof(set), &set) && CPU_ISSET(0, &set) &&
		    CPU_ISSET(1, &set);

	if (both)
		assert_null(skipped_why(NULL, 0, steered));
	else /* a machine, or a cpuset, without both: that is the reason */
		assert_non_null(strstr(skipped_why(NULL, 0, steered), "CPU 1 is"));
	why = skipped_why(u1, 1, steered);
	assert_non_null(why);
	assert_non_null(strstr(why, "--pin and --cpus both place the threads"));
	why = skipped_why(u2, 2, steered);
	assert_non_null(why);
	assert_non_null(strstr(why, both ? "different hosts" : "CPU 1 is"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_after_failed_run),
		cmocka_unit_test(test_one_pair_interval_json),
		cmocka_unit_test(test_combo_order),
		cmocka_unit_test(test_steered_skipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
