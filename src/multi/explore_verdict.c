/* explore_verdict.c: explore's verdicts within its error budget: each configuration against
 * the runs it is paired with (pairs of whole runs only), Holm's step-down over a family (the
 * screen's strategies at SCREEN_ALPHA; a search step's candidates), the ranking, and which
 * configurations' runs spread beyond the others' (unsteady). */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#include "multi/explore_priv.h"

/* The rates of c and of the baseline in the rounds where both runs were whole: how many. */
int explore_pairs(const struct config *c, const struct sample *base, int nbase, double *a,
		  double *b)
{
	int n = 0;

	for (int i = 0; i < c->nsamples && i < nbase; i++)
		if (base[i].status == RUN_WHOLE && c->s[i].status == RUN_WHOLE &&
		    base[i].fig[FIG_RATE] > 0 && c->s[i].fig[FIG_RATE] > 0) {
			a[n] = base[i].fig[FIG_RATE];
			b[n++] = c->s[i].fig[FIG_RATE];
		}
	return n;
}

/* c against the baseline runs of the same rounds: the rounds where both were whole. */
void explore_analyse(struct config *c, const struct sample *base, int nbase)
{
	explore_analyse_at(c, base, nbase, 0.95);
}

void explore_analyse_at(struct config *c, const struct sample *base, int nbase, double level)
{
	double a[MAX_ROUNDS], b[MAX_ROUNDS], t[MAX_ROUNDS];
	int n = explore_pairs(c, base, nbase, a, b), k = 0;

	c->whole = c->partial = c->failed = 0;
	for (int i = 0; i < c->nsamples; i++) {
		c->whole += c->s[i].status == RUN_WHOLE;
		c->partial += c->s[i].status == RUN_PARTIAL;
		c->failed += c->s[i].status == RUN_FAILED;
		if (c->s[i].status == RUN_WHOLE)
			t[k++] = c->s[i].fig[FIG_RATE];
	}
	c->pairs = n;
	c->needed = -1;
	c->level = level;
	if (k) {
		c->tps = stats_median(t, k);
		c->spread = stats_spread_pct(t, k);
	}
	if (n == 0)
		return;
	stats_paired(a, b, n, c->level, &c->e);
	c->few = n < 2; /* one ratio has no spread to judge it by */
	c->reject = !c->few && c->e.p < 1 - c->level;
	c->verdict = stats_verdict_of(&c->e, c->reject, MIN_GAIN);
	c->analysed = true;
}

/* Holm over n configurations analysed against base, at family-wise alpha: each one's level,
 * decision, verdict and interval at that level. One error budget for all their verdicts; each
 * interval is recomputed at the level its configuration was held to. */
static void explore_holm(struct config **cs, int n, const struct sample *base, int nbase,
			 double alpha)
{
	double p[MAX_CONFIGS] = {0}, level[MAX_CONFIGS];
	bool reject[MAX_CONFIGS];

	for (int i = 0; i < n; i++)
		p[i] = cs[i]->few ? 1 : cs[i]->e.p;
	stats_holm(p, n, alpha, reject, level);
	for (int i = 0; i < n; i++) {
		struct config *c = cs[i];
		double a[MAX_ROUNDS], b[MAX_ROUNDS];
		int m = explore_pairs(c, base, nbase, a, b);

		c->level = level[i];
		c->reject = reject[i] && !c->few;
		stats_paired(a, b, m, c->level, &c->e);
		c->verdict = stats_verdict_of(&c->e, c->reject, MIN_GAIN);
		if (c->verdict == VERDICT_SAME && fabs(c->e.ratio - 1) >= MIN_GAIN)
			c->needed = stats_runs_needed(&c->e, c->level, STATS_POWER, 1000);
	}
}

