/* sweep.c: `sweep`: a grid of flag values (any numeric flags, one or two with lists), run in
 * --runs rounds, each round every point once in an order drawn from the seed, written as a
 * table, CSV, JSON and a gnuplot SVG; with --compare it sweeps A and B (in a drawn order at
 * each point, paired) and plots the ratio B/A per point: where a difference narrows or widens.
 * This file parses and runs the grid; sweep_out.c writes what it measured.
 */

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "base/util.h"
#include "multi/repeat.h"
#include "multi/stats.h"
#include "multi/sweep_priv.h"
#include "multi/wl_help.h"
#include "report/out.h"

#define SWEEP_RUNS 3 /* rounds unless --runs says */

static void add_param(struct sweep *s, const char *flag, char *list)
{
	const struct opt_def *d = find_flag(s->wl, flag);
	struct param *p = &s->p[s->np];

	if (!d || (d->type != OPT_INT && d->type != OPT_DBL))
		die_usage("sweep: %s is not a numeric flag of %s", flag, s->wl->name);
	if (s->np == MAX_PARAMS)
		die_usage("sweep: at most %d flags with lists of values", MAX_PARAMS);
	p->flag = flag;
	for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
		char err[512];
		double v;

		if (p->n == MAX_VALUES)
			continue;
		if (opts_number(d, t, &v, err, sizeof(err)))
			die_usage("sweep: %s", err);
		/* 64K: the table, CSV and JSON give the number that ran, 65536, not atof's 64 */
		snprintf(p->num[p->n], sizeof(p->num[p->n]), "%.15g", v);
		p->values[p->n] = strcmp(p->num[p->n], t) ? p->num[p->n] : t;
		p->n++;
	}
	if (!p->n)
		die_usage("sweep: %s has no values", flag);
	s->np++;
}

/* sweep's own flags; the other words are the workload's, some with lists of values. */
const struct opt_def sweep_flags[] = {
	{OWN_FLAG(STR, struct sweep, csv, "csv", 0, 0, "FILE",
		  "write the medians as CSV: a row per point")},
	{OWN_FLAG(STR, struct sweep, plot, "plot", 0, 0, "FILE.svg",
		  "draw the medians (gnuplot): x the first flag, a line per value of the second; "
		  "with --compare, B/A with its interval")},
	{OWN_FLAG(STR, struct sweep, compare, "compare", 0, 0, "'B flags'",
		  "B: the same point plus these flags, run beside A at every point in a drawn order; "
		  "reports B/A")},
	{OWN_FLAG(BOOL, struct sweep, json, "json", 0, 1, "",
		  "print one JSON document instead of the table")},
	{OWN_FLAG(U64, struct sweep, seed, "seed", 1, 0, "N", "of the order of points in a round"),
	 .shown = "a fresh one, printed"},
	{0},
};

static const struct cmd_usage sweep_usage = {
    .cmd = "sweep",
    .args = "WORKLOAD --FLAG v1,v2,... [--FLAG2 w1,w2,...] [flags]",
    .more = "[--runs N]",
    .summary = "Runs the grid in --runs rounds (default " STRINGIFY(SWEEP_RUNS) "), each round every point once in an "
	       "order drawn from --seed, and prints the medians; --compare adds B's flags at each "
	       "point, runs A and B in a drawn order, and reports B/A. A point whose every round "
	       "failed is shown failed: exit 1.",
};

