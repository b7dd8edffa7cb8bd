/* knee_out.c: knee's verdict on its runs, and its table, JSON document and plot. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"
#include "measure/result.h"
#include "multi/knee_priv.h"
#include "multi/stats.h"
#include "report/out.h"
#include "report/palette.h"

static const struct {
	double p;
	const char *key;
} pct_keys[] = {{50, "p50"}, {90, "p90"}, {99, "p99"}, {99.9, "p999"}, {99.99, "p9999"}};

const char *knee_pct_key(double p)
{
	for (size_t i = 0; i < ARRAY_SIZE(pct_keys); i++)
		if (fabs(pct_keys[i].p - p) < 1e-9)
			return pct_keys[i].key;
	return NULL;
}

/* The knee: the highest rate most of whose runs passed (0: none); its runs' percentiles in v
 * (*nv of them, *npass passed). */
static double knee_rate(const struct knee *k, double *v, int *nv, int *npass)
{
	double best = 0;

	for (int i = 0; i < k->n; i++) {
		int runs = 0, ok = 0;

		for (int j = 0; j < k->n; j++)
			if (k->pt[j].offered == k->pt[i].offered) {
				runs++;
				ok += k->pt[j].pass;
			}
		if (2 * ok > runs && k->pt[i].offered > best)
			best = k->pt[i].offered;
	}
	*nv = *npass = 0;
	for (int i = 0; i < k->n; i++)
		if (k->pt[i].offered == best && !isnan(k->pt[i].pslo)) {
			v[(*nv)++] = k->pt[i].pslo;
			*npass += k->pt[i].pass;
		}
	return best;
}

static void knee_interval(const double *v, int n, double *lo, double *hi, double *conf)
{
	*lo = *hi = NAN;
	*conf = 0;
	if (n)
		stats_median_interval(v, n, 0.95, lo, hi, conf);
}

int knee_print_table(const struct knee *k, double lo, double hi)
{
	double v[MAX_PTS], ilo, ihi, conf;
	int nv, npass;
	double rate = knee_rate(k, v, &nv, &npass);

	printf("sockbench knee %s: p%g <= %.0f us, %d runs of %.2f s\n\n", k->wl->name, k->pct,
	       k->limit_us, k->n, k->run_s);
	printf("  %12s %12s %10s %10s %10s %8s %10s %9s %9s  %s\n", "offered/s", "achieved/s",
	       "p50 us", "p99 us", "p99.9 us", "lost %", "lag p99", "cpu c/u", "cpu s/u", "verdict");
	for (int i = 0; i < k->n; i++) {
		const struct knee_pt *p = &k->pt[i];

		printf("  %12.0f %12.0f %10.1f %10.1f %10.1f %8.3f %10.1f %9.2f %9.2f  %s%s%s\n",
		       p->offered, p->achieved, p->p50, p->p99, p->p999, 100 * p->lost_share, p->lag99,
		       p->cpu_c, p->cpu_s, p->pass ? "pass" : "FAIL", p->pass ? "" : ": ",
		       p->pass ? "" : p->why);
	}
	printf("  (percentiles count every request sent, an unanswered one at its wait: a lower "
	       "bound)\n");
	knee_interval(v, nv, &ilo, &ihi, &conf);
	if (!rate) {
		long lower = knee_lower_min_rate(k);
		char low[32];

		fmt_sep(low, sizeof(low), (double)k->min_rate, 0);
		if (lower > 0 && lower < k->min_rate)
			printf("\nno rate held the SLO: the lowest tried, %s/s, failed already, so "
			       "the search stopped there; the knee is below it (or no rate meets the "
			       "SLO): try --min-rate %ld\n", low, lower);
		else
			printf("\nno rate held the SLO (the lowest tried: %ld/s)\n", k->min_rate);
		return 1;
	}
	printf("\nknee: %.0f/s (%d of %d runs passed; p%g median %.1f us, [%.1f, %.1f] at %.0f%%)"
	       "%s\n", rate, npass, nv, k->pct, stats_median(v, nv), ilo, ihi, 100 * conf,
	       hi ? "" : ": no rate up to --max-rate failed");
	(void)lo;
	return 0;
}

