/* Statistics and explore's pure parts: medians, spread, the paired bootstrap interval and the
 * verdict on constructed data, the interleaving schedule, the ranking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <cmocka.h>

#include "explore.h"
#include "stats.h"

static void test_median_spread(void **state)
{
	(void)state;
	double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2}, one[] = {7};

	assert_true(stats_median(odd, 3) == 3);
	assert_true(stats_median(even, 4) == 2.5);
	assert_true(stats_median(one, 1) == 7);
	assert_true(odd[0] == 5); /* not sorted in place */
	assert_true(fabs(stats_spread_pct(odd, 3) - 100.0 * 4 / 3 / 2) < 1e-9);
}

static void test_clearly_faster(void **state)
{
	(void)state;
	double a[] = {100, 102, 98, 101, 99, 100, 103, 97};
	double b[] = {150, 151, 149, 153, 148, 150, 152, 149};
	double r, lo, hi;

	stats_paired_ratio(a, b, 8, 4000, 42, &r, &lo, &hi);
	assert_true(r > 1.45 && r < 1.55);
	assert_true(lo > 1.4 && hi < 1.6 && lo <= r && r <= hi);
	assert_int_equal(stats_verdict(r, lo, hi, 0.02), VERDICT_FASTER);
	/* The same data, the other way round. */
	stats_paired_ratio(b, a, 8, 4000, 42, &r, &lo, &hi);
	assert_int_equal(stats_verdict(r, lo, hi, 0.02), VERDICT_SLOWER);
}

static void test_equal_and_noisy(void **state)
{
	(void)state;
	double a[] = {100, 100, 100, 100, 100, 100};
	double same[] = {100, 101, 99, 100, 100, 101};
	double noisy[] = {60, 150, 90, 140, 70, 130};
	double r, lo, hi;

	stats_paired_ratio(a, same, 6, 4000, 42, &r, &lo, &hi);
	assert_int_equal(stats_verdict(r, lo, hi, 0.02), VERDICT_SAME);
	/* A median gain of 10% whose interval straddles 1 is no real difference. */
	stats_paired_ratio(a, noisy, 6, 4000, 42, &r, &lo, &hi);
	assert_true(lo < 1.0 && hi > 1.0);
	assert_int_equal(stats_verdict(r, lo, hi, 0.02), VERDICT_SAME);
	/* An interval above 1 but a gain under the threshold: the same. */
	assert_int_equal(stats_verdict(1.01, 1.005, 1.02, 0.02), VERDICT_SAME);
	assert_string_equal(stats_verdict_name(VERDICT_SAME), "no real difference");
}

static void test_bootstrap_is_reproducible(void **state)
{
	(void)state;
	double a[] = {10, 11, 9, 10, 12}, b[] = {12, 13, 10, 12, 15};
	double r1, l1, h1, r2, l2, h2;

	stats_paired_ratio(a, b, 5, 2000, 7, &r1, &l1, &h1);
	stats_paired_ratio(a, b, 5, 2000, 7, &r2, &l2, &h2);
	assert_true(r1 == r2 && l1 == l2 && h1 == h2);
}

static void test_schedule_interleaves(void **state)
{
	(void)state;
	int order[12];

	explore_schedule(4, 3, order);
	/* baseline, A, B, C, baseline, A, B, C, ... */
	for (int i = 0; i < 12; i++)
		assert_int_equal(order[i], i % 4);
}

static void test_rank(void **state)
{
	(void)state;
	double sp[] = {1.1, 0.5, 2.0, 1.1, 0.9};
	int order[5];

	explore_rank(sp, 5, order);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 0); /* ties keep the table's order */
	assert_int_equal(order[2], 3);
	assert_int_equal(order[3], 4);
	assert_int_equal(order[4], 1);
}

static void test_flags_clash(void **state)
{
	(void)state;
	assert_true(explore_flags_clash("--send splice", "--recv uring --send uring"));
	assert_true(explore_flags_clash("--batch 8 --gso 16 --gro", "--gro"));
	assert_true(explore_flags_clash("--rcvbuf=4096", "--rcvbuf 8192"));
	assert_false(explore_flags_clash("--send splice", "--recv uring"));
	assert_false(explore_flags_clash("--rcvbuf 4194304", "--rcvlowat 65536"));
	assert_false(explore_flags_clash("", "--gro"));
	assert_false(explore_flags_clash("--batch 8", ""));
}

static void test_known_samples(void **state)
{
	(void)state;
	double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	double lo, hi;

	/* Sample standard deviation of this classic set: sqrt(32 / 7). */
	assert_true(fabs(stats_stddev(v, 8) - sqrt(32.0 / 7)) < 1e-12);
	assert_true(stats_stddev(v, 1) == 0);
	stats_median_ci(v, 8, 4000, 42, &lo, &hi);
	assert_true(lo >= 2 && lo <= 4.5 && hi >= 4.5 && hi <= 9);
	assert_true(lo <= stats_median(v, 8) && stats_median(v, 8) <= hi);
	/* All equal: the interval is the point. */
	double c[] = {3, 3, 3, 3};

	stats_median_ci(c, 4, 1000, 1, &lo, &hi);
	assert_true(lo == 3 && hi == 3);
}

static void test_unpaired(void **state)
{
	(void)state;
	double a[] = {100, 98, 103, 101, 99}, b[] = {200, 205, 197, 199, 202, 201};
	double r, lo, hi;

	stats_unpaired_ratio(a, 5, b, 6, 4000, 42, &r, &lo, &hi);
	assert_true(fabs(r - 200.5 / 100) < 1e-9);
	assert_true(lo > 1.9 && hi < 2.1 && lo <= r && r <= hi);
	assert_int_equal(stats_verdict(r, lo, hi, 0.02), VERDICT_FASTER);
	stats_unpaired_ratio(a, 5, a, 5, 4000, 42, &r, &lo, &hi);
	assert_true(r == 1.0 && lo < 1.0 && hi > 1.0);
	assert_int_equal(stats_verdict(r, lo, hi, 0.02), VERDICT_SAME);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_spread),
		cmocka_unit_test(test_clearly_faster),
		cmocka_unit_test(test_equal_and_noisy),
		cmocka_unit_test(test_bootstrap_is_reproducible),
		cmocka_unit_test(test_schedule_interleaves),
		cmocka_unit_test(test_rank),
		cmocka_unit_test(test_flags_clash),
		cmocka_unit_test(test_known_samples),
		cmocka_unit_test(test_unpaired),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
