/* repeat.h: the figures of a result, and repeated runs (--runs N) with their statistics. */
#ifndef SB_REPEAT_H
#define SB_REPEAT_H

#include <stdbool.h>
#include <stdint.h>

#include "run/run.h"
#include "workload/workload.h"

struct cJSON;

/* A figure of a result, read from its JSON document by path ("sides.client.sys_s"). */
struct figure_def {
	const char *key;   /* its name in summaries and CSV */
	const char *label; /* for tables; a %s stands for the workload's unit */
	const char *path;  /* in the result document */
	const char *alt;   /* where documents of older versions had it, or NULL */
	bool higher_better;
};

extern const struct figure_def figures[];
extern const int nfigures;

/* The key of figure f in compare's and sweep's output: the rate is "transactions_per_s" for
 * the workloads that count transactions (as it always was), "rate" for the others. */
const char *figure_key(int f, const struct workload *wl);
/* The label of figure f for a workload ("transactions/s", "megabytes/s"). */
const char *figure_label(int f, const struct workload *wl, char *buf, size_t len);
/* Figure f of a result document, or NAN. */
double figure_of(const struct cJSON *doc, int f);
/* The value at a dotted path of a JSON document, or NAN when absent or not a number. */
double json_path(const struct cJSON *doc, const char *path);
/* Every figure of one result document into out[nfigures] (NAN where the workload has none). */
void figures_of(const struct cJSON *doc, double *out);
/* A JSON object of every figure's median, min, max, stddev and 95% interval of the median,
 * over n documents (caller frees). Sets *unstable when the rate's spread is too wide. */
struct cJSON *figures_summary(struct cJSON *const *docs, int n, bool *unstable);

/* Progress on stderr when it is a terminal: "what i/n, elapsed, ~left". */
void progress_line(const char *what, int i, int n, uint64_t t0);
void progress_clear(void);

/* A run left out of the samples, and why. */
struct left_out {
	int run;	  /* 1-based, in the order made */
	const char *side; /* compare: "A" or "B"; explore: the strategy; or NULL */
	enum run_status status;
	char why[300];
};
/* "2 of 10 runs were partial and left out (first: ...)", a line on stdout (nothing if none). */
void print_left_out(const struct left_out *lo, int nlo, int total);
/* The same as a JSON array of {run, side, status, reason} (caller frees). */
struct cJSON *left_out_json(const struct left_out *lo, int nlo);

/* `WORKLOAD --runs N`: N runs, then the summary (table, or JSON with every run). Returns the
 * exit code. */
int repeat_runs(const struct workload *wl, const struct opts *o);

#endif
