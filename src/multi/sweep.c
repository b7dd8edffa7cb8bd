/* sweep.c: `sweep`: a grid of flag values (any numeric flags, one or two with lists), each
 * point --runs times, written as a table, CSV, JSON and a gnuplot SVG; with --compare it
 * sweeps A and B and plots the ratio B/A per point: where a difference narrows or widens.
 */

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/util.h"
#include "multi/repeat.h"
#include "multi/stats.h"
#include "report/out.h"

#define MAX_WORDS 64
#define MAX_RUNS 1000
#define LEVEL 0.95
#define MAX_PARAMS 2
#define MAX_VALUES 32

struct param {
	const char *flag; /* "--size" */
	char *values[MAX_VALUES];
	int n;
};

struct point {
	char *v[MAX_PARAMS];
	double a_tps[MAX_RUNS], b_tps[MAX_RUNS];
	int n;
	cJSON *a_sum, *b_sum;
	struct paired e; /* with --compare: B/A */
	int left;	 /* rounds left out (a run partial or failed) */
};

struct sweep {
	const struct workload *wl;
	char *base[MAX_WORDS];
	int nbase;
	char *bflags[MAX_WORDS];
	int nb;
	struct param p[MAX_PARAMS];
	int np;
	struct point *pts;
	int npts;
	int runs;
	char *csv, *plot, *compare; /* --csv, --plot, --compare (opts_take's copies) */
	bool json;
	uint64_t seed; /* of the A/B order, with --compare */
};

static const struct opt_def *find_flag(const struct workload *wl, const char *flag)
{
	if (strncmp(flag, "--", 2))
		return NULL;
	for (const struct opt_def *d = wl->opts; d->name; d++)
		if (!strcmp(d->name, flag + 2))
			return d;
	return NULL;
}

static void add_param(struct sweep *s, const char *flag, char *list)
{
	const struct opt_def *d = find_flag(s->wl, flag);
	struct param *p = &s->p[s->np];

	if (!d || (d->type != OPT_INT && d->type != OPT_DBL))
		die_usage("sweep: %s is not a numeric flag of %s", flag, s->wl->name);
	if (s->np == MAX_PARAMS)
		die_usage("sweep: at most %d flags with lists of values", MAX_PARAMS);
	p->flag = flag;
	for (char *t = strtok(list, ","); t; t = strtok(NULL, ","))
		if (p->n < MAX_VALUES)
			p->values[p->n++] = t;
	if (!p->n)
		die_usage("sweep: %s has no values", flag);
	s->np++;
}

/* Split sweep's own flags, the swept ones (a value with a comma) and the rest. */
/* sweep's own flags; the other words are the workload's, some with lists of values. */
const struct opt_def sweep_flags[] = {
	OWN_FLAG(STR, struct sweep, csv, "csv", 0, 0),
	OWN_FLAG(STR, struct sweep, plot, "plot", 0, 0),
	OWN_FLAG(STR, struct sweep, compare, "compare", 0, 0),
	OWN_FLAG(BOOL, struct sweep, json, "json", 0, 1),
	{0},
};

static void sweep_args(struct sweep *s, int argc, char **argv)
{
	char **rest = xcalloc((size_t)argc + 1, sizeof(char *)), err[200];
	int n;

	if (opts_take(sweep_flags, s, argc, argv, rest, &n, err, sizeof(err)))
		die_usage("sweep: %s", err);
	s->base[s->nbase++] = (char *)s->wl->name;
	for (int i = 0; i < n; i++) {
		char *a = rest[i], *val = i + 1 < n ? rest[i + 1] : NULL;
		char *eq = strchr(a, '=');

		if (eq && strchr(eq, ',')) { /* --size=1,2 */
			*eq = '\0';
			const struct opt_def *d = find_flag(s->wl, a);

			if (!d || d->type != OPT_STR) {
				add_param(s, a, eq + 1);
				continue;
			}
			*eq = '=';
		}
		const struct opt_def *d = find_flag(s->wl, a);

		/* A list of values, but for flags whose value is itself a list (--clients-on). */
		if (d && d->type != OPT_BOOL && d->type != OPT_STR && val && strchr(val, ',')) {
			add_param(s, a, val);
			i++;
			continue;
		}
		if (s->nbase < MAX_WORDS - 4)
			s->base[s->nbase++] = a;
	}
	free(rest);
	if (!s->np)
		die_usage("sweep: give at least one flag with a list of values, e.g. --size 100,1000,10000");
}

