/* stats.h: statistics of repeated runs: medians, spread, t intervals of a
 * ratio, and the verdict that compare and explore print. Pure functions, fixed seeds.
 * Memory only (GSL for the t distribution).
 */
#ifndef SB_STATS_H
#define SB_STATS_H

#include <stdbool.h>
#include <stdint.h>

enum verdict { VERDICT_SAME, VERDICT_FASTER, VERDICT_SLOWER };

/* Runs of each side that compare and explore take by default: enough that a 15% effect under
 * 10% run-to-run noise (this machine's) is found 80% of the time (tests/unit/test_stats.c). */
#define STATS_DEFAULT_RUNS 12
/* The family-wise error of a verdict, and the least gain that counts as one. */
#define STATS_ALPHA 0.05
#define STATS_MIN_GAIN 0.02

/* The power that runs-needed advice aims at, and the confidence of the upper bound of a
 * pilot's spread it plans with (a small pilot's spread is often too small: planning with it
 * gives far less power than it says). */
#define STATS_POWER 0.80
#define STATS_PILOT_UPPER 0.80

/* xorshift64*: the next number of a seeded sequence (*state must not be 0). */
uint64_t stats_rand(uint64_t *state);
/* The state of stats_rand for a seed and a stream (each user of one seed its own number):
 * splitmix64 of the two, never 0, so no seed the user gives can stall the sequence. */
uint64_t stats_seed_state(uint64_t seed, uint64_t stream);
/* o = 0..n-1 in an order drawn from *state (Fisher-Yates). */
void stats_shuffle(int *o, int n, uint64_t *state);
/* Median of n values (n >= 1; v is not changed). */
double stats_median(const double *v, int n);
/* (max - min) / median / 2, in percent: the half-width of the spread around the median. */
double stats_spread_pct(const double *v, int n);
/* Paired runs (each B run beside an A run, their order drawn at random each round): the ratio
 * B/A as exp(mean of the log-ratios d = log(b/a)), which is also geomean(b) / geomean(a) of
 * those runs, and a two-sided Student t interval of that mean at `level`. It covers as often
 * as it says when the log-ratios are normal, as with log-normal run-to-run noise, at any n >= 2
 * (docs/json.md: "verdicts"); pairing cancels whatever both runs of a round share, and the
 * random order turns drift within a round into noise the interval sees. */
struct paired {
	int n;
	double a_gm, b_gm;  /* geometric means of the paired runs */
	double ratio, lo, hi;
	double level;	    /* the interval's confidence */
	double p;	    /* two-sided: that the true ratio is 1 */
	double mean, sd;    /* of the log-ratios */
	bool exact;	    /* no spread at all (every run the same): the ratio is exact, lo = hi */
};
void stats_paired(const double *a, const double *b, int n, double level, struct paired *e);
/* Runs that could not be paired (saved results): Welch's t interval of the difference of the
 * mean logs, the same fields (a_gm, b_gm over each side's own runs; n the smaller side). */
void stats_unpaired(const double *a, int na, const double *b, int nb, double level,
		    struct paired *e);
/* How many pairs a fresh comparison needs to find a ratio like e's (the mean of its
 * log-ratios) at `level` with probability `power`, planning with the upper STATS_PILOT_UPPER
 * confidence bound of e's spread (chi-square): that number (> e->n), or -1 when none up to max
 * would, or when e has no spread. tests/unit/test_power.c: following it finds the effect. */
int stats_runs_needed(const struct paired *e, double level, double power, int max);
/* Holm's step-down over m two-sided p-values at family-wise alpha: reject[i], and the
 * confidence level[i] test i was held to (1 - alpha / (m - rank + 1), rank by p). */
void stats_holm(const double *p, int m, double alpha, bool *reject, double *level);
/* Holm's adjusted p-values: padj[i] <= alpha exactly when stats_holm rejects test i. */
void stats_holm_adjust(const double *p, int m, double *padj);
/* The verdicts of many figures of one comparison (serial gatekeeping): the primary figure is
 * judged on its own p at alpha; the others are one family, Holm's at alpha, judged only when
 * the primary's difference is significant, so the chance of any false verdict over all of
 * them is at most alpha. p[i]: a figure's p (1 where it has none). Out: padj[i] (the
 * primary's own p; the others' Holm-adjusted p), significant[i], and the return value: whether
 * the family was judged (the gate open). */
bool stats_figure_family(const double *p, int m, int primary, double alpha, double *padj,
			 bool *significant);
/* A distribution-free interval of the median of v: the narrowest pair of order statistics
 * [v(k), v(n+1-k)] whose coverage (binomial) is at least want; its coverage in *conf. With
 * too few values for want, [min, max] and what that covers (1 - 2^(1-n): 75% at 3). */
void stats_median_interval(const double *v, int n, double want, double *lo, double *hi,
			   double *conf);
/* The verdict of a paired (or unpaired) estimate: faster when its interval is wholly above 1
 * (significant at its level) and the gain at least min_gain; slower likewise; otherwise the
 * same. `significant` is the test's own word (Holm's, in explore). */
enum verdict stats_verdict_of(const struct paired *e, bool significant, double min_gain);

/* Standard deviation (n - 1 in the denominator; 0 for one value). */
double stats_stddev(const double *v, int n);
/* "faster", "no real difference", "slower". */
const char *stats_verdict_name(enum verdict v);

#endif