/* Split sweep's own flags, the swept ones (a value with a comma) and the rest. */
static void sweep_args(struct sweep *s, int argc, char **argv)
{
	char **rest = xcalloc((size_t)argc + 1, sizeof(char *)), err[512];
	int n;

	n = opts_take(sweep_flags, s, &(struct opts_words){argc, argv}, rest, err, sizeof(err));
	if (n < 0)
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
	char *argv[MAX_WORDS * 2 + 8], err[512];
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
	int ret = opts_parse(s->wl->opts, s->wl->overrides, &(struct opts_words){argc, argv}, o,
			     err, sizeof(err));

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

/* One round of one point: A (and B, in an order drawn from the seed); kept when every run of
 * it was whole, else left out with each run's reason. */
static void run_round(struct sweep *s, struct point *pt, int round, uint64_t *st)
{
	int sides = s->compare ? 2 : 1, first = s->compare ? (int)(stats_rand(st) & 1) : 0;
	cJSON *d[2] = {NULL, NULL};
	enum run_status rs[2] = {RUN_WHOLE, RUN_WHOLE};
	char what[160], why[2][300];

	snprintf(what, sizeof(what), "sweep: %s=%s%s%s%s%s run", s->p[0].flag + 2, pt->v[0],
		 s->np > 1 ? " " : "", s->np > 1 ? s->p[1].flag + 2 : "", s->np > 1 ? "=" : "",
		 s->np > 1 ? pt->v[1] : "");
	for (int k = 0; k < sides && !run_interrupted(); k++) {
		int side = k ? 1 - first : first;

		progress_line(what, NULL, s->done++, s->total, s->t0);
		rs[side] = run_isolated(s->wl, &pt->o[side], &d[side], why[side], sizeof(why[0]));
	}
	if (run_interrupted() || rs[0] != RUN_WHOLE || rs[1] != RUN_WHOLE) {
		for (int k = 0; k < sides && !run_interrupted(); k++) {
			if (rs[k] == RUN_WHOLE)
				continue;
			struct left_out *l = &pt->lo[pt->nlo++];

			*l = (struct left_out){.run = round * sides + 1 + (k != first), .status = rs[k],
					       .side = s->compare ? (k ? "B" : "A") : NULL};
			snprintf(l->why, sizeof(l->why), "%.299s", why[k]);
		}
		pt->left += !run_interrupted();
		cJSON_Delete(d[0]);
		cJSON_Delete(d[1]);
		return;
	}
	for (int k = 0; k < sides; k++) {
		pt->docs[k][pt->n] = d[k];
		(k ? pt->b_tps : pt->a_tps)[pt->n] = figure_of(d[k], 0);
	}
	pt->n++;
}

/* Rounds: each runs every point once, in an order drawn afresh from the seed (so drift over
 * the sweep is noise spread over the points, not a slope along the swept flag). */
static void run_rounds(struct sweep *s)
{
	uint64_t st = stats_seed_state(s->seed, 0);
	int *ord = xcalloc((size_t)s->npts, sizeof(int));
	size_t cap = (size_t)s->npts * (size_t)s->runs * 12 + 1, len = 0;

	s->order = xcalloc(cap, 1);
	s->total = s->npts * s->runs * (s->compare ? 2 : 1);
	s->t0 = now_ns();
	for (int r = 0; r < s->runs && !run_interrupted(); r++) {
		stats_shuffle(ord, s->npts, &st);
		for (int i = 0; i < s->npts; i++)
			len += (size_t)snprintf(s->order + len, cap - len, "%s%d",
						i ? "," : r ? " " : "", ord[i]);
		for (int i = 0; i < s->npts && !run_interrupted(); i++)
			run_round(s, &s->pts[ord[i]], r, &st);
	}
	free(ord);
}

/* A point's summaries and B/A, then its results freed. */
static void summarise(struct sweep *s, struct point *pt)
{
	bool unstable;
	int sides = s->compare ? 2 : 1;

	if (pt->n) {
		pt->a_sum = figures_summary(pt->docs[0], pt->n, &unstable);
		if (s->compare) {
			pt->b_sum = figures_summary(pt->docs[1], pt->n, &unstable);
			stats_paired(pt->a_tps, pt->b_tps, pt->n, LEVEL, &pt->e);
		}
	}
	for (int k = 0; k < sides; k++) {
		for (int i = 0; i < pt->n; i++)
			cJSON_Delete(pt->docs[k][i]);
		free(pt->docs[k]);
		opts_free(&pt->o[k]);
	}
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep *s;
	struct opts check;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		opts_usage_cmd(sweep_flags, &sweep_usage, stdout);
		return argc < 2 ? 2 : 0;
	}
	s = xcalloc(1, sizeof(*s));
	s->wl = workload_or_exit("sweep", argv[1]);
	wl_help_or_return("sweep", s->wl, argc - 2, argv + 2);
	sweep_args(s, argc - 2, argv + 2);
	char *bcopy = s->compare ? xstrdup(s->compare) : NULL;

	if (bcopy)
		s->nb = split_words(bcopy, s->bflags, MAX_WORDS);
	/* --runs from the flags (a sweep's own default). */
	workload_parse_or_exit(s->wl, s->nbase, s->base, &check);
	s->runs = OPT_IS_SET(&check, runs) ? (int)check.runs : SWEEP_RUNS;
	/* Output paths before the first run, not after the last. */
	const char *outs[][2] = {{"--csv", s->csv}, {"--plot", s->plot}};

	for (size_t i = 0; i < ARRAY_SIZE(outs); i++) {
		int e = outs[i][1] ? output_writable(outs[i][1]) : 0;

		if (e)
			die_usage("sweep: %s %s: %s", outs[i][0], outs[i][1], outfile_strerror(e));
	}
	if (!s->seed)
		s->seed = fresh_seed();
	opts_free(&check);
	make_grid(s);
	for (int i = 0; i < s->npts; i++) { /* every point is valid before the first run */
		struct point *pt = &s->pts[i];

		for (int k = 0; k < (s->compare ? 2 : 1); k++) {
			point_opts(s, pt, k, &pt->o[k]);
			pt->docs[k] = xcalloc((size_t)s->runs, sizeof(cJSON *));
		}
		pt->lo = xcalloc((size_t)s->runs * 2, sizeof(*pt->lo));
	}
	run_signals_keep();
	out_noise_warnings(stderr);
	run_rounds(s);
	progress_clear();
	for (int i = 0; i < s->npts; i++)
		summarise(s, &s->pts[i]);
	int rc = sweep_write(s);

	if (run_interrupted())
		fprintf(stderr, "sockbench: sweep interrupted: the points above are what was measured\n");
	for (int i = 0; i < s->npts; i++) {
		cJSON_Delete(s->pts[i].a_sum);
		cJSON_Delete(s->pts[i].b_sum);
		free(s->pts[i].lo);
	}
	free(s->pts);
	free(s->csv);
	free(s->plot);
	free(s->compare);
	free(s->order);
	free(s);
	free(bcopy);
	return rc;
}
