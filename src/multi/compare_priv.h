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
	char word[96];
	int needed;	/* the primary: pairs a difference this size needs (80% power), or -1 */
	bool primary;	/* the figure that carries the headline, at LEVEL on its own p */
	double p_adj;	/* the others: Holm-adjusted within their family (the primary: its p) */
	bool judged;	/* the primary; the others when the primary's difference is significant */
};

/* How the verdicts of a comparison were made: which figure is primary (its row, or -1 when it
 * has none), and whether the family of the others was judged. */
struct verdict_plan {
	int primary_fig; /* report/figures.h id */
	int primary_row;
	int family;	 /* figures in the family (those with a ratio) */
	bool gate;	 /* the primary's difference is significant: the family is judged */
};

/* Every figure of A against B (paired: live rounds) into rows; returns how many. The
 * primary's verdict at LEVEL, the others' with Holm's correction behind it (stats.h). */
int compare_rows(struct side *a, struct side *b, bool paired, struct verdict_row *rows,
		 struct verdict_plan *plan);
/* The figure a --primary names (its key, as in --json, or its report/figures.h key), or -1. */
int compare_figure_named(const char *name, const struct workload *wl);
/* "rate, latency_p50_us, ...": the names of wl's figures, for the error of a wrong one. */
void compare_figure_names(const struct workload *wl, char *buf, size_t len);

/* How a live comparison went: its order, and what was left out. */
struct compare_log {
	uint64_t seed;
	char order[2 * MAX_RUNS + MAX_RUNS + 1]; /* "AB BA ...": each round's order */
	struct left_out lo[2 * MAX_RUNS];
	int nlo, rounds, asked;
	bool partial; /* interrupted */
};

struct moved_set;
struct stage_moved;
/* What compare's report prints: the verdict rows of A against B (paired: live rounds; else
 * two files) and how they were made, where the time moved (mv, or why not), how a live
 * comparison went (lg, or NULL) and where the wait moved (sm: --trace on both sides, or
 * NULL). */
struct compare_report {
	const struct side *a, *b;
	bool paired;
	const struct verdict_row *rows;
	int n;
	const struct verdict_plan *plan;
	const struct moved_set *mv;
	const char *mv_why;
	const struct compare_log *lg;
	const struct stage_moved *sm;
};

/* The report, as a table or as JSON. */
void compare_print(const struct compare_report *cr, bool json);

#endif
