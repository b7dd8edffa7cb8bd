/* sweep.c: `sweep`: a grid of flag values (any numeric flags, one or two with lists), each
 * point --runs times, written as a table, CSV, JSON and a gnuplot SVG; with --compare it
 * sweeps A and B and plots the ratio B/A per point: where a difference narrows or widens.
 * This file parses and runs the grid; sweep_out.c writes what it measured.
 */

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "multi/repeat.h"
#include "multi/stats.h"
#include "multi/sweep_priv.h"
#include "report/out.h"

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
	int rc = sweep_write(s);

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
	return rc;
}
