/* stats.c: see stats.h. */
#include "multi/stats.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

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

uint64_t stats_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
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

/* ---- t intervals on log-ratios (GSL's Student t and binomial distributions) ---- */

static void mean_sd(const double *d, int n, double *mean, double *sd)
{
	double m = 0, ss = 0;

	for (int i = 0; i < n; i++)
		m += d[i] / n;
	for (int i = 0; i < n; i++)
		ss += (d[i] - m) * (d[i] - m);
	*mean = m;
	*sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
}

/* Interval and p-value of a mean m with standard error se on df degrees of freedom. */
static void t_interval(struct paired *e, double m, double se, double df, double level)
{
	e->level = level;
	e->ratio = exp(m);
	if (df < 1 || !(se > 0)) {
		/* One pair, or pairs that all agree to the last digit: no spread to judge by. */
		e->lo = df < 1 ? 0 : e->ratio;
		e->hi = df < 1 ? INFINITY : e->ratio;
		e->p = df < 1 || m == 0 ? 1 : 0;
		return;
	}
	double t = gsl_cdf_tdist_Pinv(1 - (1 - level) / 2, df);

	e->lo = exp(m - t * se);
	e->hi = exp(m + t * se);
	e->p = 2 * gsl_cdf_tdist_Q(fabs(m) / se, df);
}

void stats_paired(const double *a, const double *b, int n, double level, struct paired *e)
{
	double *d = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(*d)), la = 0, lb = 0;

	*e = (struct paired){.n = n};
	for (int i = 0; i < n; i++) {
		d[i] = log(b[i]) - log(a[i]);
		la += log(a[i]) / n;
		lb += log(b[i]) / n;
	}
	e->a_gm = n ? exp(la) : NAN;
	e->b_gm = n ? exp(lb) : NAN;
	mean_sd(d, n, &e->mean, &e->sd);
	t_interval(e, e->mean, n > 0 ? e->sd / sqrt(n) : 0, n - 1, level);
	free(d);
}

void stats_unpaired(const double *a, int na, const double *b, int nb, double level,
		    struct paired *e)
{
	double *la = xmalloc((size_t)(na + nb + 1) * sizeof(double)), *lb = la + na;
	double ma, sa, mb, sb;

	for (int i = 0; i < na; i++)
		la[i] = log(a[i]);
	for (int i = 0; i < nb; i++)
		lb[i] = log(b[i]);
	mean_sd(la, na, &ma, &sa);
	mean_sd(lb, nb, &mb, &sb);
	free(la);
	*e = (struct paired){.n = na < nb ? na : nb, .a_gm = exp(ma), .b_gm = exp(mb),
			     .mean = mb - ma};
	double va = na ? sa * sa / na : 0, vb = nb ? sb * sb / nb : 0, se = sqrt(va + vb);
	/* Welch-Satterthwaite; one run on a side leaves no spread to measure there. */
	double df = na < 2 || nb < 2 ? 0
		    : (va + vb) * (va + vb) /
			      (va * va / (na - 1) + vb * vb / (nb - 1) + 1e-300);

	e->sd = se * sqrt(e->n);
	t_interval(e, e->mean, se, df, level);
}

int stats_runs_needed(const struct paired *e, double level, int max)
{
	if (!(e->sd > 0) || e->mean == 0)
		return -1;
	for (int n = e->n + 1; n <= max; n++)
		if (fabs(e->mean) / (e->sd / sqrt(n)) >= gsl_cdf_tdist_Pinv(1 - (1 - level) / 2, n - 1))
			return n;
	return -1;
}

void stats_holm(const double *p, int m, double alpha, bool *reject, double *level)
{
	int *ord = xmalloc((size_t)(m > 0 ? m : 1) * sizeof(int));
	bool go = true;

	for (int i = 0; i < m; i++) {
		int j = i;

		for (; j > 0 && p[ord[j - 1]] > p[i]; j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
	}
	for (int k = 0; k < m; k++) {
		int i = ord[k];
		double a = alpha / (m - k);

		level[i] = 1 - a;
		go = go && p[i] <= a;
		reject[i] = go;
	}
	free(ord);
}

void stats_median_interval(const double *v, int n, double want, double *lo, double *hi,
			   double *conf)
{
	double *c = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(*c));
	int k = 1;

	memcpy(c, v, (size_t)n * sizeof(*c));
	qsort(c, (size_t)n, sizeof(*c), cmp_double);
	/* [v(k), v(n+1-k)] covers the median with probability 1 - 2 P(Bin(n, 1/2) <= k - 1). */
	*conf = n > 0 ? 1 - 2 * gsl_cdf_binomial_P(0, 0.5, (unsigned)n) : 0;
	for (int j = 2; 2 * j <= n; j++) {
		double cj = 1 - 2 * gsl_cdf_binomial_P((unsigned)(j - 1), 0.5, (unsigned)n);

		if (cj < want)
			break;
		k = j;
		*conf = cj;
	}
	*lo = n ? c[k - 1] : NAN;
	*hi = n ? c[n - k] : NAN;
	free(c);
}

enum verdict stats_verdict_of(const struct paired *e, bool significant, double min_gain)
{
	if (significant && e->lo > 1 && e->ratio >= 1 + min_gain)
		return VERDICT_FASTER;
	if (significant && e->hi < 1 && e->ratio <= 1 - min_gain)
		return VERDICT_SLOWER;
	return VERDICT_SAME;
}
