/* explore_priv.h: what explore.c (running the phases), explore_plan.c, explore_verdict.c,
 * explore_search.c (the forward search), explore_report.c and explore_path.c (the table and
 * the JSON document) share. Not for use outside multi/. */
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
/* --trace's own, beyond that: loading its BPF programs (the kernel checks them: some 40 ms of
 * bpf calls) and letting them go (5 ms): about 0.05 s a run measured here, planned with room
 * for a busy machine. */
#define TRACE_OVERHEAD_S 0.2
#define MIN_RUN_S 0.15
#define MIN_ROUNDS 3	    /* fewer than this and no budget is enough */
#define WARMUP_S 0.15
#define MIN_GAIN STATS_MIN_GAIN
#define DEFAULT_BUDGET 180
#define WHY_SHOWN 3 /* faster strategies explained in the table (all in --json) */
#define WHY_ROWS 6  /* syscalls and functions shown for each */

/* The error budget of an exploration: one 5% for every claim of a gain, split in three. The
 * screen's verdicts are one Holm family at SCREEN_ALPHA; the search's steps' verdicts share
 * SEARCH_ALPHA, step k's at SEARCH_ALPHA / 2^k (so any number of steps stays within it); the
 * final configuration's verdict against the baseline, on fresh runs, is held to FINAL_LEVEL.
 * A step *keeps* its leader on weaker evidence than a verdict (KEEP_LEVEL): keeping is the
 * search's choice of where to go next, not a claim; the claim about where it ended is the
 * final comparison's (docs/analysis.md, "the search"). */
#define SCREEN_ALPHA (STATS_ALPHA / 2)
#define SEARCH_ALPHA (STATS_ALPHA / 4)
#define FINAL_LEVEL (1 - STATS_ALPHA / 4)
/* A step keeps its leader when the confirmation's gain is at least MIN_GAIN and its interval
 * at KEEP_LEVEL lies above 1: four chances in five, one-sided, that it helps. A leader that
 * changes nothing is kept at most one step in five; one that helps 25% with this machine's
 * run-to-run spread (0.2 of the log) nearly always, where a verdict at the step's level
 * misses it most of the time (tests/unit/test_explore_noisy.c). */
#define KEEP_LEVEL 0.60
/* The screen in two stages: after its first third of the rounds, a strategy whose interval at
 * DROP_LEVEL lies wholly below 1 is clearly slower and runs no more (its verdict is judged on
 * the rounds it ran, in the same Holm family); its runs go to the search. A strategy no slower
 * than the baseline is dropped by chance at most (1 - DROP_LEVEL) / 2 of the time. */
#define DROP_LEVEL 0.99
/* A configuration whose runs spread more than the others' (an F test of its log rates'
 * variance against the others' pooled), at UNSTEADY_ALPHA for all the screen's configurations
 * together (Bonferroni), with at least UNSTEADY_MIN_RUNS whole runs: its rate is decided run by
 * run by something beyond the machine's noise (where the kernel puts its threads). */
#define UNSTEADY_ALPHA 0.01
#define UNSTEADY_MIN_RUNS 4
#define MAX_STEPS 8
#define MAX_PHASES (MAX_STEPS + 2)

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
	char flags[400];	/* the strategy's flags ("" for the baseline); in the search and the
				 * final, every strategy's of the configuration */
	const char *added;	/* in the search: the strategy it adds (its own flags) */
	const char *added_name; /* ... and its name */
	const char *replaces;	/* ... and, a swap, the kept strategy of its group it takes the
				 * place of (NULL: it adds a group); name is then label */
	char label[200];
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
	int dropped; /* the screen stopped it after this many rounds: clearly slower (0: not) */
	double drop_hi; /* then: the upper end of its DROP_LEVEL interval */
	/* The screen's runs: the spread of its log rates against the other configurations'
	 * (explore_unsteady); unsteady when larger beyond UNSTEADY_ALPHA. */
	bool unsteady;
	bool spread_tested;
	double sd_log, others_sd_log, unsteady_p;
};

struct explore;
struct moved_set;

/* One step of the forward search: selection rounds of the current best and every candidate
 * (each strategy of another group that goes with it), then the leader confirmed against the
 * current best in fresh rounds of their own. */
