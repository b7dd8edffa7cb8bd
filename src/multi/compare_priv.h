/* compare_priv.h: what compare.c (the runs and the statistics) and compare_report.c (the
 * table and the JSON document) share. Not for use outside multi/. */
#ifndef SB_COMPARE_PRIV_H
#define SB_COMPARE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "base/opts.h"
#include "multi/repeat.h"
#include "multi/stats.h"
#include "report/figures.h"
#include "workload/workload.h"

struct cJSON;

#define MAX_WORDS 64
#define MAX_RUNS 1000
#define MIN_GAIN STATS_MIN_GAIN
#define LEVEL 0.95

struct side {
	const struct workload *wl;
	char label[300];
	struct opts o;
	bool have_opts;
	struct cJSON *file;	    /* the parsed file, when read from one */
	struct cJSON *docs[MAX_RUNS];
	int n;
};

struct verdict_row {
	int f;
	struct paired e;
	bool ratio_ok; /* enough runs with both values above 0 for a ratio */
	double a, b;   /* geometric means (medians where there is no ratio) */
	const char *word;
	int needed; /* runs a difference this size would need, or -1 */
};

/* How a live comparison went: its order, and what was left out. */
struct compare_log {
	uint64_t seed;
	char order[2 * MAX_RUNS + MAX_RUNS + 1]; /* "AB BA ...": each round's order */
	struct left_out lo[2 * MAX_RUNS];
	int nlo, rounds, asked;
	bool partial; /* interrupted */
};

struct moved_set;
/* The verdict rows of A against B (paired: live rounds; else two files), as a table or as
 * JSON, with where the time moved (mv, or why not) and how a live comparison went (lg). */
void compare_print(struct side *a, struct side *b, bool paired, struct verdict_row *rows, int n,
		   bool json, const struct moved_set *mv, const char *mv_why,
		   const struct compare_log *lg);

#endif