/* Options of one point (and of B with --compare). */
static void point_opts(struct sweep *s, struct point *pt, bool b, struct opts *o)
{
	char *argv[MAX_WORDS * 2 + 8], err[256];
	int argc = 0;

	for (int i = 0; i < s->nbase; i++)
		argv[argc++] = s->base[i];
	for (int k = 0; k < s->np; k++) {
		argv[argc++] = (char *)s->p[k].flag;
		argv[argc++] = pt->v[k];
	}
	for (int i = 0; b && i < s->nb; i++)
		argv[argc++] = s->bflags[i];
	argv[argc] = NULL;
	opts_defaults(o, s->wl->overrides);
	int ret = opts_parse(s->wl->opts, s->wl->overrides, argc, argv, o, err, sizeof(err));

	if (ret || s->wl->check(o, err, sizeof(err)))
		die_usage("sweep %s: at %s %s%s%s: %s", s->wl->name, s->p[0].flag, pt->v[0],
			  s->np > 1 ? " " : "", s->np > 1 ? pt->v[1] : "", ret == 1 ? "--help" : err);
	o->json = false;
	o->runs = 1;
}

static void make_grid(struct sweep *s)
{
	int n1 = s->p[0].n, n2 = s->np > 1 ? s->p[1].n : 1;

	s->npts = n1 * n2;
	s->pts = xcalloc((size_t)s->npts, sizeof(*s->pts));
	for (int i = 0; i < n1; i++)
		for (int k = 0; k < n2; k++) {
			struct point *pt = &s->pts[k * n1 + i]; /* grouped by the second flag */

			pt->v[0] = s->p[0].values[i];
			pt->v[1] = s->np > 1 ? s->p[1].values[k] : NULL;
		}
}

static double med(const cJSON *sum, const char *key)
{
	return json_path(cJSON_GetObjectItemCaseSensitive(sum, key), "median");
}

static void run_point(struct sweep *s, struct point *pt, int idx, uint64_t t0)
{
	struct opts o[2];
	cJSON *docs[2][MAX_RUNS];
	bool unstable;
	int sides = s->compare ? 2 : 1, total = s->npts * s->runs * sides;
	char what[160];

	point_opts(s, pt, false, &o[0]);
	if (s->compare)
		point_opts(s, pt, true, &o[1]);
	snprintf(what, sizeof(what), "sweep: %s=%s%s%s%s run", s->p[0].flag + 2, pt->v[0],
		 s->np > 1 ? " " : "", s->np > 1 ? s->p[1].flag + 2 : "", s->np > 1 ? "=" : "");
	for (int r = 0; r < s->runs && !run_interrupted(); r++) {
		/* With --compare, A and B in a seeded random order; a round counts when both are
		 * whole runs. */
		int first = s->compare ? (int)(stats_rand(&s->seed) & 1) : 0;
		cJSON *d[2] = {NULL, NULL};
		enum run_status st[2] = {RUN_WHOLE, RUN_WHOLE};
		char why[300];

		for (int k = 0; k < sides && !run_interrupted(); k++) {
			int side = k ? 1 - first : first;

			progress_line(what, NULL, (idx * s->runs + r) * sides + k, total, t0);
			st[side] = run_isolated(s->wl, &o[side], &d[side], why, sizeof(why));
		}
		if (run_interrupted() || st[0] != RUN_WHOLE || st[1] != RUN_WHOLE) {
			pt->left += !run_interrupted();
			cJSON_Delete(d[0]);
			cJSON_Delete(d[1]);
			continue;
		}
		for (int k = 0; k < sides; k++) {
			docs[k][pt->n] = d[k];
			(k ? pt->b_tps : pt->a_tps)[pt->n] = figure_of(d[k], 0);
		}
		pt->n++;
	}
	if (pt->n) {
		pt->a_sum = figures_summary(docs[0], pt->n, &unstable);
		if (s->compare) {
			pt->b_sum = figures_summary(docs[1], pt->n, &unstable);
			stats_paired(pt->a_tps, pt->b_tps, pt->n, LEVEL, &pt->e);
		}
	}
	for (int i = 0; i < pt->n; i++)
		for (int k = 0; k < sides; k++)
			cJSON_Delete(docs[k][i]);
	for (int k = 0; k < sides; k++)
		opts_free(&o[k]);
}

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

