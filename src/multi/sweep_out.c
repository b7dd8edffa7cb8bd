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
					   "client_cpu_us", "server_cpu_us"};
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

static void write_row(FILE *f, struct sweep *s, struct point *pt, const char *sep, bool header)
{
	const char *keys[16];
	int nk = sweep_keys(s, keys);

	if (header) {
		for (int k = 0; k < s->np; k++)
			fprintf(f, "%s%s", s->p[k].flag + 2, sep);
		for (int i = 0; i < nk; i++)
			fprintf(f, "%s%s", i ? keys[i] : figure_key(0, s->wl),
				i + 1 < nk || s->compare ? sep : "");
		if (s->compare)
			fprintf(f, "b_%s%sratio%sratio_low%sratio_high", figure_key(0, s->wl), sep, sep,
				sep);
		fprintf(f, "\n");
		return;
	}
	for (int k = 0; k < s->np; k++)
		fprintf(f, "%s%s", pt->v[k], sep);
	bool human = strcmp(sep, ","); /* the table: figures as a reader wants them; CSV: all */
	char v[32];

	for (int i = 0; i < nk; i++) {
		double x = med(pt->a_sum, keys[i]);

		if (human)
			fmt_fig(v, sizeof(v), x);
		else
			snprintf(v, sizeof(v), "%.3f", x);
		fprintf(f, "%s%s", v, i + 1 < nk || s->compare ? sep : "");
	}
	if (s->compare) {
		if (human)
			fmt_fig(v, sizeof(v), med(pt->b_sum, "rate"));
		else
			snprintf(v, sizeof(v), "%.3f", med(pt->b_sum, "rate"));
		fprintf(f, "%s%s%.4f%s%.4f%s%.4f", v, sep, pt->e.ratio, sep, pt->e.lo, sep, pt->e.hi);
	}
	fprintf(f, "\n");
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

/* The plot's data: a block per value of the second flag, "x rate" or "x ratio low high". */
static void plot_data(struct sweep *s, FILE *d)
{
	int n1 = s->p[0].n, n2 = s->np > 1 ? s->p[1].n : 1;

	for (int k = 0; k < n2; k++) {
		for (int i = 0; i < n1; i++) {
			struct point *pt = &s->pts[k * n1 + i];

			if (!pt->n)
				continue;
			if (s->compare)
				fprintf(d, "%s %.5f %.5f %.5f\n", pt->v[0], pt->e.ratio, pt->e.lo,
					pt->e.hi);
			else
				fprintf(d, "%s %.3f\n", pt->v[0], med(pt->a_sum, "rate"));
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

/* The title says what is drawn and, with --compare, what B is. Every text from the command
 * line reaches gnuplot as a single-quoted string (gp_str): no escapes, no `commands`. */
static void plot_titles(struct sweep *s, FILE *g)
{
	char line[400], q[2][820], axis[96];

	if (s->compare) {
		snprintf(line, sizeof(line), "sockbench sweep %s: rate of B / rate of A at each %s "
			 "(geometric mean of %d paired runs, 95%% interval)", s->wl->name,
			 s->p[0].flag + 2, s->runs);
		gp_str(q[0], sizeof(q[0]), line);
		snprintf(line, sizeof(line), "A: the flags given; B: A plus %s", s->compare);
		fprintf(g, "set title %s . \"\\n\" . %s\n", q[0], gp_str(q[1], sizeof(q[1]), line));
	} else {
		snprintf(line, sizeof(line), "sockbench sweep %s: median %ss per second at each %s "
			 "(%d run%s a point)", s->wl->name, s->wl->unit, s->p[0].flag + 2, s->runs,
			 s->runs > 1 ? "s" : "");
		fprintf(g, "set title %s\n", gp_str(q[0], sizeof(q[0]), line));
	}
	axis_name(s, axis, sizeof(axis));
	snprintf(line, sizeof(line), "%s", s->compare ? "rate, B / A" : s->wl->unit);
	if (!s->compare)
		strcat(line, "s/s (median)");
	fprintf(g, "set xlabel %s\nset ylabel %s\nset grid lc rgb '#dddddd'\n",
		gp_str(q[0], sizeof(q[0]), axis), gp_str(q[1], sizeof(q[1]), line));
}

/* gnuplot: x = the first flag, one line per value of the second; y = the rate, or B/A. */
static void plot_script(struct sweep *s, const char *data, const char *svg, FILE *g)
{
	char qd[200], qt[200], title[80];
	double lo = INFINITY, hi = -INFINITY;

	fprintf(g, "set terminal svg size 900,560 dynamic background rgb 'white'\nset output %s\n",
		gp_str(qd, sizeof(qd), svg));
	plot_titles(s, g);
	fprintf(g, "set key outside right\n");
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
	fprintf(g, "set yrange [0:*]\nplot ");
	gp_str(qd, sizeof(qd), data);
	for (int k = 0; k < (s->np > 1 ? s->p[1].n : 1); k++) {
		if (s->np > 1)
			snprintf(title, sizeof(title), "%s=%s", s->p[1].flag + 2,
				 s->p[1].values[k]);
		else
			snprintf(title, sizeof(title), "%s", s->compare ? "B/A" : "A");
		fprintf(g, "%s%s index %d using %s title %s", k ? ", " : "", qd, k,
			s->compare ? "1:2:3:4 with yerrorlines" : "1:2 with linespoints",
			gp_str(qt, sizeof(qt), title));
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

static void sweep_json(struct sweep *s)
{
	cJSON *j = cJSON_CreateObject(), *ps = cJSON_CreateArray(), *pts = cJSON_CreateArray();

	cJSON_AddNumberToObject(j, "schema", RESULT_SCHEMA);
	cJSON_AddStringToObject(j, "tool", "sockbench");
	cJSON_AddStringToObject(j, "kind", "sweep");
	cJSON_AddStringToObject(j, "workload", s->wl->name);
	cJSON_AddNumberToObject(j, "runs", s->runs);
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
			cJSON_AddNumberToObject(e, "ratio", pt->e.ratio);
			cJSON_AddNumberToObject(e, "ci_low", pt->e.lo);
			cJSON_AddNumberToObject(e, "ci_high", pt->e.hi);
			cJSON_AddNumberToObject(e, "confidence", pt->e.level);
			cJSON_AddNumberToObject(e, "p_value", pt->e.p);
		}
		cJSON_AddNumberToObject(e, "runs", pt->n);
		cJSON_AddNumberToObject(e, "rounds_left_out", pt->left);
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
			strerror(-e));
		return 1;
	}
	direct = outfile_direct(&o);
	write_row(o.f, s, NULL, ",", true);
	for (int i = 0; i < s->npts; i++)
		if (s->pts[i].n)
			write_row(o.f, s, &s->pts[i], ",", false);
	if ((e = outfile_commit(&o)))
		fprintf(stderr, "sockbench: sweep --csv %s: %s%s\n", s->csv, strerror(-e),
			outfile_left(direct));
	return e ? 1 : 0;
}

int sweep_write(struct sweep *s)
{
	int rc = 0;

	if (s->json) {
		sweep_json(s);
	} else {
		printf("sockbench sweep %s: %d point%s x %d runs%s%s (medians)\n\n", s->wl->name,
		       s->npts, s->npts > 1 ? "s" : "", s->runs, s->compare ? ", B = A + " : "",
		       s->compare ? s->compare : "");
		write_row(stdout, s, NULL, "\t", true);
		for (int i = 0; i < s->npts; i++)
			if (s->pts[i].n)
				write_row(stdout, s, &s->pts[i], "\t", false);
	}
	fflush(stdout); /* main.c checks that it all got there */
	if (s->csv)
		rc |= sweep_csv(s);
	if (s->plot)
		rc |= sweep_plot(s);
	return rc;
}
