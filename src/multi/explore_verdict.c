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

/* Holm over every configuration analysed: one error budget for all their verdicts; each
 * interval is recomputed at the level its configuration was held to. */
void explore_holm(struct config **cs, int n, const struct sample *base, int nbase, double alpha)
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

bool explore_flags_clash(const char *a, const char *b)
{
	for (const char *p = a; (p = strstr(p, "--")); p += 2) {
		size_t n = strcspn(p, " =");

		for (const char *q = b; (q = strstr(q, "--")); q += 2)
			if (strcspn(q, " =") == n && !strncmp(p, q, n) &&
			    (q == b || q[-1] == ' ') && (p == a || p[-1] == ' ') &&
			    same_setting(p, q, n))
				return true;
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

/* The sum of squares of c's whole runs' log rates about their mean: 0 with fewer than
 * UNSTEADY_MIN_RUNS (*df then 0). */
static double log_ss(const struct config *c, int *df)
{
	double v[MAX_ROUNDS], m = 0, ss = 0;
	int k = 0;

	for (int i = 0; i < c->nsamples; i++)
		if (c->s[i].status == RUN_WHOLE && c->s[i].fig[FIG_RATE] > 0)
			v[k++] = log(c->s[i].fig[FIG_RATE]);
	*df = k >= UNSTEADY_MIN_RUNS ? k - 1 : 0;
	if (!*df)
		return 0;
	for (int i = 0; i < k; i++)
		m += v[i] / k;
	for (int i = 0; i < k; i++)
		ss += (v[i] - m) * (v[i] - m);
	return ss;
}

/* Each configuration's variance of log rates against the others' pooled (an F test, one-sided:
 * larger), at UNSTEADY_ALPHA over all of them. Log rates: a spread in proportion, whatever the
 * rate; the others pooled: this machine's noise in the same minutes (a drift between rounds
 * widens them all alike). Spread that is not noise is two machines: a strategy whose threads
 * land apart in some runs and together in others (the kernel's SO_REUSEPORT hash) has a rate
 * no number of rounds makes one figure of. */
void explore_unsteady(struct explore *x)
{
	double ss[MAX_CONFIGS], all_ss = 0;
	int df[MAX_CONFIGS], all_df = 0, m = 0;

	x->nspread_tested = x->nunsteady = 0;
	for (int i = 0; i < x->nconf; i++) {
		ss[i] = log_ss(&x->conf[i], &df[i]);
		all_ss += ss[i];
		all_df += df[i];
		m += df[i] > 0;
	}
	if (m < 3)
		return; /* too few to say what the others' spread is */
	for (int i = 0; i < x->nconf; i++) {
		struct config *c = &x->conf[i];
		int odf = all_df - df[i];
		double oss = all_ss - ss[i];

		c->spread_tested = df[i] > 0;
		if (!c->spread_tested)
			continue;
		x->nspread_tested++;
		c->sd_log = sqrt(ss[i] / df[i]);
		c->others_sd_log = sqrt(oss / odf);
		c->unsteady_p = oss > 0 ? gsl_cdf_fdist_Q(ss[i] / df[i] / (oss / odf), df[i], odf)
					: ss[i] > 0 ? 0 : 1;
		c->unsteady = c->unsteady_p < UNSTEADY_ALPHA / m;
		x->nunsteady += c->unsteady;
	}
}