/* gnuplot: x = the first flag, one line per value of the second; y = the rate, or B/A. */
static void plot(struct sweep *s)
{
	char dir[] = "/tmp/sockbench-plot-XXXXXX", data[64], script[64];

	if (!mkdtemp(dir))
		die("sweep: mkdtemp: %s", strerror(errno));
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	FILE *d = fopen(data, "we"), *g = fopen(script, "we");
	int n1 = s->p[0].n, n2 = s->np > 1 ? s->p[1].n : 1;

	if (!d || !g)
		die("sweep: cannot write the plot's files in %s", dir);
	for (int k = 0; k < n2; k++) {
		for (int i = 0; i < n1; i++) {
			struct point *pt = &s->pts[k * n1 + i];

			if (!pt->n)
				continue;
			if (s->compare)
				fprintf(d, "%s %.5f %.5f %.5f\n", pt->v[0], pt->e.ratio, pt->e.lo, pt->e.hi);
			else
				fprintf(d, "%s %.3f\n", pt->v[0], med(pt->a_sum, "rate"));
		}
		fprintf(d, "\n\n");
	}
	fclose(d);
	fprintf(g, "set terminal svg size 900,560 dynamic background rgb 'white'\nset output '%s'\n",
		s->plot);
	/* The title says what is drawn and, with --compare, what B is. */
	char axis[96], bdesc[200] = "";
	const struct opt_def *def = find_flag(s->wl, s->p[0].flag);
	size_t o = 0;

	snprintf(axis, sizeof(axis), "%s", s->p[0].flag + 2);
	if (def && def->metavar && *def->metavar) {
		size_t n = strlen(axis);

		snprintf(axis + n, sizeof(axis) - n, " (");
		for (const char *m = def->metavar; *m && strlen(axis) < sizeof(axis) - 2; m++) {
			n = strlen(axis);
			axis[n] = (char)(*m >= 'A' && *m <= 'Z' ? *m - 'A' + 'a' : *m);
			axis[n + 1] = '\0';
		}
		strcat(axis, ")");
	}
	for (int i = 0; i < s->nb && o < sizeof(bdesc) - 1; i++)
		o += (size_t)snprintf(bdesc + o, sizeof(bdesc) - o, " %s", s->bflags[i]);
	for (char *c = bdesc; *c; c++)
		if (*c == '\'' || *c == '"' || *c == '\\')
			*c = ' ';
	if (s->compare)
		fprintf(g, "set title \"sockbench sweep %s: rate of B / rate of A at each %s (geometric "
			   "mean of %d paired runs, 95%% interval)\\nA: the flags given; B: A plus%s\"\n",
			s->wl->name, s->p[0].flag + 2, s->runs, bdesc);
	else
		fprintf(g, "set title \"sockbench sweep %s: median %ss per second at each %s (%d run%s a "
			   "point)\"\n", s->wl->name, s->wl->unit, s->p[0].flag + 2, s->runs,
			s->runs > 1 ? "s" : "");
	fprintf(g, "set xlabel '%s'\nset ylabel '%s%s'\nset grid lc rgb '#dddddd'\n", axis,
		s->compare ? "rate, B / A" : s->wl->unit, s->compare ? "" : "s/s (median)");
	fprintf(g, "set key outside right\n");
	/* The x axis spans the data with a margin, so the end points and their bars are whole;
	 * y starts at 0 (rates and ratios are not negative). */
	double lo = INFINITY, hi = -INFINITY;

	for (int i = 0; i < s->p[0].n; i++) {
		double v = atof(s->p[0].values[i]);

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if (spans_decades(&s->p[0]))
		fprintf(g, "set logscale x\nset xrange [%g:%g]\n", lo / 1.25, hi * 1.25);
	else if (hi > lo)
		fprintf(g, "set xrange [%g:%g]\n", lo - (hi - lo) * 0.06, hi + (hi - lo) * 0.06);
	fprintf(g, "set yrange [0:*]\n");
	fprintf(g, "plot ");
	for (int k = 0; k < n2; k++) {
		char title[80];

		if (s->np > 1)
			snprintf(title, sizeof(title), "%s=%s", s->p[1].flag + 2, s->p[1].values[k]);
		else
			snprintf(title, sizeof(title), "%s", s->compare ? "B/A" : "A");
		if (s->compare)
			fprintf(g, "%s'%s' index %d using 1:2:3:4 with yerrorlines title '%s'", k ? ", " : "",
				data, k, title);
		else
			fprintf(g, "%s'%s' index %d using 1:2 with linespoints title '%s'", k ? ", " : "",
				data, k, title);
	}
	if (s->compare)
		fprintf(g, ", 1 with lines dashtype 2 lw 2 lc rgb '#b2182b' title 'no difference (B/A = 1)'");
	fprintf(g, "\n");
	fclose(g);
	int e = run_gnuplot(script);

	unlink(data);
	unlink(script);
	rmdir(dir);
	if (e == -ENOENT)
		die("sweep: gnuplot is not installed (apt-get install gnuplot-nox): no plot written");
	if (e)
		die("sweep: gnuplot failed to write %s", s->plot);
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

int cmd_sweep(int argc, char **argv)
{
	struct sweep *s;
	struct opts check;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf("usage: sockbench sweep WORKLOAD --FLAG v1,v2,... [--FLAG2 w1,w2,...] [flags]\n"
		       "       [--runs N] [--csv FILE] [--plot FILE.svg] [--json] [--compare 'B flags']\n"
		       "Runs every point of the grid --runs times (default 3) and prints the medians; "
		       "--compare adds B's flags at each point and reports B/A.\n");
		return argc < 2 ? 2 : 0;
	}
	s = xcalloc(1, sizeof(*s));
	s->wl = workload_or_exit("sweep", argv[1]);
	sweep_args(s, argc - 2, argv + 2);
	char *bcopy = s->compare ? xstrdup(s->compare) : NULL;

	if (bcopy)
		s->nb = split_words(bcopy, s->bflags, MAX_WORDS);
	/* --runs from the flags (default 3 for a sweep). */
	workload_parse_or_exit(s->wl, s->nbase, s->base, &check);
	s->runs = OPT_IS_SET(&check, runs) ? (int)check.runs : 3;
	/* Output paths before the first run, not after the last. */
	const char *outs[][2] = {{"--csv", s->csv}, {"--plot", s->plot}};

	for (size_t i = 0; i < ARRAY_SIZE(outs); i++) {
		int e = outs[i][1] ? output_writable(outs[i][1]) : 0;

		if (e)
			die_usage("sweep: %s %s: %s", outs[i][0], outs[i][1], strerror(-e));
	}
	s->seed = now_ns() | 1;
	opts_free(&check);
	make_grid(s);
	for (int i = 0; i < s->npts; i++) { /* every point is valid before the first run */
		struct opts o;

		point_opts(s, &s->pts[i], false, &o);
		opts_free(&o);
	}
	uint64_t t0 = now_ns();

	run_signals_keep();
	out_noise_warnings(stderr);
	for (int i = 0; i < s->npts && !run_interrupted(); i++)
		run_point(s, &s->pts[i], i, t0);
	progress_clear();
	if (s->json) {
		sweep_json(s);
	} else {
		printf("sockbench sweep %s: %d point%s x %d runs%s%s (medians)\n\n", s->wl->name, s->npts,
		       s->npts > 1 ? "s" : "", s->runs, s->compare ? ", B = A + " : "",
		       s->compare ? s->compare : "");
		write_row(stdout, s, NULL, "\t", true);
		for (int i = 0; i < s->npts; i++)
			if (s->pts[i].n)
				write_row(stdout, s, &s->pts[i], "\t", false);
	}
	if (s->csv) {
		FILE *f = fopen(s->csv, "we");

		if (!f)
			die("sweep: --csv %s: %s", s->csv, strerror(errno));
		write_row(f, s, NULL, ",", true);
		for (int i = 0; i < s->npts; i++)
			if (s->pts[i].n)
				write_row(f, s, &s->pts[i], ",", false);
		fclose(f);
	}
	if (s->plot)
		plot(s);
	if (run_interrupted())
		fprintf(stderr, "sockbench: sweep interrupted: the points above are what was measured\n");
	for (int i = 0; i < s->npts; i++) {
		cJSON_Delete(s->pts[i].a_sum);
		cJSON_Delete(s->pts[i].b_sum);
	}
	free(s->pts);
	free(s->csv);
	free(s->plot);
	free(s->compare);
	free(s);
	free(bcopy);
	return 0;
}
