/* Calibration of compare's verdicts and of the runs-needed advice, on simulated runs (fixed
 * seed; a few seconds):
 * - 2,000 A/A compares of 20 correlated figures each: the share with any verdict at all, with
 *   the primary's, and with the family's is at most 5% (each figure judged at 95% alone: most);
 * - the runs-needed advice of a small pilot, followed, finds the effect at least 75% of the
 *   time (the old rule, the n at which the effect seen would just reach significance, 51-75%).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <cmocka.h>
#include <gsl/gsl_cdf.h>

#include "multi/stats.h"

static uint64_t rng;

static double uniform(void)
{
	return (double)(stats_rand(&rng) >> 11) / 9007199254740992.0;
}

static double gauss(void)
{
	double u = uniform(), v = uniform();

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

#define SIMS 2000
#define FIGS 20
#define RUNS 12
#define DRIFT 0.002

/* One run's figures: each log-normal, 10% noise, 60% of its variance shared by every figure of
 * the run (a slow run is slow in all of them; the CPU figures move against the rate), plus a
 * slow drift. */
static void one_run(double t, double *fig)
{
	double z = gauss();

	for (int f = 0; f < FIGS; f++) {
		double shared = (f % 3 == 1 ? -1 : 1) * sqrt(0.6) * z;

		fig[f] = exp(DRIFT * t + 0.10 * (shared + sqrt(0.4) * gauss()));
	}
}

/* One simulated A/A compare of RUNS rounds, each in a random order: which verdicts it gives. */
static void sim_aa(bool *primary, bool *family, bool *uncorrected)
{
	double a[FIGS][RUNS], b[FIGS][RUNS], fa[FIGS], fb[FIGS], p[FIGS], padj[FIGS];
	bool sig[FIGS];
	struct paired e[FIGS];

	for (int r = 0; r < RUNS; r++) {
		bool a_first = uniform() < 0.5;

		one_run(2 * r + !a_first, fa);
		one_run(2 * r + a_first, fb);
		for (int f = 0; f < FIGS; f++) {
			a[f][r] = fa[f];
			b[f][r] = fb[f];
		}
	}
	*uncorrected = false;
	for (int f = 0; f < FIGS; f++) {
		stats_paired(a[f], b[f], RUNS, 0.95, &e[f]);
		p[f] = e[f].p;
		*uncorrected |= stats_verdict_of(&e[f], p[f] < 0.05, STATS_MIN_GAIN) != VERDICT_SAME;
	}
	stats_figure_family(p, FIGS, 0, STATS_ALPHA, padj, sig);
	*primary = stats_verdict_of(&e[0], sig[0], STATS_MIN_GAIN) != VERDICT_SAME;
	*family = false;
	for (int f = 1; f < FIGS; f++)
		*family |= stats_verdict_of(&e[f], sig[f], STATS_MIN_GAIN) != VERDICT_SAME;
}

static void test_aa_compares(void **state)
{
	(void)state;
	int any = 0, prim = 0, fam = 0, raw = 0;

	rng = 0x5EED2026;
	for (int i = 0; i < SIMS; i++) {
		bool p, f, u;

		sim_aa(&p, &f, &u);
		any += p || f;
		prim += p;
		fam += f;
		raw += u;
	}
	print_message("A/A compares, %d figures, %d runs: any verdict %.2f%%, primary %.2f%%, family "
		      "%.2f%% (each figure at 95%% alone: %.1f%%)\n", FIGS, RUNS, 100.0 * any / SIMS,
		      100.0 * prim / SIMS, 100.0 * fam / SIMS, 100.0 * raw / SIMS);
	assert_true(any <= SIMS * 0.05);
	assert_true(prim <= SIMS * 0.05);
	assert_true(fam <= SIMS * 0.05);
	assert_true(raw > SIMS * 0.20); /* without the family, the figures say something */
}

/* The old advice: the smallest n at which the effect seen would just reach significance. */
static int just_significant(const struct paired *e, int max)
{
	for (int n = e->n + 1; n <= max; n++)
		if (fabs(e->mean) / (e->sd / sqrt(n)) >= gsl_cdf_tdist_Pinv(0.975, n - 1))
			return n;
	return -1;
}

/* A fresh compare of n pairs with a true effect: does it find B faster? */
static bool finds(int n, double effect, double noise)
{
	double *a = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
	struct paired e;

	for (int r = 0; r < n; r++) {
		a[r] = exp(noise * gauss());
		b[r] = exp(noise * gauss() + log(1 + effect));
	}
	stats_paired(a, b, n, 0.95, &e);
	free(a);
	free(b);
	return stats_verdict_of(&e, e.p < 0.05, STATS_MIN_GAIN) == VERDICT_FASTER;
}

/* A pilot of `pilot` pairs of a real effect; where it gives no verdict but advice, the advice
 * (and the old rule's) is followed with a fresh compare: the share that finds the effect. */
static void sim_power(int pilot, double effect, double noise, double *power, double *old)
{
	int advised = 0, found = 0, advised_old = 0, found_old = 0;
	double a[16], b[16];
	struct paired e;

	for (int i = 0; i < SIMS; i++) {
		for (int r = 0; r < pilot; r++) {
			a[r] = exp(noise * gauss());
			b[r] = exp(noise * gauss() + log(1 + effect));
		}
		stats_paired(a, b, pilot, 0.95, &e);
		if (stats_verdict_of(&e, e.p < 0.05, STATS_MIN_GAIN) != VERDICT_SAME ||
		    fabs(e.ratio - 1) < STATS_MIN_GAIN)
			continue;
		int n = stats_runs_needed(&e, 0.95, STATS_POWER, 1000), m = just_significant(&e, 1000);

		if (n > 0) {
			advised++;
			found += finds(n, effect, noise);
		}
		if (m > 0) {
			advised_old++;
			found_old += finds(m, effect, noise);
		}
	}
	*power = advised ? (double)found / advised : 0;
	*old = advised_old ? (double)found_old / advised_old : 0;
}

static void test_runs_needed_power(void **state)
{
	(void)state;
	const int pilots[] = {3, 5, 8};

	rng = 0xADF1CE;
	for (size_t k = 0; k < sizeof(pilots) / sizeof(pilots[0]); k++) {
		double power, old;

		sim_power(pilots[k], 0.10, 0.10, &power, &old);
		print_message("runs needed after a pilot of %d pairs (10%% effect, 10%% noise): found "
			      "%.1f%% of the time (80%% power asked; the old rule: %.1f%%)\n",
			      pilots[k], 100 * power, 100 * old);
		assert_true(power >= 0.75);
		assert_true(old < 0.75); /* the old rule fails what the advice must reach */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aa_compares),
		cmocka_unit_test(test_runs_needed_power),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