struct search_step {
	int ncand;
	struct config *sel;  /* [0] the current best, then the candidates */
	struct config *conf; /* [0] the current best, [1] the leader: the confirmation */
	int sel_rounds, conf_rounds;
	int leader;	     /* index in sel, or -1: no candidate gained MIN_GAIN (a lone
			      * candidate is the leader without selection rounds) */
	double alpha;	     /* this step's share of SEARCH_ALPHA */
	bool ran;	     /* the budget had room for it */
	bool kept;	     /* the leader helped (KEEP_LEVEL): the path goes on from it */
	bool confirmed;	     /* and the confirmation's verdict at the step's level is "faster" */
	struct paired keep;  /* the confirmation at KEEP_LEVEL, which decided */
	int left_out;	     /* candidates the budget left out (the screen's lowest-ranked) */
	int runner_up_of;    /* > 0: this step confirms the runner-up of that step's selection
			      * (whose leader was not kept); no selection rounds of its own */
	const struct config *plan_from; /* the runner-up as that selection saw it (its plan) */
	char flags[400];     /* the configuration after the step (the current best's if not kept) */
	char names[400];
};

struct search {
	int start;	    /* index in conf of the screen's best it started from; 0: the baseline */
	bool start_unconfirmed;	 /* not found faster by the screen: its best-looking strategy, */
	struct paired start_keep; /* kept at KEEP_LEVEL on the screen's runs (this) */
	int nsteps;
	struct search_step step[MAX_STEPS];
	char flags[400], names[400]; /* the current best (the final configuration at the end) */
	int nstrategies;	    /* in it */
	const char *groups[MAX_CONFIGS];
	const char *kept_flags[MAX_CONFIGS], *kept_names[MAX_CONFIGS]; /* each group's strategy */
	int last_changed; /* the index of the group whose strategy was kept (or swapped) last */
	char stopped[300]; /* why it stopped */
	int runner_up;	   /* > 0: the next step confirms this candidate of the last step's
			    * selection, whose leader was not kept */
};

/* Where the budget went: each phase run, and each one skipped with the budget it needed. */
struct phase_use {
	char name[40];
	int runs;
	double seconds;
	bool skipped;
	double needs_s; /* skipped: the seconds more it needed */
};

/* Runs one configuration into s (status, figures, the document under --profile); false when
 * Ctrl-C cut it. The clock: seconds since the exploration began. Both are explore.c's own
 * (run_isolated, the monotonic clock); tests/unit/test_explore_search.c simulates them. */
typedef bool (*explore_run_fn)(struct explore *x, const struct config *c, struct sample *s);
typedef double (*explore_clock_fn)(const struct explore *x);

struct explore {
	const struct workload *wl;
	explore_run_fn run;
	explore_clock_fn clock;
	void *sim; /* the simulation's own state (tests) */
	long rounds;
	uint64_t seed; /* of the run order */
	bool rounds_given, list, kernel;
	double budget, run_s;
	double screen_run_s;  /* the screen's windows (its last round) */
	double run_s_planned; /* before any refit */
	double overhead_s;    /* a run's wall time beyond its warm-up and window, measured */
	double wall_s;	      /* the runs' wall time so far */
	double planned_s;     /* their warm-ups and windows so far */
	int nconf;
	struct config conf[MAX_CONFIGS];
	struct config combo; /* the final configuration, paired with baseline runs of its own */
	struct sample combo_base[MAX_ROUNDS];
	int ncombo;
	bool have_final;     /* it was measured */
	bool final_begun;    /* no more room to keep for it */
	int reserve_runs;    /* runs after this phase to leave room for (the search's next step) */
	struct search search;
	struct phase_use phase[MAX_PHASES];
	int nphases;
	/* the screen's verdicts */
	struct config *ranked[MAX_CONFIGS], *apart[MAX_CONFIGS];
	int nranked, napart;
	char order[MAX_ROUNDS * MAX_CONFIGS * 3]; /* each round's order, as config indexes */
	const char *skipped_name[MAX_CONFIGS];
	char skipped_why[MAX_CONFIGS][240];
	const char *skipped_flags[MAX_CONFIGS];
	int nskipped;
	int runs_done, runs_total;
	int ndropped; /* strategies the screen dropped after its first stage */
	int nspread_tested, nunsteady; /* explore_unsteady: configurations tested, found so */
	uint64_t t0;
	bool json;
};

/* explore_verdict.c: which of the screen's configurations (the baseline too) are unsteady. */
void explore_unsteady(struct explore *x);

/* explore_plan.c: the baseline and every strategy that applies, each run fitted to the
 * budget (exits 2 on a bad flag or a budget too short); --list's lines. */
void explore_plan(struct explore *x, char **user, int nuser);
void explore_list(const struct explore *x);
/* A configuration's command line: the workload, the user's flags, then extra (a strategy's,
 * or NULL); later flags win. */
struct config_line {
	const struct workload *wl;
	char **user;
	int nuser;
	const char *extra;
};

/* Parse a configuration's command line; 0, or -EINVAL with the reason in err. */
int explore_parse_config(const struct config_line *cl, struct opts *o, char *err, size_t errlen);
/* A search step's selection rounds: half the screen's, at least MIN_ROUNDS (or the screen's
 * own, when --runs gave fewer). */