static cJSON *point_json(const struct knee_pt *p)
{
	cJSON *j = cJSON_CreateObject(), *c = cJSON_CreateObject();

	cJSON_AddNumberToObject(j, "offered_rate", p->offered);
	cJSON_AddNumberToObject(j, "achieved_rate", isnan(p->achieved) ? 0 : p->achieved);
	cJSON_AddNumberToObject(j, "p50_us", isnan(p->p50) ? 0 : p->p50);
	cJSON_AddNumberToObject(j, "p99_us", isnan(p->p99) ? 0 : p->p99);
	cJSON_AddNumberToObject(j, "p999_us", isnan(p->p999) ? 0 : p->p999);
	cJSON_AddNumberToObject(j, "slo_percentile_us", isnan(p->pslo) ? 0 : p->pslo);
	cJSON_AddBoolToObject(j, "slo_percentile_at_least", p->pslo_at_least);
	cJSON_AddNumberToObject(j, "loss_pct", 100 * p->lost_share);
	if (isnan(p->lag99))
		cJSON_AddNullToObject(j, "lag_p99_us");
	else
		cJSON_AddNumberToObject(j, "lag_p99_us", p->lag99);
	cJSON_AddNumberToObject(c, "client", isnan(p->cpu_c) ? 0 : p->cpu_c);
	cJSON_AddNumberToObject(c, "server", isnan(p->cpu_s) ? 0 : p->cpu_s);
	cJSON_AddItemToObject(j, "cpu_us_per_unit", c);
	cJSON_AddBoolToObject(j, "holding_load", p->holding);
	cJSON_AddStringToObject(j, "status", run_status_name(p->status));
	cJSON_AddBoolToObject(j, "pass", p->pass);
	if (p->pass)
		cJSON_AddNullToObject(j, "why");
	else
		cJSON_AddStringToObject(j, "why", p->why);
	return j;
}

int knee_print_json(const struct knee *k, double lo, double hi)
{
	cJSON *j = cJSON_CreateObject(), *pts = cJSON_CreateArray(), *kn, *slo;
	double v[MAX_PTS], ilo, ihi, conf;
	int nv, npass;
	double rate = knee_rate(k, v, &nv, &npass);

	cJSON_AddNumberToObject(j, "schema", RESULT_SCHEMA);
	cJSON_AddStringToObject(j, "tool", "sockbench");
	cJSON_AddStringToObject(j, "kind", "knee");
	cJSON_AddStringToObject(j, "workload", k->wl->name);
	slo = cJSON_AddObjectToObject(j, "slo");
	cJSON_AddNumberToObject(slo, "percentile", k->pct);
	cJSON_AddNumberToObject(slo, "limit_us", k->limit_us);
	cJSON_AddNumberToObject(j, "run_seconds", k->run_s);
	cJSON_AddNumberToObject(j, "max_rate", (double)k->max_rate);
	for (int i = 0; i < k->n; i++)
		cJSON_AddItemToArray(pts, point_json(&k->pt[i]));
	cJSON_AddItemToObject(j, "points", pts);
	knee_interval(v, nv, &ilo, &ihi, &conf);
	kn = cJSON_AddObjectToObject(j, "knee");
	cJSON_AddNumberToObject(kn, "rate", rate);
	cJSON_AddNumberToObject(kn, "runs", nv);
	cJSON_AddNumberToObject(kn, "passed", npass);
	cJSON_AddNumberToObject(kn, "median_us", nv ? stats_median(v, nv) : 0);
	cJSON_AddNumberToObject(kn, "lo_us", nv ? ilo : 0);
	cJSON_AddNumberToObject(kn, "hi_us", nv ? ihi : 0);
	cJSON_AddNumberToObject(kn, "confidence", conf);
	cJSON_AddNumberToObject(kn, "last_pass_rate", lo);
	cJSON_AddNumberToObject(kn, "first_fail_rate", hi);
	char *s = cJSON_Print(j);

	printf("%s\n", s);
	free(s);
	cJSON_Delete(j);
	return rate ? 0 : 1;
}

/* The plot's data: block 0 the runs that passed and block 1 those that failed ("offered
 * pslo"), block 2 the medians of the runs at each rate, in the points' order (by rate):
 * "offered p50 p99 p99.9". Each block is written, empty or not, so the indices hold. The
 * range of it all in xr (x) and yr (y, the SLO's limit in it). */
static void knee_data(const struct knee *k, FILE *d, double xr[2], double yr[2])
{
	double rates[MAX_PTS], v[3][MAX_PTS];
	int nr = 0;

	xr[0] = yr[0] = INFINITY;
	xr[1] = yr[1] = -INFINITY;
	/* A block's first line is no point ("x NaN"): an empty block at the file's start is
	 * not counted by gnuplot's index, one with a line is. */
	for (int pass = 1; pass >= 0; pass--) {
		fprintf(d, "%g NaN\n", k->n ? k->pt[0].offered : 1000.0);
		for (int i = 0; i < k->n; i++)
			if (k->pt[i].pass == pass && !isnan(k->pt[i].pslo) && k->pt[i].pslo > 0)
				fprintf(d, "%g %g\n", k->pt[i].offered, k->pt[i].pslo);
		fprintf(d, "\n\n");
	}
	for (int i = 0; i < k->n; i++) {
		bool seen = false;

		for (int j = 0; j < nr; j++)
			seen |= rates[j] == k->pt[i].offered;
		if (!seen)
			rates[nr++] = k->pt[i].offered;
		xr[0] = fmin(xr[0], k->pt[i].offered);
		xr[1] = fmax(xr[1], k->pt[i].offered);
	}
	fprintf(d, "%g NaN NaN NaN\n", nr ? rates[0] : 1000.0);
	for (int r = 0; r < nr; r++) {
		int n = 0;

		for (int i = 0; i < k->n; i++)
			if (k->pt[i].offered == rates[r] && !isnan(k->pt[i].p50) && k->pt[i].p50 > 0) {
				v[0][n] = k->pt[i].p50, v[1][n] = k->pt[i].p99, v[2][n] = k->pt[i].p999;
				yr[0] = fmin(yr[0], v[0][n]);
				yr[1] = fmax(yr[1], fmax(v[2][n], k->pt[i].pslo));
				n++;
			}
		if (n)
			fprintf(d, "%g %g %g %g\n", rates[r], stats_median(v[0], n),
				stats_median(v[1], n), stats_median(v[2], n));
	}
	fprintf(d, "\n\n");
	yr[0] = fmin(yr[0], k->limit_us);
	yr[1] = fmax(yr[1], k->limit_us);
}

