/* sweep_out.c: a sweep's outputs: the table or JSON on standard output, --csv and the gnuplot
 * --plot. Files are written whole or not at all (base/outfile.h). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outfile.h"
#include "base/util.h"
#include "multi/sweep_priv.h"
#include "report/out.h"

/* The columns of a sweep: the rate, then those of these figures the workload has. */
static int sweep_keys(const struct sweep *s, const char **keys)
{
	static const char *const cand[] = {"gbit_per_s", "packets_sent_per_s", "loss_pct",
					   "latency_p50_us", "latency_p99_us", "retransmits",
					   "client_cpu_us", "client_user_us", "client_sys_us",
					   "server_cpu_us", "server_user_us", "server_sys_us",
					   "client_mem_per_flow", "server_mem_per_flow"};
	const cJSON *sum = NULL;
	int n = 0;

	for (int i = 0; i < s->npts && !sum; i++)
		sum = s->pts[i].a_sum;
	keys[n++] = "rate";
	for (size_t i = 0; i < ARRAY_SIZE(cand); i++)
		if (!sum || cJSON_HasObjectItem(sum, cand[i]))
			keys[n++] = cand[i];
	return n;
}

/* A point's B/A: the ratio and its interval, or the ratio and "needs 2 runs" (one pair). */
static void write_ratio(FILE *f, const struct point *pt, const char *sep, bool human)
{
	if (pt->n >= 2)
		fprintf(f, "%s%.4f%s%.4f%s%.4f", sep, pt->e.ratio, sep, pt->e.lo, sep, pt->e.hi);
	else
		fprintf(f, "%s%.4f%s%s%s", sep, pt->e.ratio, sep, human ? "needs 2 runs" : "", sep);
}

static void write_header(FILE *f, struct sweep *s, const char *sep, const char **keys, int nk)
{
	for (int k = 0; k < s->np; k++)
		fprintf(f, "%s%s", s->p[k].flag + 2, sep);
	for (int i = 0; i < nk; i++)
		fprintf(f, "%s%s", i ? keys[i] : figure_key(0), i + 1 < nk ? sep : "");
	if (s->compare)
		fprintf(f, "%sb_%s%sratio%sratio_low%sratio_high", sep, figure_key(0), sep, sep,
			sep);
	fprintf(f, "%sstatus\n", sep);
}

static void write_row(FILE *f, struct sweep *s, struct point *pt, const char *sep, bool header)
{
	const char *keys[24];
	int nk = sweep_keys(s, keys), ncol = nk + (s->compare ? 4 : 0);
	bool human = strcmp(sep, ","); /* the table: figures as a reader wants them; CSV: all */
	char v[32];

	if (header) {
		write_header(f, s, sep, keys, nk);
		return;
	}
	for (int k = 0; k < s->np; k++) {
		if (human)
			fprintf(f, "%s", pt->v[k]);
		else /* a value as typed: text to a spreadsheet, never a formula */
			out_csv_text(f, pt->v[k]);
		fputs(sep, f);
	}
	if (point_failed(pt)) { /* every column empty ("-" in the table), then why */
		for (int i = 0; i < ncol; i++)
			fprintf(f, "%s%s", human ? "-" : "", i + 1 < ncol ? sep : "");
		fprintf(f, "%sfailed\n", sep);
		return;
	}
	for (int i = 0; i < nk; i++) {
		double x = med(pt->a_sum, keys[i]);

		if (human)
			fmt_fig(v, sizeof(v), x);
		else
			snprintf(v, sizeof(v), "%.3f", x);
		fprintf(f, "%s%s", v, i + 1 < nk ? sep : "");
	}
	if (s->compare) {
		if (human)
			fmt_fig(v, sizeof(v), med(pt->b_sum, "rate"));
		else
			snprintf(v, sizeof(v), "%.3f", med(pt->b_sum, "rate"));
		fprintf(f, "%s%s", sep, v);
		write_ratio(f, pt, sep, human);
	}
	fprintf(f, "%s%s\n", sep, pt->left ? "some rounds left out" : "ok");
}

