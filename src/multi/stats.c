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

uint64_t stats_seed_state(uint64_t seed, uint64_t stream)
{
	uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return z ? z : 0x9E3779B97F4A7C15ULL; /* splitmix64 is a bijection: one input gives 0 */
}

void stats_shuffle(int *o, int n, uint64_t *state)
{
	for (int c = 0; c < n; c++)
		o[c] = c;
	for (int c = n - 1; c > 0; c--) {
		int j = (int)(stats_rand(state) % (uint64_t)(c + 1)), x = o[c];

		o[c] = o[j];
		o[j] = x;
	}
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
	bool same = true;

	/* Logs of values that are all the same to 12 digits (log(10) - log(5) and log(8) - log(4)
	 * differ in the last bit): no spread, exactly, not a sum's rounding of one. */
	for (int i = 1; i < n; i++)
		same = same && fabs(d[i] - d[0]) <= 1e-12;
	if (n && same) {
		*mean = d[0];
		*sd = 0;
		return;
	}
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
	if (df < 1) { /* one pair, or one run on a side: no spread to judge by */
		e->lo = 0;
		e->hi = INFINITY;
		e->p = 1;
		return;
	}
	if (!(se > 0)) { /* every run the same: the ratio is exact, no interval to compute */
		e->exact = true;
		e->lo = e->hi = e->ratio;
		e->p = m == 0 ? 1 : 0;
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
	/* Welch-Satterthwaite; one run on a side leaves no spread to measure there, and with no
	 * spread on either side any df > 0 does (t_interval then gives the exact ratio). */
	double df = na < 2 || nb < 2 ? 0
		    : !(se > 0)	     ? na + nb - 2
				     : (va + vb) * (va + vb) /
					       (va * va / (na - 1) + vb * vb / (nb - 1));

	e->sd = se * sqrt(e->n);
	t_interval(e, e->mean, se, df, level);
}

/* The power of a two-sided paired t test at `level` with n pairs, effect d, spread sd: the
 * shifted central t (the noncentral t's usual approximation; GSL has no noncentral t). */
static double t_power(double d, double sd, int n, double level)
{
	double df = n - 1, tc = gsl_cdf_tdist_Pinv(1 - (1 - level) / 2, df);
	double ncp = fabs(d) * sqrt(n) / sd;

	return gsl_cdf_tdist_Q(tc - ncp, df) + gsl_cdf_tdist_P(-tc - ncp, df);
}

int stats_runs_needed(const struct paired *e, double level, double power, int max)
{
	if (!(e->sd > 0) || e->mean == 0 || e->n < 2)
		return -1;
	/* The spread's upper confidence bound: (n-1) s^2 / sigma^2 is chi-square on n-1 df. */
	double df = e->n - 1;
	double sd = e->sd * sqrt(df / gsl_cdf_chisq_Pinv(1 - STATS_PILOT_UPPER, df));

	for (int n = e->n + 1 > 2 ? e->n + 1 : 2; n <= max; n++)
		if (t_power(e->mean, sd, n, level) >= power)
			return n;
	return -1;
}

/* ord: the indexes of p, smallest p first (stable). */
static int *order_by_p(const double *p, int m)
{
	int *ord = xmalloc((size_t)(m > 0 ? m : 1) * sizeof(int));

	for (int i = 0; i < m; i++) {
		int j = i;

		for (; j > 0 && p[ord[j - 1]] > p[i]; j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
	}
	return ord;
}

void stats_holm(const double *p, int m, double alpha, bool *reject, double *level)
{
	int *ord = order_by_p(p, m);
	bool go = true;

	for (int k = 0; k < m; k++) {
		int i = ord[k];
		double a = alpha / (m - k);

		level[i] = 1 - a;
		go = go && p[i] <= a;
		reject[i] = go;
	}
	free(ord);
}

void stats_holm_adjust(const double *p, int m, double *padj)
{
	int *ord = order_by_p(p, m);
	double run = 0;

	for (int k = 0; k < m; k++) { /* max over the steps so far of (m - k) p(k), at most 1 */
		double v = (m - k) * p[ord[k]];

		run = v > run ? v : run;
		padj[ord[k]] = run < 1 ? run : 1;
	}
	free(ord);
}

bool stats_figure_family(const double *p, int m, int primary, double alpha, double *padj,
			 bool *significant)
{
	double *q = xmalloc((size_t)(m > 0 ? m : 1) * sizeof(double)), *qa;
	int k = 0;
	bool gate = primary >= 0 && primary < m && p[primary] <= alpha;

	for (int i = 0; i < m; i++)
		if (i != primary)
			q[k++] = p[i];
	qa = xmalloc((size_t)(k > 0 ? k : 1) * sizeof(double));
	stats_holm_adjust(q, k, qa);
	k = 0;
	for (int i = 0; i < m; i++) {
		padj[i] = i == primary ? p[i] : qa[k++];
		significant[i] = (i == primary || gate) && padj[i] <= alpha;
	}
	free(q);
	free(qa);
	return gate;
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
