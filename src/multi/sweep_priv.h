/* sweep_priv.h: a sweep's grid and its points, shared by sweep.c (the runs) and sweep_out.c
 * (the table, CSV, JSON and plot). */
#ifndef SB_SWEEP_PRIV_H
#define SB_SWEEP_PRIV_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "multi/repeat.h"
#include "multi/stats.h"
#include "report/figures.h"
#include "workload/workload.h"

#define MAX_WORDS 64
#define MAX_RUNS 1000
#define LEVEL 0.95
#define MAX_PARAMS 2
#define MAX_VALUES 32

struct param {
	const char *flag; /* "--size" */
	char *values[MAX_VALUES];
	char num[MAX_VALUES][32]; /* a value given with a unit, as the number that runs */
	int n;
};

struct point {
	char *v[MAX_PARAMS];
	struct opts o[2]; /* A's options, and B's with --compare */
	double a_tps[MAX_RUNS], b_tps[MAX_RUNS];
	cJSON **docs[2]; /* the whole rounds' results, until summarised */
	int n;		 /* whole rounds (pairs, with --compare) */
	cJSON *a_sum, *b_sum;
	struct paired e;     /* with --compare: B/A (an interval from 2 pairs on) */
	int left;	     /* rounds left out (a run partial or failed) */
	struct left_out *lo; /* each partial or failed run, and why */
	int nlo;
};

/* A point none of whose rounds was whole: it stays in every output, marked failed. */
static inline bool point_failed(const struct point *pt)
{
	return !pt->n;
}

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
	uint64_t seed; /* of the order of every round (points, and A/B with --compare) */
	char *order;   /* each round's order of the points, as their indexes ("2,0,1 1,2,0") */
	int done, total; /* runs made, and to make */
	uint64_t t0;
};

static inline const struct opt_def *find_flag(const struct workload *wl, const char *flag)
{
	if (strncmp(flag, "--", 2))
		return NULL;
	for (const struct opt_def *d = wl->opts; d->name; d++)
		if (!strcmp(d->name, flag + 2))
			return d;
	return NULL;
}

static inline double med(const cJSON *sum, const char *key)
{
	return json_path(cJSON_GetObjectItemCaseSensitive(sum, key), "median");
}

/* The table (or --json) on standard output, then --csv and --plot: 0, or 1 when an output
 * failed or a point's every round did (said on stderr; a file output is whole or left as it
 * was). */
int sweep_write(struct sweep *s);

#endif
