/* repeat.h: repeated runs (--runs N) with their statistics, the progress line and the
 * runs left out, which every command of many runs shares.
 * It sits above run/ (which never calls back into it) and below cli/.
 */
#ifndef SB_REPEAT_H
#define SB_REPEAT_H

#include <stdbool.h>
#include <stdint.h>

#include "report/figures.h"
#include "run/run.h"
#include "workload/workload.h"

struct cJSON;

/* A JSON object of every figure's median, min, max, stddev and 95% interval of the median,
 * over n documents (caller frees). Sets *unstable when the rate's spread is too wide. */
struct cJSON *figures_summary(struct cJSON *const *docs, int n, bool *unstable);

/* Progress on stderr when it is a terminal: "what i/n [label], elapsed, ~left" (label may be
 * NULL); i runs of n are done, since t0. */
void progress_line(const char *what, const char *label, int i, int n, uint64_t t0);
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

/* One difference between two environments (measure/env.h), and whether it is the subject
 * of the comparison (a sysctl that a --sysctl of either side set). */
#define ENV_ROWS 64
struct env_row {
	char path[160], a[160], b[160];
	bool subject;
};
/* The differences between the environments of two result documents, the window's steal time
 * left out (it is a measurement, not a setting); subject keys from either document's
 * config.sysctl. Returns how many (at most max are kept). */
int env_rows(const struct cJSON *doc_a, const struct cJSON *doc_b, struct env_row *rows, int max);
/* Whether the environment changed between the first of n documents and any later one: rows
 * get the first change found (b: the later value) and *at the 1-based document it was seen
 * in. Returns how many rows. */
int env_changes(struct cJSON *const *docs, int n, struct env_row *rows, int max, int *at);
/* Those changes as a WARNING line on stdout (whose: "" or " of A"; nothing when n is 0). */
void print_env_changes(const char *whose, const struct env_row *rows, int n, int at);
/* The rows as a JSON array of {path, a, b, subject} (caller frees). */
struct cJSON *env_rows_json(const struct env_row *rows, int n);

/* `WORKLOAD --runs N`: N runs, then the summary (table, or JSON with every run). Returns the
 * exit code. */
int repeat_runs(const struct workload *wl, const struct opts *o);

#endif
