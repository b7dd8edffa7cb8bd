/* Statistics and explore's pure parts: medians, spread, the paired t interval and the verdict
 * on constructed data and by hand, their calibration on simulated runs, Holm's correction, the
 * median's order-statistics interval, the randomised interleaving schedule, the ranking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <cmocka.h>

#include "multi/explore.h"
#include "multi/stats.h"

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

/* Constructed runs: a clear gain each way, equal runs, noisy runs. */
static void test_clearly_faster(void **state)
{
	(void)state;
	double a[] = {100, 104, 98, 101, 99, 103, 97, 102};
	double b[] = {150, 154, 149, 151, 150, 155, 148, 152};
	struct paired e;

	stats_paired(a, b, 8, 0.95, &e);
	assert_true(e.ratio > 1.45 && e.ratio < 1.55 && e.lo > 1.4 && e.hi < 1.6 && e.p < 1e-6);
	assert_int_equal(stats_verdict_of(&e, e.p < 0.05, 0.02), VERDICT_FASTER);
	/* The ratio is the ratio of the geometric means beside it. */
	assert_true(fabs(e.b_gm / e.a_gm - e.ratio) < 1e-12);
	stats_paired(b, a, 8, 0.95, &e);
	assert_int_equal(stats_verdict_of(&e, e.p < 0.05, 0.02), VERDICT_SLOWER);
}

static void test_equal_and_noisy(void **state)
{
	(void)state;
	double a[] = {100, 110, 90, 105, 95, 100};
	double noisy[] = {130, 80, 120, 85, 110, 95};
	struct paired e;

	stats_paired(a, a, 6, 0.95, &e);
	assert_true(e.ratio == 1 && e.p == 1);
	assert_int_equal(stats_verdict_of(&e, e.p < 0.05, 0.02), VERDICT_SAME);
	stats_paired(a, noisy, 6, 0.95, &e);
	assert_true(e.lo < 1 && e.hi > 1);
	assert_int_equal(stats_verdict_of(&e, e.p < 0.05, 0.02), VERDICT_SAME);
	/* Significant but under the 2% that counts as a gain. */
	struct paired small = {.ratio = 1.01, .lo = 1.005, .hi = 1.02, .p = 0.001};

	assert_int_equal(stats_verdict_of(&small, true, 0.02), VERDICT_SAME);
	assert_string_equal(stats_verdict_name(VERDICT_SAME), "no real difference");
}

/* The t interval against a hand computation: d = log(b/a) = {0.1, 0.2, 0.3}: mean 0.2, sd 0.1,
 * t(0.975, 2) = 4.302653. */
static void test_t_interval_by_hand(void **state)
{
	(void)state;
	double a[] = {1, 1, 1}, b[] = {exp(0.1), exp(0.2), exp(0.3)};
	struct paired e;

	stats_paired(a, b, 3, 0.95, &e);
	assert_true(fabs(e.mean - 0.2) < 1e-12 && fabs(e.sd - 0.1) < 1e-12);
	assert_true(fabs(log(e.lo) - (0.2 - 4.302653 * 0.1 / sqrt(3))) < 1e-5);
	assert_true(fabs(log(e.hi) - (0.2 + 4.302653 * 0.1 / sqrt(3))) < 1e-5);
	/* Pairs a fresh compare needs to find it 80% of the time, planning with the spread's upper
	 * 80% bound, 0.1 * sqrt(2 / chi2(0.2; 2)) = 0.2117: about ((1.96 + 0.84) * 0.2117 / 0.2)^2
	 * = 8.8 by the normal, a little more by t. The old rule (the 4th pair is the first whose t
	 * would just beat its quantile: 50% power at best) said 4. */
	int n = stats_runs_needed(&e, 0.95, 0.80, 1000);

	print_message("runs needed for d = 0.2 +- 0.1 after 3 pairs: %d\n", n);
	assert_true(n >= 10 && n <= 13);
	assert_true(stats_runs_needed(&e, 0.95, 0.50, 1000) < n);
	/* One pair: no interval, no verdict. */
	stats_paired(a, b, 1, 0.95, &e);
	assert_true(e.lo == 0 && isinf(e.hi) && e.p == 1);
}

/* ---- calibration: simulated runs like this machine's ----
 * Each run's rate is log-normal around its configuration's true rate: independent noise of
 * sd `noise` per run (measured here: 7-15% at 0.5-2 s runs, hardly any of it shared by the two
 * runs of a pair), plus a slow drift of +0.2% per run (warming, TIME_WAIT, neighbours). Each
 * round runs its configurations in a random order, as compare and explore do. */