/* The axes: log x (base 2: the ramp doubles) over the rates tried with a margin, never an
 * empty range; log y over every figure and the SLO's limit, a decade's room either way
 * when there is nothing but the limit. */
static void knee_axes(const struct knee *k, FILE *g, const double xr[2], const double yr[2])
{
	double lo = isfinite(xr[0]) ? xr[0] : (double)k->min_rate, hi = isfinite(xr[1]) ? xr[1] : lo;
	double ylo = yr[0], yhi = yr[1];

	if (!(lo > 0))
		lo = hi = 1000;
	if (!(ylo < yhi))
		ylo = k->limit_us / 10, yhi = k->limit_us * 10;
	fprintf(g, "set logscale x 2\nset xrange [%g:%g]\nset logscale y\nset yrange [%g:%g]\n",
		lo / 1.25, hi * 1.25, ylo / 1.6, yhi * 1.6);
	fprintf(g, "set xtics (");
	for (double t = lo, i = 0; t <= hi * 1.0001 && i < 30; t *= 2, i++)
		fprintf(g, "%s'%g' %g", i ? ", " : "", t, t);
	fprintf(g, ")\n");
}

/* gnuplot: each run's SLO percentile, passed or failed, over log x; the medians at each rate
 * of p50, p99 and p99.9 joined; the SLO's limit across the plot; the knee, or its absence. */
static int draw(void *arg, FILE *d, FILE *g, const char *data_path, const char *svg_path)
{
	const struct knee *k = arg;
	double v[MAX_PTS], xr[2], yr[2];
	int nv, npass;
	double rate = knee_rate(k, v, &nv, &npass);
	char q[300], t[160];

	knee_data(k, d, xr, yr);
	fprintf(g, "set terminal svg size 900,560 dynamic background rgb 'white'\nset output %s\n",
		gp_str(q, sizeof(q), svg_path));
	out_gp_palette(g);
	snprintf(t, sizeof(t), "sockbench knee %s: latency against offered load (p%g <= %.0f us)",
		 k->wl->name, k->pct, k->limit_us);
	fprintf(g, "set title %s\nset xlabel 'offered rate (/s, log: the ramp doubles)'\nset "
		   "ylabel 'latency (us, log), from the scheduled send'\nset key outside right "
		   "font ',10'\nset grid\n", gp_str(q, sizeof(q), t));
	knee_axes(k, g, xr, yr);
	fprintf(g, "set arrow from graph 0, first %g to graph 1, first %g nohead dashtype 2 lw 2 "
		   "lc rgb '" PALETTE_LIMIT "'\n", k->limit_us, k->limit_us);
	if (rate)
		fprintf(g, "set arrow from %g, graph 0 to %g, graph 1 nohead dashtype 3 lc rgb "
			   "'#666666'\nset label 'knee %.0f/s' at %g, graph 0.95 right offset -0.5,0\n",
			rate, rate, rate, rate);
	else
		fprintf(g, "set label 'no knee found within the ramp: no rate held the SLO' at "
			   "graph 0.5, graph 1.035 center font ',12' textcolor rgb '" PALETTE_FAIL "'\n"
			   "set tmargin 5\n");
	gp_str(q, sizeof(q), data_path);
	fprintf(g, "plot %s index 2 using 1:2 with linespoints lt 1 pt 6 title 'p50, median of "
		   "the runs', '' index 2 using 1:3 with linespoints lt 2 pt 6 title 'p99, median', "
		   "'' index 2 using 1:4 with linespoints lt 3 pt 6 title 'p99.9, median', ", q);
	fprintf(g, "'' index 0 using 1:2 with points pt 7 ps 0.9 lc rgb '" PALETTE_PASS "' title "
		   "'p%g of a run: passed', '' index 1 using 1:2 with points pt 2 ps 1.3 lw 2 lc rgb '"
		   PALETTE_FAIL "' title 'p%g of a run: failed', NaN with lines dashtype 2 lw 2 lc rgb '"
		   PALETTE_LIMIT "' title 'SLO limit %.0f us'\n", k->pct, k->pct, k->limit_us);
	return ferror(d) || ferror(g) ? -EIO : 0;
}

int knee_plot(const struct knee *k)
{
	return out_gnuplot("knee --plot", k->plot, draw, (void *)k) ? 1 : 0;
}
