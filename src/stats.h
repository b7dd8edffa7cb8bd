/* stats.h: statistics of repeated runs: medians, spread, a bootstrap confidence interval of a
 * ratio, and the verdict that compare and explore print. Pure functions, fixed seeds. */
#ifndef SB_STATS_H
#define SB_STATS_H

#include <stdint.h>

enum verdict { VERDICT_SAME, VERDICT_FASTER, VERDICT_SLOWER };

/* Median of n values (n >= 1; v is not changed). */
double stats_median(const double *v, int n);
/* (max - min) / median / 2, in percent: the half-width of the spread around the median. */
double stats_spread_pct(const double *v, int n);
/* Ratios b[i] / a[i] of paired samples (runs made side by side, so drift cancels); their
 * median in *ratio and a 95% bootstrap percentile interval of that median in [*lo, *hi].
 * iters resamples drawn with a fixed seed: the same data give the same interval. */
void stats_paired_ratio(const double *a, const double *b, int n, int iters, uint64_t seed,
			double *ratio, double *lo, double *hi);
/* Standard deviation (n - 1 in the denominator; 0 for one value). */
double stats_stddev(const double *v, int n);
/* A 95% bootstrap percentile interval of the median of v. */
void stats_median_ci(const double *v, int n, int iters, uint64_t seed, double *lo, double *hi);
/* Unpaired samples (runs that could not be interleaved: other boots, other kernels): the ratio
 * of medians median(b) / median(a) and a 95% bootstrap interval, resampling each side. */
void stats_unpaired_ratio(const double *a, int na, const double *b, int nb, int iters,
			  uint64_t seed, double *ratio, double *lo, double *hi);
/* Faster when the whole interval is above 1 and the gain is at least min_gain (0.02: 2%),
 * slower when it is all below 1 and the loss at least min_gain, otherwise the same. */
enum verdict stats_verdict(double ratio, double lo, double hi, double min_gain);
/* "faster", "no real difference", "slower". */
const char *stats_verdict_name(enum verdict v);

#endif