static bool spans_decades(struct param *p)
{
	double lo = INFINITY, hi = 0;

	for (int i = 0; i < p->n; i++) {
		double v = atof(p->values[i]);

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	return lo > 0 && hi / lo >= 10;
}

/* The slowest (end -1) or fastest (1) of a point's whole rounds: its spread. */
static double spread_end(const struct point *pt, int end)
{
	double v = pt->a_tps[0];

	for (int i = 1; i < pt->n; i++)
		v = end < 0 ? fmin(v, pt->a_tps[i]) : fmax(v, pt->a_tps[i]);
	return v;
}

/* The plot's data: a block per value of the second flag, "x rate min max" (the median and
 * the spread of the rounds) or "x ratio low high". */
static void plot_data(struct sweep *s, FILE *d)
{
	int n1 = s->p[0].n, n2 = s->np > 1 ? s->p[1].n : 1;

	for (int k = 0; k < n2; k++) {
		for (int i = 0; i < n1; i++) {
			struct point *pt = &s->pts[k * n1 + i];

			if (point_failed(pt) || (s->compare && pt->n < 2))
				continue; /* labelled on the plot instead (plot_marks) */
			if (s->compare)
				fprintf(d, "%s %.5f %.5f %.5f\n", pt->v[0], pt->e.ratio, pt->e.lo,
					pt->e.hi);
			else
				fprintf(d, "%s %.3f %.3f %.3f\n", pt->v[0], med(pt->a_sum, "rate"),
					spread_end(pt, -1), spread_end(pt, 1));
		}
		fprintf(d, "\n\n");
	}
}

/* The x axis' name: the flag and its metavar in lower case, "size (bytes)". */
static void axis_name(struct sweep *s, char *axis, size_t len)
{
	const struct opt_def *def = find_flag(s->wl, s->p[0].flag);

	snprintf(axis, len, "%s", s->p[0].flag + 2);
	if (def && def->metavar && *def->metavar) {
		size_t n = strlen(axis);

		snprintf(axis + n, len - n, " (");
		for (const char *m = def->metavar; *m && strlen(axis) < len - 2; m++) {
			n = strlen(axis);
			axis[n] = (char)(*m >= 'A' && *m <= 'Z' ? *m - 'A' + 'a' : *m);
			axis[n + 1] = '\0';
		}
		strcat(axis, ")");
	}
}

/* "3" or "2-3": the whole rounds the points actually have (not --runs). */
static void taken(const struct sweep *s, char *buf, size_t len, int *most)
{
	int lo = s->runs, hi = 0;

	for (int i = 0; i < s->npts; i++) {
		lo = s->pts[i].n < lo ? s->pts[i].n : lo;
		hi = s->pts[i].n > hi ? s->pts[i].n : hi;
	}
	if (lo == hi)
		snprintf(buf, len, "%d", hi);
	else
		snprintf(buf, len, "%d-%d", lo, hi);
	*most = hi;
}

/* The title says what is drawn and, with --compare, what B is. Every text from the command
 * line reaches gnuplot as a single-quoted string (gp_str): no escapes, no `commands`. */
static void plot_titles(struct sweep *s, FILE *g)
{
	char line[400], q[2][820], axis[96], n[32];
	int most;

	taken(s, n, sizeof(n), &most);
	if (s->compare) {
		snprintf(line, sizeof(line), "sockbench sweep %s: rate of B / rate of A at each %s "
			 "(%s paired runs; seed %llu)", s->wl->name, s->p[0].flag + 2, n,
			 (unsigned long long)s->seed);
		gp_str(q[0], sizeof(q[0]), line);
		snprintf(line, sizeof(line), "A: the flags given; B: A plus %s; a point: the geometric "
			 "mean of the pairs' B/A", s->compare);
		fprintf(g, "set title %s . \"\\n\" . %s\n", q[0], gp_str(q[1], sizeof(q[1]), line));
	} else {
		snprintf(line, sizeof(line), "sockbench sweep %s: median %ss per second at each %s "
			 "(%s run%s a point)", s->wl->name, s->wl->unit, s->p[0].flag + 2, n,
			 most > 1 ? "s" : "");
		fprintf(g, "set title %s\n", gp_str(q[0], sizeof(q[0]), line));
	}
	axis_name(s, axis, sizeof(axis));
	snprintf(line, sizeof(line), "%s", s->compare ? "rate, B / A" : s->wl->unit);
	if (!s->compare)
		strcat(line, "s/s (median)");
	fprintf(g, "set xlabel %s\nset ylabel %s\nset grid lc rgb '#dddddd'\n",
		gp_str(q[0], sizeof(q[0]), axis), gp_str(q[1], sizeof(q[1]), line));
}

/* The points not drawn, said where they would be: "failed", or "1 pair" (no interval). */
static void plot_marks(struct sweep *s, FILE *g)
{
	char text[160], q[340];

	for (int i = 0; i < s->npts; i++) {
		struct point *pt = &s->pts[i];

		if (!point_failed(pt) && !(s->compare && pt->n < 2))
			continue;
		snprintf(text, sizeof(text), "%s%s%s%s", point_failed(pt) ? "failed" : "1 pair: needs 2 runs",
			 s->np > 1 ? " (" : "", s->np > 1 ? pt->v[1] : "", s->np > 1 ? ")" : "");
		fprintf(g, "set label %s at %g, graph %.2f center rotate by 90 textcolor rgb '#b2182b'\n",
			gp_str(q, sizeof(q), text), atof(pt->v[0]), 0.15 + 0.2 * (i / s->p[0].n % 4));
	}
}

/* B/A's axis ends at twice the highest ratio (at least 1.5): an interval from two pairs can
 * reach 10^4, and drawn whole it flattens every ratio onto 0; its bar runs off the top. */
static const char *ratio_top(const struct sweep *s, char *buf, size_t len)
{
	double top = 0;

	for (int i = 0; s->compare && i < s->npts; i++)
		if (!point_failed(&s->pts[i]) && s->pts[i].n >= 2 && isfinite(s->pts[i].e.ratio))
			top = fmax(top, s->pts[i].e.ratio);
	if (top > 0)
		snprintf(buf, len, "%g", fmax(2 * top, 1.5));
	else
		snprintf(buf, len, "*");
	return buf;
}

/* gnuplot: x = the first flag, one line per value of the second; y = the rate, or B/A. */
static void plot_script(struct sweep *s, const char *data, const char *svg, FILE *g)
{
	char qd[200], qt[200], title[80];
	double lo = INFINITY, hi = -INFINITY;

	fprintf(g, "set terminal svg size 900,560 dynamic background rgb 'white'\nset output %s\n",
		gp_str(qd, sizeof(qd), svg));
	out_gp_palette(g);
	plot_titles(s, g);
	fprintf(g, "set key outside bottom center horizontal\n");
	/* The x axis spans the data with a margin, so the end points and their bars are whole;
	 * y starts at 0 (rates and ratios are not negative). */
	for (int i = 0; i < s->p[0].n; i++) {
		double v = atof(s->p[0].values[i]);

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if (spans_decades(&s->p[0]))
		fprintf(g, "set logscale x\nset xrange [%g:%g]\n", lo / 1.25, hi * 1.25);
	else if (hi > lo)
		fprintf(g, "set xrange [%g:%g]\n", lo - (hi - lo) * 0.06, hi + (hi - lo) * 0.06);
	plot_marks(s, g);
	fprintf(g, "set yrange [0:%s]\nplot ", ratio_top(s, qt, sizeof(qt)));
	gp_str(qd, sizeof(qd), data);
	for (int k = 0; k < (s->np > 1 ? s->p[1].n : 1); k++) {
		/* What a line is: B/A with its interval, or A's median with its runs' spread
		 * (there is no B without --compare: only A's flags are run) */
		snprintf(title, sizeof(title), "%s%s%s%s", s->np > 1 ? s->p[1].flag + 2 : "",
			 s->np > 1 ? "=" : "", s->np > 1 ? s->p[1].values[k] : "",
			 s->compare ? (s->np > 1 ? ": B/A" : "B/A (bar: 95% interval)")
				    : (s->np > 1 ? "" : "median rate (bar: min to max of the runs)"));
		fprintf(g, "%s%s index %d using 1:2:3:4 with yerrorlines lt %d pt 7 ps 0.6 title %s",
			k ? ", " : "", qd, k, k + 1, gp_str(qt, sizeof(qt), title));
	}
	if (s->compare)
		fprintf(g, ", 1 with lines dashtype 2 lw 2 lc rgb '#b2182b' title "
			   "'no difference (B/A = 1)'");
	fprintf(g, "\n");
}

static int draw_sweep(void *s, FILE *d, FILE *g, const char *data_path, const char *svg_path)
{
	plot_data(s, d);
	plot_script(s, data_path, svg_path, g);
	return ferror(d) || ferror(g) ? -EIO : 0;
}

/* --plot: 0 or 1 (said). */
static int sweep_plot(struct sweep *s)
{
	return out_gnuplot("sweep --plot", s->plot, draw_sweep, s) ? 1 : 0;
}

/* A point's B/A, with an interval from 2 pairs on. */
static void ratio_json(cJSON *e, const struct point *pt)
{
	cJSON_AddNumberToObject(e, "ratio", pt->e.ratio);
	if (pt->n < 2) {
		cJSON_AddStringToObject(e, "interval", "needs 2 runs");
		return;
	}
	cJSON_AddNumberToObject(e, "ci_low", pt->e.lo);
	cJSON_AddNumberToObject(e, "ci_high", pt->e.hi);
	cJSON_AddNumberToObject(e, "confidence", pt->e.level);
	cJSON_AddNumberToObject(e, "p_value", pt->e.p);
}

static void sweep_json(struct sweep *s)
{
	cJSON *j = cJSON_CreateObject(), *ps = cJSON_CreateArray(), *pts = cJSON_CreateArray();
	char seed[24];

	cJSON_AddNumberToObject(j, "schema", RESULT_SCHEMA);
	cJSON_AddStringToObject(j, "tool", "sockbench");
	cJSON_AddStringToObject(j, "kind", "sweep");
	cJSON_AddStringToObject(j, "workload", s->wl->name);
	cJSON_AddNumberToObject(j, "runs", s->runs);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)s->seed);
	cJSON_AddStringToObject(j, "seed", seed);
	cJSON_AddStringToObject(j, "order", s->order ? s->order : "");
	cJSON_AddBoolToObject(j, "partial", run_interrupted());
	if (s->compare)
		cJSON_AddStringToObject(j, "compare", s->compare);
	for (int k = 0; k < s->np; k++)
		cJSON_AddItemToArray(ps, cJSON_CreateString(s->p[k].flag + 2));
	cJSON_AddItemToObject(j, "params", ps);
	for (int i = 0; i < s->npts; i++) {
		struct point *pt = &s->pts[i];
		cJSON *e = cJSON_CreateObject(), *v = cJSON_CreateObject();

		for (int k = 0; k < s->np; k++)
			cJSON_AddNumberToObject(v, s->p[k].flag + 2, atof(pt->v[k]));
		cJSON_AddItemToObject(e, "values", v);
		if (pt->a_sum)
			cJSON_AddItemReferenceToObject(e, "a", pt->a_sum);
		if (pt->b_sum) {
			cJSON_AddItemReferenceToObject(e, "b", pt->b_sum);
			ratio_json(e, pt);
		}
		cJSON_AddStringToObject(e, "status", point_failed(pt) ? "failed" : "ok");
		cJSON_AddNumberToObject(e, "runs", pt->n);
		cJSON_AddNumberToObject(e, "rounds_left_out", pt->left);
		cJSON_AddItemToObject(e, "left_out", left_out_json(pt->lo, pt->nlo));
		cJSON_AddItemToArray(pts, e);
	}
	cJSON_AddItemToObject(j, "points", pts);
	out_print_json(j, stdout);
	cJSON_Delete(j);
}