int explore_selection_rounds(int rounds);
/* Every run the same length, fitted to the budget (a count-based workload made time-based). */
void explore_fit_run(const struct explore *x, struct opts *o);

/* explore.c: the screen, the search and the final comparison, within the budget, the
 * verdicts in x (x->run and x->clock set, explore_plan done). */
void explore_execute(struct explore *x, char **user, int nuser);
/* Everything the configurations hold (not x itself). */
void explore_free(struct explore *x);
/* Rounds of n configurations, each round all of them in an order drawn from the seed's
 * stream, each sample in its round's slot (cs[i]->s[round]); false when Ctrl-C cut them. */
bool explore_rounds(struct explore *x, struct config **cs, int n, int rounds, uint64_t stream);
/* Is there room in the budget for runs more, keeping the final comparison's? 0, or the
 * seconds more they need. */
double explore_room(const struct explore *x, int runs);
/* Record a phase: its runs and seconds, or that it was skipped and what it needed. */
void explore_phase(struct explore *x, const char *name, int runs, double seconds,
		   double needs_s);

/* explore_best.c: the search's current best. The index in it of group's strategy, or -1. */
int explore_best_group(const struct search *s, const char *group);
/* Its flags without its strategy at index skip (-1: none), then extra, into out. */
void explore_best_flags(const struct search *s, int skip, const char *extra, char *out, size_t n);
/* It gets strategy (flags, name) of group: in the place of that group's, or added (s->flags
 * and s->names follow). */
void explore_best_take(struct search *s, const char *group, const char *flags, const char *name);

/* explore_search.c: the forward search from the screen's best (or the baseline), each step
 * one strategy of another group on top of the current best; the path in x->search. */
void explore_search(struct explore *x, char **user, int nuser);
void explore_search_free(struct explore *x);

/* explore_path.c: the search's path and the budget's phases, as text and as JSON. */
#define EXPLORE_SEARCH_FAMILY                                                                      \
	"one 5% error budget for every claim of a gain: the screen's strategies are one Holm "     \
	"family at 2.5%; the search's step verdicts share 1.25%, step k's at 1.25%/2^k on fresh "  \
	"runs; the final configuration against baseline runs of its own at 98.75%, the last "     \
	"1.25% (a step may keep a leader it did not confirm: keeping is no claim)"
void explore_print_path(const struct explore *x);
void explore_print_budget(const struct explore *x);
cJSON *explore_path_json(const struct explore *x);
cJSON *explore_budget_json(const struct explore *x);

/* explore_verdict.c: the rates of c and of the baseline in the rounds where both runs were
 * whole (a round with a partial or failed run on either side is no pair): how many. */
int explore_pairs(const struct config *c, const struct sample *base, int nbase, double *a,
		  double *b);
/* c against the baseline runs of the same rounds, at 95% on its own; _at: at level. */
void explore_analyse(struct config *c, const struct sample *base, int nbase);
void explore_analyse_at(struct config *c, const struct sample *base, int nbase, double level);
/* Every strategy analysed, Holm over them (one SCREEN_ALPHA family); ranked best first, and
 * those that change the workload apart. */
void explore_judge(struct explore *x, struct config **ranked, int *n, struct config **apart,
		   int *napart);

/* explore_report.c: the ranking, best first (x->ranked), the strategies shown apart, the
 * search and the final configuration. config_json: one entry (rank 0: none). */
void explore_print_table(struct explore *x);
void explore_print_json(struct explore *x);
cJSON *explore_config_json(const struct explore *x, const struct config *c, int rank);
/* Where the time moved from base's runs to c's, under --profile (NULL without profiles;
 * moved_free it). */
struct moved_set *explore_moved(const struct config *c, const struct sample *base, int nbase);
/* A run's cost beyond its warm-up and window, as planned: more with --trace (explore_plan.c). */
double explore_planned_overhead(const struct explore *x);
const char *explore_verdict_words(const struct config *c, char *buf, size_t len);
/* A speedup's interval as the text prints it, "0.93-1.03", into buf: true; or "none" where it
 * says nothing, its high end over INTERVAL_MAX_SPAN times its low (too few runs: a short
 * budget's can reach from 0 to 33,325,981): false. */
#define INTERVAL_MAX_SPAN 100.0
bool explore_interval_words(double lo, double hi, char *buf, size_t len);
/* ci_low and ci_high into j; both null where there is none: one pair (0 to infinity, which no
 * JSON number holds), or an upper end past what a result file may hold (RESULT_FILE_NUM_MAX:
 * 2 pairs at a search step's level reached 1e27, an interval that says nothing). */
void explore_interval_json(cJSON *j, double lo, double hi);

#endif