static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static double uniform(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

static double gauss(void)
{
	double u = uniform(), v = uniform();

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

#define SIMS 2000
#define DRIFT 0.002

/* One simulated compare of `runs` pairs: 1 if it says faster or slower. */
static int sim_compare(int runs, double noise, double effect, double *covered)
{
	double a[64], b[64], t = 0;
	struct paired e;

	for (int r = 0; r < runs; r++) {
		bool a_first = uniform() < 0.5;
		double ta = a_first ? t : t + 1, tb = a_first ? t + 1 : t;

		a[r] = exp(DRIFT * ta + noise * gauss());
		b[r] = exp(DRIFT * tb + noise * gauss() + log(1 + effect));
		t += 2;
	}
	stats_paired(a, b, runs, 0.95, &e);
	*covered += e.lo <= 1 + effect && 1 + effect <= e.hi;
	return stats_verdict_of(&e, e.p < 0.05, 0.02) != VERDICT_SAME;
}

/* A against A: at most 5% false verdicts (2,000 simulations: 5% + 3 standard errors of a 5%
 * rate, 1.5%, is what sampling alone allows an exact 95% interval), and the interval covers
 * the truth at least 95% - 1.5% of the time; at 10% and 30% noise, at compare's default runs
 * and at 3 runs (where the old bootstrap covered ~75%). A real 15% effect at 10% noise is
 * found at least 80% of the time at the default runs. */
static void test_calibration_compare(void **state)
{
	(void)state;
	const double noises[] = {0.10, 0.30};
	const int runs[] = {3, STATS_DEFAULT_RUNS};

	for (size_t k = 0; k < 2; k++) {
		for (size_t m = 0; m < 2; m++) {
			int wrong = 0;
			double covered = 0;

			for (int i = 0; i < SIMS; i++)
				wrong += sim_compare(runs[m], noises[k], 0, &covered);
			print_message("A/A, noise %.0f%%, %d runs: %.2f%% false verdicts, coverage %.2f%%\n",
				      noises[k] * 100, runs[m], 100.0 * wrong / SIMS, 100.0 * covered / SIMS);
			assert_true(wrong <= SIMS * 0.065);
			assert_true(covered >= SIMS * 0.935);
		}
	}
	int found = 0;
	double covered = 0;

	for (int i = 0; i < SIMS; i++)
		found += sim_compare(STATS_DEFAULT_RUNS, 0.10, 0.15, &covered);
	print_message("15%% effect, noise 10%%, %d runs: found %.1f%%, coverage %.2f%%\n",
		      STATS_DEFAULT_RUNS, 100.0 * found / SIMS, 100.0 * covered / SIMS);
	assert_true(found >= SIMS * 0.80);
	assert_true(covered >= SIMS * 0.935);
}

/* An explore of 14 strategies that change nothing, each paired with the same baseline runs:
 * with Holm's correction, some faster or slower verdict in at most 5% of simulations (+1.5%). */
static void test_calibration_explore(void **state)
{
	(void)state;
	enum { M = 14, RUNS = STATS_DEFAULT_RUNS };
	int any = 0, uncorrected = 0;

	for (int i = 0; i < SIMS; i++) {
		double v[M + 1][RUNS], p[M], level[M];
		bool reject[M], hit = false, raw = false;
		struct paired e[M];
		int order[M + 1], t = 0;

		for (int r = 0; r < RUNS; r++) {
			for (int c = 0; c <= M; c++)
				order[c] = c;
			for (int c = M; c > 0; c--) {
				int j = (int)(uniform() * (c + 1)), x = order[c];

				order[c] = order[j];
				order[j] = x;
			}
			for (int c = 0; c <= M; c++)
				v[order[c]][r] = exp(DRIFT * t++ + 0.10 * gauss());
		}
		for (int c = 0; c < M; c++) {
			stats_paired(v[0], v[c + 1], RUNS, 0.95, &e[c]);
			p[c] = e[c].p;
			raw |= stats_verdict_of(&e[c], p[c] < 0.05, 0.02) != VERDICT_SAME;
		}
		stats_holm(p, M, 0.05, reject, level);
		for (int c = 0; c < M; c++)
			hit |= stats_verdict_of(&e[c], reject[c], 0.02) != VERDICT_SAME;
		any += hit;
		uncorrected += raw;
	}
	print_message("explore A/A, 14 strategies: %.2f%% with a verdict (%.1f%% without Holm)\n",
		      100.0 * any / SIMS, 100.0 * uncorrected / SIMS);
	assert_true(any <= SIMS * 0.065);
	assert_true(uncorrected > SIMS * 0.20); /* the correction is what holds it */
}

static void test_holm(void **state)
{
	(void)state;
	double p[] = {0.01, 0.04, 0.03, 0.005}, level[4];
	bool r[4];

	/* Sorted: 0.005 <= .05/4, 0.01 <= .05/3, 0.03 > .05/2: stop there. */
	stats_holm(p, 4, 0.05, r, level);
	assert_true(r[3] && r[0] && !r[2] && !r[1]);
	assert_true(fabs(level[3] - (1 - 0.05 / 4)) < 1e-12 && fabs(level[1] - 0.95) < 1e-12);
}

/* The order-statistics interval of a median and the confidence it reaches. */
static void test_median_interval(void **state)
{
	(void)state;
	double v[] = {5, 1, 4, 2, 3}, w[20], lo, hi, conf;

	stats_median_interval(v, 5, 0.95, &lo, &hi, &conf);
	assert_true(lo == 1 && hi == 5 && fabs(conf - (1 - 2.0 / 32)) < 1e-12); /* 93.75% at best */
	stats_median_interval(v, 3, 0.95, &lo, &hi, &conf);
	assert_true(fabs(conf - 0.75) < 1e-12);
	for (int i = 0; i < 20; i++)
		w[i] = i + 1;
	/* n = 20: [x(6), x(15)] covers 95.86%, [x(7), x(14)] only 88.46%. */
	stats_median_interval(w, 20, 0.95, &lo, &hi, &conf);
	assert_true(lo == 6 && hi == 15 && conf > 0.95 && conf < 0.96);
}

static void test_schedule_interleaves(void **state)
{
	(void)state;
	int order[40], again[40], other[40], first[4] = {0};

	/* Each round runs every configuration once, in an order drawn from the seed. */
	explore_schedule(4, 10, 7, order);
	explore_schedule(4, 10, 7, again);
	explore_schedule(4, 10, 8, other);
	for (int r = 0; r < 10; r++) {
		int seen = 0;

		for (int i = 0; i < 4; i++)
			seen |= 1 << order[r * 4 + i];
		assert_int_equal(seen, 15);
		first[order[r * 4]]++;
	}
	assert_memory_equal(order, again, sizeof(order));
	assert_memory_not_equal(order, other, sizeof(order));
	/* Not always the same one first (the baseline was, before). */
	assert_true(first[0] < 10);
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
	/* --pin and --cpus both place the threads; --pinx would be another option. */
	assert_true(explore_flags_clash("--batch 32 --server-threads 2 --cpus client=0-1,server=0-1",
					"--pin"));
	assert_true(explore_flags_clash("--pin", "--cpus client=0"));
	assert_false(explore_flags_clash("--pinx", "--cpus client=0"));
	assert_false(explore_flags_clash("--server-threads 2", "--pin"));
	/* --sysctl sets one key a time: the kernel's knobs combine unless they set the same. */
	assert_false(explore_flags_clash("--sysctl net.core.busy_read=50 --sysctl net.core.busy_poll=50",
					 "--sysctl net.core.rmem_default=1048576"));
	assert_true(explore_flags_clash("--batch 8 --sysctl net.core.rmem_max=1",
					"--sysctl net.core.rmem_max=2"));
	assert_true(explore_flags_clash("--sysctl net.dev.lo.rps_cpus=3",
					"--sysctl net.core.x=1 --sysctl net.dev.lo.rps_cpus=3"));
	assert_false(explore_flags_clash("--sysctl net.core.busy_read=50", "--sysctl net.core.busy_read_x=1"));
}

static void test_known_samples(void **state)
{
	(void)state;
	double v[] = {2, 4, 4, 4, 5, 5, 7, 9};

	assert_true(fabs(stats_stddev(v, 8) - sqrt(32.0 / 7)) < 1e-12);
	assert_true(stats_stddev(v, 1) == 0);
}

/* Saved runs that cannot be paired: Welch's interval on the logs. */
static void test_unpaired(void **state)
{
	(void)state;
	double a[] = {100, 102, 98, 101, 99}, b[] = {120, 123, 118, 121, 119, 122};
	struct paired e;

	stats_unpaired(a, 5, b, 6, 0.95, &e);
	assert_true(e.ratio > 1.18 && e.ratio < 1.22 && e.lo > 1.15 && e.hi < 1.25);
	assert_int_equal(stats_verdict_of(&e, e.p < 0.05, 0.02), VERDICT_FASTER);
	stats_unpaired(a, 5, a, 5, 0.95, &e);
	assert_true(fabs(e.ratio - 1) < 1e-12 && e.p > 0.99);
}

/* No spread at all: {4,4,4} against {8,8,8} is exactly 2x, not "0 to infinity, no significant
 * difference" (Welch's df came out 0 when both variances were). Values whose logs do not sum
 * exactly (3.3) are still every run the same. One run on a side has no interval at all. */
static void test_zero_spread(void **state)
{
	(void)state;
	double four[] = {4, 4, 4}, eight[] = {8, 8, 8}, odd[] = {3.3, 3.3, 3.3, 3.3}, one[] = {8};
	double a[] = {4, 5, 6}, b[] = {8, 10, 12};
	struct paired e;

	stats_unpaired(four, 3, eight, 3, 0.95, &e);
	assert_true(e.exact && fabs(e.ratio - 2) < 1e-12 && e.lo == e.ratio && e.hi == e.ratio &&
		    e.p == 0);
	assert_int_equal(stats_verdict_of(&e, e.p < 0.05, 0.02), VERDICT_FASTER);
	stats_unpaired(odd, 4, odd, 3, 0.95, &e);
	assert_true(e.exact && e.ratio == 1 && e.p == 1);
	stats_unpaired(eight, 3, four, 3, 0.95, &e);
	assert_int_equal(stats_verdict_of(&e, e.p < 0.05, 0.02), VERDICT_SLOWER);
	/* Paired: every log-ratio the same, though the runs differ. */
	stats_paired(a, b, 3, 0.95, &e);
	assert_true(e.exact && fabs(e.ratio - 2) < 1e-12 && e.lo == e.hi && e.p == 0);
	assert_int_equal(stats_runs_needed(&e, 0.95, 0.8, 1000), -1);
	/* One run on a side: no spread there, no interval (and not "exact"). */
	stats_unpaired(four, 3, one, 1, 0.95, &e);
	assert_true(!e.exact && e.lo == 0 && isinf(e.hi) && e.p == 1);
}

/* A seed feeds xorshift64*, which stays 0 from state 0: explore's combination order was drawn
 * from seed ^ 0xc0bb1e, so --seed 12628766 never shuffled it. No seed and stream gives 0, and
 * nearby seeds give unrelated states. */
static void test_seed_state(void **state)
{
	(void)state;
	const uint64_t seeds[] = {0, 1, 12628766, 0xc0bb1e, UINT64_MAX, 1ULL << 63};

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		for (uint64_t k = 0; k < 4; k++)
			assert_true(stats_seed_state(seeds[i], k) != 0);
	assert_true(stats_seed_state(1, 0) != stats_seed_state(1, 1));
	assert_true(stats_seed_state(1, 0) != stats_seed_state(2, 0));
	uint64_t st = stats_seed_state(12628766, 0xc0bb1e);
	int heads = 0;

	for (int i = 0; i < 64; i++)
		heads += (int)(stats_rand(&st) & 1);
	assert_true(heads > 16 && heads < 48);
}

/* Holm's adjusted p: rejected at alpha exactly when stats_holm rejects; by hand. The figures
 * of a compare: the primary on its own p; the family judged only behind it. */
static void test_holm_adjust_family(void **state)
{
	(void)state;
	double p[] = {0.01, 0.04, 0.03, 0.005}, padj[4], level[4];
	bool r[4], sig[4];

	stats_holm_adjust(p, 4, padj);
	/* Sorted 0.005, 0.01, 0.03, 0.04: 4 x 0.005, max(0.02, 3 x 0.01), max(0.03, 2 x 0.03), 0.06 */
	assert_true(fabs(padj[3] - 0.02) < 1e-12 && fabs(padj[0] - 0.03) < 1e-12);
	assert_true(fabs(padj[2] - 0.06) < 1e-12 && fabs(padj[1] - 0.06) < 1e-12);
	stats_holm(p, 4, 0.05, r, level);
	for (int i = 0; i < 4; i++)
		assert_true(r[i] == (padj[i] <= 0.05));
	/* Primary 0 at 0.01: the gate opens; the others are Holm over three. */
	double q[] = {0.01, 0.012, 0.02, 0.5};

	assert_true(stats_figure_family(q, 4, 0, 0.05, padj, sig));
	assert_true(sig[0] && padj[0] == 0.01);
	assert_true(fabs(padj[1] - 0.036) < 1e-12 && sig[1] && fabs(padj[2] - 0.04) < 1e-12 && sig[2]);
	assert_false(sig[3]);
	/* Primary not significant: nothing else is, however small its p (each at 95% alone, the
	 * 0.001 would have been a verdict). */
	double u[] = {0.2, 0.001, 0.3};

	assert_false(stats_figure_family(u, 3, 0, 0.05, padj, sig));
	assert_false(sig[0] || sig[1] || sig[2]);
	assert_true(fabs(padj[1] - 0.002) < 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_spread),
		cmocka_unit_test(test_clearly_faster),
		cmocka_unit_test(test_equal_and_noisy),
		cmocka_unit_test(test_t_interval_by_hand),
		cmocka_unit_test(test_calibration_compare),
		cmocka_unit_test(test_calibration_explore),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_median_interval),
		cmocka_unit_test(test_schedule_interleaves),
		cmocka_unit_test(test_rank),
		cmocka_unit_test(test_flags_clash),
		cmocka_unit_test(test_known_samples),
		cmocka_unit_test(test_unpaired),
		cmocka_unit_test(test_zero_spread),
		cmocka_unit_test(test_seed_state),
		cmocka_unit_test(test_holm_adjust_family),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
