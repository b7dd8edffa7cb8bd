/* explore_priv.h: what explore.c (planning, running, analysis) and explore_report.c (the table
 * and the JSON document) share. Not for use outside multi/. */
#ifndef SB_EXPLORE_PRIV_H
#define SB_EXPLORE_PRIV_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/opts.h"
#include "multi/stats.h"
#include "report/figures.h"
#include "run/run.h"
#include "workload/workload.h"

#define MAX_CONFIGS 32
#define MAX_ARGS 96
#define MAX_ROUNDS 32
#define RUN_OVERHEAD_S 0.25 /* a child process, the agent and the clients, handshakes: planned;
			     * each round then refits to what the runs so far took */
#define MIN_RUN_S 0.15
#define MIN_ROUNDS 3	    /* fewer than this and no budget is enough */
#define WARMUP_S 0.15
#define MIN_GAIN STATS_MIN_GAIN
#define DEFAULT_BUDGET 180
#define WHY_SHOWN 3 /* faster strategies explained in the table (all in --json) */
#define WHY_ROWS 6  /* syscalls and functions shown for each */

/* One run of a configuration, in its round. */
struct sample {
	enum run_status status; /* only whole runs are samples */
	char why[200];		/* a partial or failed run: why */
	double fig[NFIGURES];  /* every figure of the run (report/figures.h) */
	cJSON *doc;	       /* the run's result, kept with --profile */
};

struct config {
	const char *name;
	const char *group;
	char flags[200];	/* the strategy's flags ("" for the baseline) */
	bool changes;		/* it changes the workload: shown apart */
	struct opts o;
	int nsamples;		/* rounds it ran in */
	struct sample s[MAX_ROUNDS];
	/* analysis */
	struct paired e;	/* against the baseline runs of the same rounds */
	double tps, spread;
	int pairs, whole, partial, failed;
	enum verdict verdict;
	bool few;     /* fewer than 2 pairs: no verdict */
	bool reject;  /* Holm: significant within the family's 5% */
	double level; /* the confidence Holm held it to */
	int needed;   /* runs that would show a difference this size, or -1 */
	bool analysed;
};

struct explore {
	const struct workload *wl;
	long rounds;
	uint64_t seed; /* of the run order */
	bool rounds_given, list, kernel;
	double budget, run_s;
	double run_s_planned; /* before any refit */
	double overhead_s;    /* a run's wall time beyond its warm-up and window, measured */
	double wall_s;	      /* the runs' wall time so far */
	double planned_s;     /* their warm-ups and windows so far */
	int nconf;
	struct config conf[MAX_CONFIGS];
	struct config combo; /* the best combination, paired with baseline runs of its own */
	struct sample combo_base[MAX_ROUNDS];
	int ncombo;
	char order[MAX_ROUNDS * MAX_CONFIGS * 3]; /* each round's order, as config indexes */
	const char *skipped_name[MAX_CONFIGS];
	char skipped_why[MAX_CONFIGS][240];
	const char *skipped_flags[MAX_CONFIGS];
	int nskipped;
	int runs_done, runs_total;
	uint64_t t0;
	bool json;
};

/* explore_plan.c: the baseline and every strategy that applies, each run fitted to the
 * budget (exits 2 on a bad flag or a budget too short); --list's lines. */
void explore_plan(struct explore *x, char **user, int nuser);
void explore_list(const struct explore *x);
/* Parse the user's flags plus extra (a strategy's); 0, or -EINVAL with the reason in err. */
int explore_parse_config(const struct workload *wl, char **user, int nuser, const char *extra,
			 struct opts *o, char *err, size_t errlen);
/* Every run the same length, fitted to the budget (a count-based workload made time-based). */
void explore_fit_run(const struct explore *x, struct opts *o);

/* explore_verdict.c: the rates of c and of the baseline in the rounds where both runs were
 * whole (a round with a partial or failed run on either side is no pair): how many. */
int explore_pairs(const struct config *c, const struct sample *base, int nbase, double *a,
		  double *b);
/* c against the baseline runs of the same rounds, at 95% on its own. */
void explore_analyse(struct config *c, const struct sample *base, int nbase);
/* Every strategy analysed, Holm over them (one 5% family); ranked best first, and those that
 * change the workload apart. */
void explore_judge(struct explore *x, struct config **ranked, int *n, struct config **apart,
		   int *napart);
/* The best combination of those found faster (one per group, flags that go together) into
 * x->combo: false when fewer than two go together. */
bool explore_plan_combination(struct explore *x, char **user, int nuser, struct config **ranked,
			      int nranked);

/* explore_report.c: the ranking, best first (ranked), the strategies shown apart, and
 * whether the best combination was measured. */
void explore_print_table(struct explore *x, struct config **ranked, int n, struct config **apart,
			 int napart, bool have_combo);
void explore_print_json(struct explore *x, struct config **ranked, int n, struct config **apart,
		int napart, bool have_combo);

#endif