void explore_rank(const double *speedup, int n, int *order)
{
	/* Insertion sort, stable: equal speedups keep the table's order. */
	for (int i = 0; i < n; i++) {
		int j = i;

		for (; j > 0 && speedup[order[j - 1]] < speedup[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
}

/* Options that may be given many times set one thing a time: the thing is the key of their
 * value (--sysctl net.core.busy_read=50 sets net.core.busy_read). */
static bool same_setting(const char *p, const char *q, size_t n)
{
	const char *v = p + n + 1, *w = q + n + 1;
	size_t k;

	if (n != 8 || strncmp(p, "--sysctl", 8) || !p[n] || !q[n])
		return true;
	k = strcspn(v, "= ");
	return strcspn(w, "= ") == k && !strncmp(v, w, k);
}

/* --pin and --cpus both place the threads: one setting. */
static bool places(const char *p, size_t n)
{
	return (n == 5 && !strncmp(p, "--pin", 5)) || (n == 6 && !strncmp(p, "--cpus", 6));
}

bool explore_flags_clash(const char *a, const char *b)
{
	for (const char *p = a; (p = strstr(p, "--")); p += 2) {
		size_t n = strcspn(p, " =");

		if (p != a && p[-1] != ' ')
			continue;
		for (const char *q = b; (q = strstr(q, "--")); q += 2) {
			size_t k = strcspn(q, " =");

			if (q != b && q[-1] != ' ')
				continue;
			if ((k == n && !strncmp(p, q, n) && same_setting(p, q, n)) ||
			    (places(p, n) && places(q, k)))
				return true;
		}
	}
	return false;
}

void explore_judge(struct explore *x, struct config **ranked, int *n, struct config **apart,
		   int *napart)
{
	struct config *tested[MAX_CONFIGS], *done[MAX_CONFIGS];
	double speedup[MAX_CONFIGS] = {0};
	int order[MAX_CONFIGS], ntested = 0, nbase = x->conf[0].nsamples;

	*n = *napart = 0;
	explore_analyse(&x->conf[0], x->conf[0].s, nbase);
	for (int i = 1; i < x->nconf; i++) {
		struct config *c = &x->conf[i];

		explore_analyse(c, x->conf[0].s, nbase);
		if (c->analysed)
			tested[ntested++] = c;
	}
	explore_holm(tested, ntested, x->conf[0].s, nbase, SCREEN_ALPHA);
	explore_unsteady(x);
	for (int i = 1; i < x->nconf; i++) {
		struct config *c = &x->conf[i];

		if (c->changes) {
			apart[(*napart)++] = c;
		} else {
			speedup[*n] = c->analysed ? c->e.ratio : 0;
			done[(*n)++] = c;
		}
	}
	explore_rank(speedup, *n, order);
	for (int i = 0; i < *n; i++)
		ranked[i] = done[order[i]];
}

/* c's whole runs' absolute deviations of their log rates from its median, into z: how many
 * (0 with fewer than UNSTEADY_MIN_RUNS). */
static int log_dev(const struct config *c, double *z)
{
	double v[MAX_ROUNDS], med;
	int k = 0;

	for (int i = 0; i < c->nsamples; i++)
		if (c->s[i].status == RUN_WHOLE && c->s[i].fig[FIG_RATE] > 0)
			v[k++] = log(c->s[i].fig[FIG_RATE]);
	if (k < UNSTEADY_MIN_RUNS)
		return 0;
	med = stats_median(v, k);
	for (int i = 0; i < k; i++)
		z[i] = fabs(v[i] - med);
	return k;
}

static void mean_var(const double *v, int n, double *m, double *var)
{
	double s = 0, ss = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	*m = s / n;
	for (int i = 0; i < n; i++)
		ss += (v[i] - *m) * (v[i] - *m);
	*var = n > 1 ? ss / (n - 1) : 0;
}

/* One-sided: are a's values larger than b's? Student's t with their variances pooled (as
 * Levene's and Brown-Forsythe's analysis of variance pools them: under the hypothesis tested,
 * the spreads are one): the p-value. */
static double t_larger(const double *a, int na, const double *b, int nb)
{
	double ma, va, mb, vb, se, df = na + nb - 2;

	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	se = sqrt(((na - 1) * va + (nb - 1) * vb) / df * (1.0 / na + 1.0 / nb));
	if (se <= 0)
		return ma > mb ? 0 : 1;
	return gsl_cdf_tdist_Q((ma - mb) / se, df);
}

/* Each configuration's runs against the others': do they spread more? The test is
 * Brown-Forsythe's, one-sided, at UNSTEADY_ALPHA over all of them: each run's distance from its
 * configuration's median log rate, this configuration's against the others' (a t test), so that one odd run (a neighbour's burst) does not make a configuration unsteady the way
 * it makes its variance large. Log rates: a spread in proportion, whatever the rate; the others
 * pooled: this machine's noise in the same minutes. Spread that is not noise is two machines:
 * a strategy whose threads land apart in some runs and together in others (the kernel's
 * SO_REUSEPORT hash) has a rate no number of rounds makes one figure of. sd_log and
 * others_sd_log describe the spreads (standard deviations of the log rates, the others'
 * pooled about their own means). */
void explore_unsteady(struct explore *x)
{
	double z[MAX_CONFIGS][MAX_ROUNDS], rest[MAX_CONFIGS * MAX_ROUNDS];
	double ss[MAX_CONFIGS] = {0}, all_ss = 0;
	int n[MAX_CONFIGS], all_df = 0, m = 0;

	x->nspread_tested = x->nunsteady = 0;
	for (int i = 0; i < x->nconf; i++) {
		double mean, var;

		n[i] = log_dev(&x->conf[i], z[i]);
		x->conf[i].spread_tested = x->conf[i].unsteady = false;
		if (!n[i])
			continue;
		double v[MAX_ROUNDS];
		int k = 0;

		for (int r = 0; r < x->conf[i].nsamples; r++)
			if (x->conf[i].s[r].status == RUN_WHOLE && x->conf[i].s[r].fig[FIG_RATE] > 0)
				v[k++] = log(x->conf[i].s[r].fig[FIG_RATE]);
		mean_var(v, k, &mean, &var);
		ss[i] = var * (k - 1);
		all_ss += ss[i];
		all_df += k - 1;
		m++;
	}
	if (m < 3)
		return; /* too few to say what the others' spread is */
	for (int i = 0; i < x->nconf; i++) {
		struct config *c = &x->conf[i];
		int nr = 0;

		if (!n[i])
			continue;
		for (int j = 0; j < x->nconf; j++)
			for (int r = 0; j != i && r < n[j]; r++)
				rest[nr++] = z[j][r];
		c->spread_tested = true;
		x->nspread_tested++;
		c->sd_log = sqrt(ss[i] / (n[i] - 1));
		c->others_sd_log = sqrt((all_ss - ss[i]) / (all_df - (n[i] - 1)));
		c->unsteady_p = t_larger(z[i], n[i], rest, nr);
		c->unsteady = c->unsteady_p < UNSTEADY_ALPHA / m;
		x->nunsteady += c->unsteady;
	}
}