/* --csv: whole or not at all (outfile.h). 0 or 1 (said). */
static int sweep_csv(struct sweep *s)
{
	struct outfile o;
	bool direct;
	int e = outfile_open(&o, s->csv);

	if (e) {
		fprintf(stderr, "sockbench: sweep --csv %s: %s; nothing written\n", s->csv,
			outfile_strerror(e));
		return 1;
	}
	direct = outfile_direct(&o);
	write_row(o.f, s, NULL, ",", true);
	for (int i = 0; i < s->npts; i++)
		write_row(o.f, s, &s->pts[i], ",", false);
	if ((e = outfile_commit(&o)))
		fprintf(stderr, "sockbench: sweep --csv %s: %s%s\n", s->csv, outfile_strerror(e),
			outfile_left(direct));
	return e ? 1 : 0;
}

/* The rounds left out at each point, and why (the first reason of each point). */
static void print_left(struct sweep *s)
{
	int sides = s->compare ? 2 : 1;

	for (int i = 0; i < s->npts; i++) {
		struct point *pt = &s->pts[i];

		if (!pt->left)
			continue;
		printf("  %s=%s%s%s%s%s: %d of %d rounds left out%s: ", s->p[0].flag + 2, pt->v[0],
		       s->np > 1 ? " " : "", s->np > 1 ? s->p[1].flag + 2 : "", s->np > 1 ? "=" : "",
		       s->np > 1 ? pt->v[1] : "", pt->left, pt->left + pt->n,
		       point_failed(pt) ? " (FAILED: no whole round)" : "");
		print_left_out(pt->lo, pt->nlo, (pt->left + pt->n) * sides);
	}
}

int sweep_write(struct sweep *s)
{
	int rc = 0, failed = 0;

	for (int i = 0; i < s->npts; i++)
		failed += point_failed(&s->pts[i]);
	if (s->json) {
		sweep_json(s);
	} else {
		printf("sockbench sweep %s: %d point%s x %d rounds, each round every point once in an "
		       "order drawn from seed %llu%s%s (medians)\n\n", s->wl->name, s->npts,
		       s->npts > 1 ? "s" : "", s->runs, (unsigned long long)s->seed,
		       s->compare ? ", B = A + " : "", s->compare ? s->compare : "");
		printf("order of the points in each round (0 = the first value): %s\n\n",
		       s->order ? s->order : "");
		write_row(stdout, s, NULL, "\t", true);
		for (int i = 0; i < s->npts; i++)
			write_row(stdout, s, &s->pts[i], "\t", false);
		print_left(s);
	}
	fflush(stdout); /* main.c checks that it all got there */
	if (s->csv)
		rc |= sweep_csv(s);
	if (s->plot)
		rc |= sweep_plot(s);
	if (failed)
		fprintf(stderr, "sockbench: sweep: %d of %d points failed in every round (marked "
			"failed)\n", failed, s->npts);
	return rc || failed ? 1 : 0;
}
