/* stats.c: see stats.h. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of v, sorting v in place. */
static double median_inplace(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double stats_median(const double *v, int n)
{
	double *c = xmalloc((size_t)n * sizeof(*c));
	double m;

	memcpy(c, v, (size_t)n * sizeof(*c));
	m = median_inplace(c, n);
	free(c);
	return m;
}

double stats_spread_pct(const double *v, int n)
{
	double lo = v[0], hi = v[0], m = stats_median(v, n);

	for (int i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	return m > 0 ? 100.0 * (hi - lo) / m / 2 : 0;
}

/* xorshift64*: small, fast and enough for resampling. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

void stats_paired_ratio(const double *a, const double *b, int n, int iters, uint64_t seed,
			double *ratio, double *lo, double *hi)
{
	double *r = xmalloc((size_t)n * sizeof(*r)), *s = xmalloc((size_t)n * sizeof(*s));
	double *meds = xmalloc((size_t)iters * sizeof(*meds));
	uint64_t st = seed ? seed : 0x9E3779B97F4A7C15ULL;

	for (int i = 0; i < n; i++)
		r[i] = a[i] > 0 ? b[i] / a[i] : 0;
	*ratio = stats_median(r, n);
	for (int it = 0; it < iters; it++) {
		for (int i = 0; i < n; i++)
			s[i] = r[next_rand(&st) % (uint64_t)n];
		meds[it] = median_inplace(s, n);
	}
	qsort(meds, (size_t)iters, sizeof(*meds), cmp_double);
	*lo = meds[(int)(0.025 * (iters - 1))];
	*hi = meds[(int)(0.975 * (iters - 1) + 0.5)];
	free(r);
	free(s);
	free(meds);
}

double stats_stddev(const double *v, int n)
{
	double mean = 0, ss = 0;

	if (n < 2)
		return 0;
	for (int i = 0; i < n; i++)
		mean += v[i] / n;
	for (int i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return sqrt(ss / (n - 1));
}

static void resample(const double *v, int n, double *out, uint64_t *st)
{
	for (int i = 0; i < n; i++)
		out[i] = v[next_rand(st) % (uint64_t)n];
}

void stats_median_ci(const double *v, int n, int iters, uint64_t seed, double *lo, double *hi)
{
	double *s = xmalloc((size_t)n * sizeof(*s)), *meds = xmalloc((size_t)iters * sizeof(*meds));
	uint64_t st = seed ? seed : 0x9E3779B97F4A7C15ULL;

	for (int it = 0; it < iters; it++) {
		resample(v, n, s, &st);
		meds[it] = median_inplace(s, n);
	}
	qsort(meds, (size_t)iters, sizeof(*meds), cmp_double);
	*lo = meds[(int)(0.025 * (iters - 1))];
	*hi = meds[(int)(0.975 * (iters - 1) + 0.5)];
	free(s);
	free(meds);
}

void stats_unpaired_ratio(const double *a, int na, const double *b, int nb, int iters,
			  uint64_t seed, double *ratio, double *lo, double *hi)
{
	double *sa = xmalloc((size_t)na * sizeof(*sa)), *sb = xmalloc((size_t)nb * sizeof(*sb));
	double *r = xmalloc((size_t)iters * sizeof(*r)), ma = stats_median(a, na);
	uint64_t st = seed ? seed : 0x9E3779B97F4A7C15ULL;

	*ratio = ma > 0 ? stats_median(b, nb) / ma : 0;
	for (int it = 0; it < iters; it++) {
		resample(a, na, sa, &st);
		resample(b, nb, sb, &st);
		double m = median_inplace(sa, na);

		r[it] = m > 0 ? median_inplace(sb, nb) / m : 0;
	}
	qsort(r, (size_t)iters, sizeof(*r), cmp_double);
	*lo = r[(int)(0.025 * (iters - 1))];
	*hi = r[(int)(0.975 * (iters - 1) + 0.5)];
	free(sa);
	free(sb);
	free(r);
}

enum verdict stats_verdict(double ratio, double lo, double hi, double min_gain)
{
	if (lo > 1.0 && ratio >= 1.0 + min_gain)
		return VERDICT_FASTER;
	if (hi < 1.0 && ratio <= 1.0 - min_gain)
		return VERDICT_SLOWER;
	return VERDICT_SAME;
}

const char *stats_verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_FASTER:
		return "faster";
	case VERDICT_SLOWER:
		return "slower";
	default:
		return "no real difference";
	}
}
