/* explore.c: try every user-space strategy on the user's own workload and rank them by the
 * gain measured against the workload as given.
 *
 * Runs go in rounds, each round every configuration once in an order drawn from a seed, and
 * each strategy is paired with the baseline run of the same round, so drift cancels. Each run
 * is a child process (run_isolated): a strategy that cannot start is reported as failed, and
 * a partial run is left out, with its round's pair. The speedup is the ratio of geometric
 * means of the paired runs with a Student t interval on their log-ratios; the verdicts of all
 * the strategies share one 5% error budget (Holm), and each interval is shown at the level
 * its strategy was held to. The strategies found faster are combined (the best of each
 * group) and the combination is measured the same way, against baseline runs of its own.
 * Strategies that change what is measured (--close reset, more connections in flight) are
 * measured and shown apart, never ranked or combined.
 * With --profile every run is profiled and each strategy that helped is explained: where the
 * time moved against the baseline runs (moved.h).
 */
#include "multi/explore.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/moved.h"
#include "report/out.h"
#include "multi/repeat.h"
#include "run/run.h"
#include "multi/stats.h"
#include "base/util.h"
#include "workload/workload.h"

#define MAX_CONFIGS 32
#define MAX_ARGS 96
#define MAX_ROUNDS 32
#define RUN_OVERHEAD_S 0.25 /* a child process, the agent and the clients, handshakes: measured */
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
	double tps;
	double cpu_us[2];      /* client, server: CPU us per transaction */
	double user_s[2], sys_s[2];
	double sys_per_tx[2];  /* syscalls per transaction */
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
	int rounds;
	uint64_t seed; /* of the run order */
	bool rounds_given;
	double budget, run_s;
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

void explore_schedule(int nconfigs, int rounds, uint64_t seed, int *order)
{
	uint64_t st = seed ? seed : 1;

	for (int r = 0; r < rounds; r++) {
		int *o = order + r * nconfigs;

		for (int c = 0; c < nconfigs; c++)
			o[c] = c;
		for (int c = nconfigs - 1; c > 0; c--) { /* Fisher-Yates */
			int j = (int)(stats_rand(&st) % (uint64_t)(c + 1)), x = o[c];

			o[c] = o[j];
			o[j] = x;
		}
	}
}

/* argv = the user's flags, then the strategy's (later flags win). */
static int build_argv(const struct workload *wl, char **user, int nuser, const char *extra,
		      char *store, size_t storelen, char **argv)
{
	int argc = 0;

	argv[argc++] = (char *)wl->name;
	for (int i = 0; i < nuser && argc < MAX_ARGS - 1; i++)
		argv[argc++] = user[i];
	snprintf(store, storelen, "%s", extra ? extra : "");
	for (char *tok = strtok(store, " "); tok && argc < MAX_ARGS - 1; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return argc;
}

/* Parse a configuration; 0, or -EINVAL with the reason in err. */
static int parse_config(const struct workload *wl, char **user, int nuser, const char *extra,
			struct opts *o, char *err, size_t errlen)
{
	char store[256], *argv[MAX_ARGS];
	int argc = build_argv(wl, user, nuser, extra, store, sizeof(store), argv);
	int ret;

	opts_defaults(o, wl->overrides);
	ret = opts_parse(wl->opts, wl->overrides, argc, argv, o, err, errlen);
	if (ret == 0)
		ret = wl->check(o, err, errlen);
	if (ret == 1) {
		snprintf(err, errlen, "--help is not a strategy");
		ret = -EINVAL;
	}
	return ret;
}

static bool same_config(const struct workload *wl, const struct opts *a, const struct opts *b)
{
	cJSON *ja = opts_to_json(wl->opts, a), *jb = opts_to_json(wl->opts, b);
	bool same = cJSON_Compare(ja, jb, true);

	cJSON_Delete(ja);
	cJSON_Delete(jb);
	return same;
}

/* Every run of an exploration has the same length, fitted to the budget; a count-based
 * workload is made time-based so that each run takes that long. */
static void fit_run(struct explore *x, struct opts *o)
{
	o->duration = x->run_s;
	o->warmup = WARMUP_S;
	o->conns = 0;
	o->json = false;
	if (o->profile && !OPT_IS_SET(o, profile_top))
		o->profile_top = MOVED_PROFILE_TOP;
}

static void plan(struct explore *x, char **user, int nuser)
{
	const struct workload *wl = x->wl;
	char err[240];
	struct config *base = &x->conf[0];

	base->name = "baseline (as given)";
	base->group = "";
	if (parse_config(wl, user, nuser, NULL, &base->o, err, sizeof(err)))
		die_usage("explore %s: %s", wl->name, err);
	x->nconf = 1;
	for (const struct strategy *st = wl->strategies; st && st->name; st++) {
		struct config *c = &x->conf[x->nconf];

		if (x->nconf == MAX_CONFIGS)
			break;
		if (parse_config(wl, user, nuser, st->args, &c->o, err, sizeof(err))) {
			opts_free(&c->o);
			x->skipped_name[x->nskipped] = st->name;
			x->skipped_flags[x->nskipped] = st->args;
			snprintf(x->skipped_why[x->nskipped++], sizeof(x->skipped_why[0]), "%s", err);
			continue;
		}
		if (same_config(wl, &c->o, &base->o)) {
			opts_free(&c->o);
			x->skipped_name[x->nskipped] = st->name;
			x->skipped_flags[x->nskipped] = st->args;
			snprintf(x->skipped_why[x->nskipped++], sizeof(x->skipped_why[0]),
				 "already in the baseline");
			continue;
		}
		c->name = st->name;
		c->group = st->group;
		c->changes = st->changes_workload;
		snprintf(c->flags, sizeof(c->flags), "%s", st->args);
		x->nconf++;
	}
	/* Runs: every config each round, then the combination paired with baselines. A short
	 * budget takes fewer rounds (down to 3), unless --runs was given. */
	for (;;) {
		x->runs_total = x->nconf * x->rounds + 2 * x->rounds;
		x->run_s = x->budget / x->runs_total - WARMUP_S - RUN_OVERHEAD_S;
		if (x->run_s >= MIN_RUN_S || x->rounds_given || x->rounds == MIN_ROUNDS)
			break;
		x->rounds--;
	}
	if (x->run_s < MIN_RUN_S)
		die_usage("explore: --budget %.0f is too short for %d configurations x %d runs: give at "
			  "least %.0f seconds, or fewer --runs",
			  x->budget, x->nconf, x->rounds,
			  x->runs_total * (MIN_RUN_S + WARMUP_S + RUN_OVERHEAD_S) + 1);
	for (int i = 0; i < x->nconf; i++)
		fit_run(x, &x->conf[i].o);
}

static void progress(struct explore *x, const char *what)
{
	if (!isatty(STDERR_FILENO))
		return;
	double el = ns_to_s(now_ns() - x->t0);
	double left = x->runs_done ? el / x->runs_done * (x->runs_total - x->runs_done) : 0;

	fprintf(stderr, "\r\033[Kexplore: run %d/%d  %-34.34s  %3.0f s elapsed, ~%3.0f s left",
		x->runs_done + 1, x->runs_total, what, el, left);
}

static void progress_done(void)
{
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
}

/* One run, in a child process of its own; false when Ctrl-C cut it (no sample, and stop). */
static bool measure(struct explore *x, const struct config *c, const char *label, struct sample *s)
{
	cJSON *doc;

	progress(x, label);
	*s = (struct sample){0};
	s->status = run_isolated(x->wl, &c->o, &doc, s->why, sizeof(s->why));
	x->runs_done++;
	if (run_interrupted()) {
		cJSON_Delete(doc);
		return false;
	}
	if (s->status == RUN_WHOLE) {
		static const char *const side[] = {"sides.client.", "sides.server."};
		char path[64];

		s->tps = json_path(doc, "rate");
		for (int k = 0; k < 2; k++) {
#define SIDE_(field, key)                                                                          \
	(snprintf(path, sizeof(path), "%s%s", side[k], key), field = json_path(doc, path))
			SIDE_(s->user_s[k], "user_s");
			SIDE_(s->sys_s[k], "sys_s");
			SIDE_(s->cpu_us[k], "cpu_us_per_unit");
			SIDE_(s->sys_per_tx[k], "syscalls_per_unit");
#undef SIDE_
		}
	}
	s->doc = s->status == RUN_WHOLE && c->o.profile ? doc : NULL;
	if (!s->doc)
		cJSON_Delete(doc);
	return true;
}

/* The rates of c and of the baseline in the rounds where both runs were whole: how many. */
static int pairs_of(const struct config *c, const struct sample *base, int nbase, double *a,
		    double *b)
{
	int n = 0;

	for (int i = 0; i < c->nsamples && i < nbase; i++)
		if (base[i].status == RUN_WHOLE && c->s[i].status == RUN_WHOLE && base[i].tps > 0 &&
		    c->s[i].tps > 0) {
			a[n] = base[i].tps;
			b[n++] = c->s[i].tps;
		}
	return n;
}

/* c against the baseline runs of the same rounds: the rounds where both were whole. */
static void analyse(struct config *c, const struct sample *base, int nbase)
{
	double a[MAX_ROUNDS], b[MAX_ROUNDS], t[MAX_ROUNDS];
	int n = pairs_of(c, base, nbase, a, b), k = 0;

	c->whole = c->partial = c->failed = 0;
	for (int i = 0; i < c->nsamples; i++) {
		c->whole += c->s[i].status == RUN_WHOLE;
		c->partial += c->s[i].status == RUN_PARTIAL;
		c->failed += c->s[i].status == RUN_FAILED;
		if (c->s[i].status == RUN_WHOLE)
			t[k++] = c->s[i].tps;
	}
	c->pairs = n;
	c->needed = -1;
	c->level = 0.95;
	if (k) {
		c->tps = stats_median(t, k);
		c->spread = stats_spread_pct(t, k);
	}
	if (n == 0)
		return;
	stats_paired(a, b, n, c->level, &c->e);
	c->few = n < 2; /* one ratio has no spread to judge it by */
	c->reject = !c->few && c->e.p < 1 - c->level;
	c->verdict = stats_verdict_of(&c->e, c->reject, MIN_GAIN);
	c->analysed = true;
}

/* Holm over every strategy analysed: one 5% error budget for all their verdicts; each
 * interval is recomputed at the level its strategy was held to. */
static void holm(struct config **cs, int n, const struct sample *base, int nbase)
{
	double p[MAX_CONFIGS], level[MAX_CONFIGS];
	bool reject[MAX_CONFIGS];

	for (int i = 0; i < n; i++)
		p[i] = cs[i]->few ? 1 : cs[i]->e.p;
	stats_holm(p, n, STATS_ALPHA, reject, level);
	for (int i = 0; i < n; i++) {
		struct config *c = cs[i];
		double a[MAX_ROUNDS], b[MAX_ROUNDS];
		int m = pairs_of(c, base, nbase, a, b);

		c->level = level[i];
		c->reject = reject[i] && !c->few;
		stats_paired(a, b, m, c->level, &c->e);
		c->verdict = stats_verdict_of(&c->e, c->reject, MIN_GAIN);
		if (c->verdict == VERDICT_SAME && fabs(c->e.ratio - 1) >= MIN_GAIN)
			c->needed = stats_runs_needed(&c->e, c->level, 1000);
	}
}

void explore_rank(const double *speedup, int n, int *order)
{
	/* Insertion sort, stable: equal speedups keep the table's order. */
	for (int i = 0; i < n; i++) {
		int j = i;

		for (; j > 0 && speedup[order[j - 1]] < speedup[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
}

bool explore_flags_clash(const char *a, const char *b)
{
	for (const char *p = a; (p = strstr(p, "--")); p += 2) {
		size_t n = strcspn(p, " =");

		for (const char *q = b; (q = strstr(q, "--")); q += 2)
			if (strcspn(q, " =") == n && !strncmp(p, q, n) &&
			    (q == b || q[-1] == ' ') && (p == a || p[-1] == ' '))
				return true;
	}
	return false;
}

/* The strategies that helped, best first, one per group, as long as they go together (valid
 * together, and no option set twice). */
static bool plan_combination(struct explore *x, char **user, int nuser, struct config **ranked,
			     int nranked)
{
	char flags[400] = "", names[400] = "", err[240], trial[400];
	const char *groups[MAX_CONFIGS];
	int ngroups = 0, used = 0;
	struct opts o;

	for (int i = 0; i < nranked; i++) {
		struct config *c = ranked[i];
		bool taken = false;

		if (c->verdict != VERDICT_FASTER || c->changes)
			continue;
		for (int g = 0; g < ngroups; g++)
			taken |= !strcmp(groups[g], c->group);
		if (taken || explore_flags_clash(flags, c->flags))
			continue;
		snprintf(trial, sizeof(trial), "%s%s%s", flags, flags[0] ? " " : "", c->flags);
		if (parse_config(x->wl, user, nuser, trial, &o, err, sizeof(err)) == 0) {
			snprintf(flags, sizeof(flags), "%s", trial);
			snprintf(trial, sizeof(trial), "%s%s%s", names, names[0] ? " + " : "", c->name);
			snprintf(names, sizeof(names), "%s", trial);
			groups[ngroups++] = c->group;
			used++;
		}
		opts_free(&o);
	}
	if (used < 2)
		return false;
	parse_config(x->wl, user, nuser, flags, &x->combo.o, err, sizeof(err));
	fit_run(x, &x->combo.o);
	snprintf(x->combo.flags, sizeof(x->combo.flags), "%s", flags);
	x->combo.name = xstrdup(names);
	x->combo.group = "";
	return true;
}

/* The median over c's whole runs of a figure of its samples. */
static double med_whole(const struct config *c, double (*get)(const struct sample *, int), int k)
{
	double v[MAX_ROUNDS];
	int n = 0;

	for (int i = 0; i < c->nsamples; i++)
		if (c->s[i].status == RUN_WHOLE)
			v[n++] = get(&c->s[i], k);
	return n ? stats_median(v, n) : 0;
}

static double get_cpu(const struct sample *s, int k) { return s->cpu_us[k]; }
static double get_user(const struct sample *s, int k) { return s->user_s[k]; }
static double get_sys(const struct sample *s, int k) { return s->sys_s[k]; }
static double get_sc(const struct sample *s, int k) { return s->sys_per_tx[k]; }

static cJSON *sample_sides_json(const struct workload *wl, const struct config *c)
{
	cJSON *sides = cJSON_CreateObject();
	static const char *const side_names[] = {"client", "server"};

	for (int k = 0; k < 2; k++) {
		cJSON *j = cJSON_CreateObject();
		double mcpu = med_whole(c, get_cpu, k), msc = med_whole(c, get_sc, k);

		cJSON_AddNumberToObject(j, "cpu_us_per_unit", mcpu);
		if (!wl->units)
			cJSON_AddNumberToObject(j, "cpu_us_per_transaction", mcpu);
		cJSON_AddNumberToObject(j, "user_s", med_whole(c, get_user, k));
		cJSON_AddNumberToObject(j, "sys_s", med_whole(c, get_sys, k));
		cJSON_AddNumberToObject(j, "syscalls_per_unit", msc);
		if (!wl->units)
			cJSON_AddNumberToObject(j, "syscalls_per_transaction", msc);
		cJSON_AddItemToObject(sides, side_names[k], j);
	}
	return sides;
}

/* Where the time moved from the baseline's runs to c's (NULL without profiles). */
static struct moved_set *config_moved(const struct explore *x, const struct config *c)
{
	const struct sample *base = c == &x->combo ? x->combo_base : x->conf[0].s;
	int nbase = c == &x->combo ? x->ncombo : x->conf[0].nsamples, na = 0, nb = 0;
	cJSON *a[MAX_ROUNDS], *b[MAX_ROUNDS];

	if (!c->o.profile || c == &x->conf[0])
		return NULL;
	for (int i = 0; i < nbase; i++)
		if (base[i].doc)
			a[na++] = base[i].doc;
	for (int i = 0; i < c->nsamples; i++)
		if (c->s[i].doc)
			b[nb++] = c->s[i].doc;
	return na && nb ? moved_of(a, na, b, nb) : NULL;
}

static void free_docs(struct sample *s, int n)
{
	for (int i = 0; i < n; i++)
		cJSON_Delete(s[i].doc);
}

/* The verdict's words: faster, slower, no real difference, or why there is none. */
static const char *verdict_words(const struct config *c, char *buf, size_t len)
{
	if (!c->analysed && c->failed)
		snprintf(buf, len, "failed: %s", c->s[0].why);
	else if (!c->analysed || c->few)
		snprintf(buf, len, "no verdict: %d pair%s of whole runs", c->pairs, c->pairs == 1 ? "" : "s");
	else if (c->verdict == VERDICT_SAME && c->needed > 0)
		snprintf(buf, len, "no real difference (a %+.0f%% one would need ~%d runs)",
			 (c->e.ratio - 1) * 100, c->needed);
	else
		snprintf(buf, len, "%s", stats_verdict_name(c->verdict));
	return buf;
}

static cJSON *config_json(const struct explore *x, const struct config *c, int rank)
{
	struct moved_set *mv = config_moved(x, c);
	cJSON *j = cJSON_CreateObject(), *samples = cJSON_CreateArray(), *left = cJSON_CreateArray();
	char words[300];
	bool base = c == &x->conf[0];

	if (rank)
		cJSON_AddNumberToObject(j, "rank", rank);
	cJSON_AddStringToObject(j, "name", c->name);
	cJSON_AddStringToObject(j, "flags", c->flags);
	cJSON_AddBoolToObject(j, "changes_workload", c->changes);
	cJSON_AddStringToObject(j, "unit", x->wl->unit);
	cJSON_AddNumberToObject(j, "rate", c->tps);
	if (!x->wl->units)
		cJSON_AddNumberToObject(j, "transactions_per_s", c->tps);
	cJSON_AddNumberToObject(j, "spread_pct", c->spread);
	cJSON_AddNumberToObject(j, "runs", c->whole);
	if (!base) {
		cJSON_AddNumberToObject(j, "pairs", c->pairs);
		cJSON_AddNumberToObject(j, "speedup", c->e.ratio);
		cJSON_AddNumberToObject(j, "ci_low", c->e.lo);
		cJSON_AddNumberToObject(j, "ci_high", isinf(c->e.hi) ? 1e308 : c->e.hi);
		cJSON_AddNumberToObject(j, "ci_level", c->level);
		cJSON_AddNumberToObject(j, "p_value", c->e.p);
		cJSON_AddBoolToObject(j, "significant", c->reject);
		if (c->needed > 0)
			cJSON_AddNumberToObject(j, "runs_needed", c->needed);
		cJSON_AddStringToObject(j, "verdict", !c->analysed && c->failed ? "failed"
						      : !c->analysed || c->few ? "no verdict"
									       : stats_verdict_name(c->verdict));
		cJSON_AddStringToObject(j, "verdict_text", verdict_words(c, words, sizeof(words)));
	}
	cJSON_AddItemToObject(j, "sides", sample_sides_json(x->wl, c));
	for (int i = 0; i < c->nsamples; i++) {
		if (c->s[i].status == RUN_WHOLE) {
			cJSON_AddItemToArray(samples, cJSON_CreateNumber(c->s[i].tps));
			continue;
		}
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "round", i + 1);
		cJSON_AddStringToObject(e, "status", run_status_name(c->s[i].status));
		cJSON_AddStringToObject(e, "reason", c->s[i].why);
		cJSON_AddItemToArray(left, e);
	}
	cJSON_AddItemToObject(j, "samples", samples);
	cJSON_AddItemToObject(j, "left_out", left);
	if (mv)
		cJSON_AddItemToObject(j, "where_time_moved", moved_json(mv));
	moved_free(mv);
	return j;
}

static void print_row(const struct config *c, const char *rank, bool base)
{
	char ci[40] = "-", conf[16] = "", words[300], speed[16] = "1.00x";

	if (!base && c->analysed && !c->few) {
		snprintf(ci, sizeof(ci), "%.2f-%.2f", c->e.lo, c->e.hi);
		snprintf(conf, sizeof(conf), "%.1f%%", c->level * 100);
	}
	if (!base)
		snprintf(speed, sizeof(speed), c->analysed ? "%.2fx" : "-", c->e.ratio);
	printf("%-4s %-36.36s %11.0f %5.1f %7s %-11s %6s %7.2f %7.2f %6.2f %6.2f  %s\n", rank,
	       c->name, c->tps, c->spread, speed, ci, conf, med_whole(c, get_cpu, 0),
	       med_whole(c, get_cpu, 1), med_whole(c, get_sc, 0), med_whole(c, get_sc, 1),
	       base ? "" : verdict_words(c, words, sizeof(words)));
}

/* Why there is no combination to show. */
static const char *no_combo_reason(const struct explore *x, struct config **ranked, int n)
{
	static char why[200];
	const char *groups[MAX_CONFIGS];
	int faster = 0, ngroups = 0;

	for (int i = 0; i < n; i++) {
		bool seen = false;

		if (ranked[i]->verdict != VERDICT_FASTER || ranked[i]->changes)
			continue;
		faster++;
		for (int g = 0; g < ngroups; g++)
			seen |= !strcmp(groups[g], ranked[i]->group);
		if (!seen)
			groups[ngroups++] = ranked[i]->group;
	}
	if (run_interrupted())
		return "interrupted before it could run";
	if (faster >= 2 && ngroups == 1) {
		snprintf(why, sizeof(why), "the %d faster strategies are alternatives of one kind (%s): "
			 "take the first of them", faster, groups[0]);
		return why;
	}
	if (faster >= 2 && !x->combo.name)
		return "the faster strategies do not go together, or the budget left no time to "
		       "measure them together: give a larger --budget";
	return "fewer than two strategies were found faster (within the shared 5% error), nothing "
	       "to combine";
}

/* --profile: why c is faster, from where the time moved. False when there are no profiles. */
static bool print_why_one(struct explore *x, const struct config *c)
{
	struct moved_set *mv = config_moved(x, c);

	if (!mv) {
		printf("\n(--profile: the runs hold no profiles to compare; a run alone says why)\n");
		return false;
	}
	printf("\nwhy %s is %.2fx, where the time moved against the baseline:", c->name,
	       c->e.ratio);
	moved_print(mv, x->wl->unit, WHY_ROWS);
	moved_free(mv);
	return true;
}

/* The first WHY_SHOWN faster strategies, and the combination. */
static void print_why(struct explore *x, struct config **ranked, int n, bool have_combo)
{
	for (int i = 0, shown = 0; i < n && shown < WHY_SHOWN; i++) {
		if (ranked[i]->verdict != VERDICT_FASTER)
			continue;
		if (!print_why_one(x, ranked[i]))
			return;
		shown++;
	}
	if (have_combo)
		print_why_one(x, &x->combo);
}

static void print_table(struct explore *x, struct config **ranked, int n, struct config **apart,
			int napart, bool have_combo)
{
	printf("sockbench explore %s: %d rounds, each configuration once a round in a random order "
	       "(seed %llu), %.2f s runs after %.2f s of warm-up; speedup = ratio of the geometric "
	       "means of the paired runs (a strategy and the baseline of its round), with a "
	       "Student t interval; the verdicts share one 5%% error budget (Holm), each interval "
	       "at the level its strategy was held to\n\n",
	       x->wl->name, x->rounds, (unsigned long long)x->seed, x->run_s, WARMUP_S);
	char rate[24];

	snprintf(rate, sizeof(rate), "%.7ss/s", x->wl->unit);
	printf("%-4s %-36s %11s %5s %7s %-11s %6s %7s %7s %6s %6s  %s\n", "rank", "strategy",
	       rate, "+-%", "speedup", "interval", "conf", "cli us", "srv us", "cli sc", "srv sc",
	       "verdict");
	print_row(&x->conf[0], "-", true);
	for (int i = 0; i < n; i++) {
		char rank[16];

		snprintf(rank, sizeof(rank), "%d", i + 1);
		print_row(ranked[i], rank, false);
	}
	if (napart) {
		printf("\nchanges the workload (measured, not ranked, never combined):\n");
		for (int i = 0; i < napart; i++)
			print_row(apart[i], "*", false);
	}
	printf("\n(us: CPU microseconds per %s; sc: system calls per %s)\n", x->wl->unit,
	       x->wl->unit);
	for (int i = 0; i < n; i++)
		printf("  %-36s %s\n", ranked[i]->name, ranked[i]->flags);
	for (int i = 0; i < napart; i++)
		printf("  %-36s %s\n", apart[i]->name, apart[i]->flags);
	if (have_combo) {
		printf("\nbest combination: %s\n  flags: %s\n  ", x->combo.name, x->combo.flags);
		print_row(&x->combo, "", false);
	} else {
		printf("\nbest combination: %s\n", no_combo_reason(x, ranked, n));
	}
	for (int i = 0; i < x->nskipped; i++)
		printf("%s %s (%s): %s\n", i ? "             " : "\nnot tried:  ", x->skipped_name[i],
		       x->skipped_flags[i], x->skipped_why[i]);
	int partial = 0, failed = 0;

	for (int i = 0; i < x->nconf; i++) {
		partial += x->conf[i].partial;
		failed += x->conf[i].failed;
	}
	if (partial || failed)
		printf("\n%d of %d runs were partial and %d failed: left out, with their round's pair "
		       "(--json: left_out)\n", partial, x->runs_done, failed);
	if (x->conf[0].o.profile)
		print_why(x, ranked, n, have_combo);
	if (run_interrupted())
		printf("\nPARTIAL: interrupted after %d of %d runs\n", x->runs_done, x->runs_total);
}

static void print_json(struct explore *x, struct config **ranked, int n, struct config **apart,
		       int napart, bool have_combo)
{
	cJSON *j = cJSON_CreateObject(), *arr = cJSON_CreateArray(), *sk = cJSON_CreateArray();
	cJSON *ap = cJSON_CreateArray();
	char seed[24];

	cJSON_AddNumberToObject(j, "schema", RESULT_SCHEMA);
	cJSON_AddStringToObject(j, "tool", "sockbench");
	cJSON_AddStringToObject(j, "kind", "explore");
	cJSON_AddStringToObject(j, "workload", x->wl->name);
	cJSON_AddItemToObject(j, "config", opts_to_json(x->wl->opts, &x->conf[0].o));
	cJSON_AddBoolToObject(j, "partial", run_interrupted());
	cJSON_AddNumberToObject(j, "runs", x->rounds);
	cJSON_AddNumberToObject(j, "run_seconds", x->run_s);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)x->seed);
	cJSON_AddStringToObject(j, "seed", seed);
	cJSON_AddStringToObject(j, "order", x->order);
	cJSON_AddStringToObject(j, "interval", "t on the paired log-ratios, Holm over the strategies");
	cJSON_AddNumberToObject(j, "family_confidence", 1 - STATS_ALPHA);
	cJSON_AddItemToObject(j, "baseline", config_json(x, &x->conf[0], 0));
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, config_json(x, ranked[i], i + 1));
	cJSON_AddItemToObject(j, "strategies", arr);
	for (int i = 0; i < napart; i++)
		cJSON_AddItemToArray(ap, config_json(x, apart[i], 0));
	cJSON_AddItemToObject(j, "changes_workload", ap);
	cJSON_AddItemToObject(j, "best_combination",
			      have_combo ? config_json(x, &x->combo, 0) : cJSON_CreateNull());
	for (int i = 0; i < x->nskipped; i++) {
		cJSON *s = cJSON_CreateObject();

		cJSON_AddStringToObject(s, "name", x->skipped_name[i]);
		cJSON_AddStringToObject(s, "flags", x->skipped_flags[i]);
		cJSON_AddStringToObject(s, "reason", x->skipped_why[i]);
		cJSON_AddItemToArray(sk, s);
	}
	cJSON_AddItemToObject(j, "not_applicable", sk);
	char *txt = cJSON_Print(j);

	printf("%s\n", txt);
	free(txt);
	cJSON_Delete(j);
}

/* Take explore's own flags (--budget S, --runs N, --seed N, --list) out of argv. */
static int take_own_flags(int argc, char **argv, struct explore *x, bool *list, char **rest)
{
	int n = 0;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		char *end;

		if (!strcmp(a, "--list")) {
			*list = true;
		} else if (!strcmp(a, "--budget") || !strcmp(a, "--runs") || !strcmp(a, "--seed")) {
			if (i + 1 >= argc)
				die_usage("explore: %s needs a value", a);
			double v = strtod(argv[++i], &end);

			if (*end || end == argv[i])
				die_usage("explore: %s '%s' is not a number", a, argv[i]);
			if (!strcmp(a, "--budget")) {
				if (v < 5 || v > 86400)
					die_usage("explore: --budget %s is out of range: use 5 to 86400", argv[i]);
				x->budget = v;
			} else if (!strcmp(a, "--seed")) {
				if (v < 1 || v != (double)(uint64_t)v)
					die_usage("explore: --seed %s: give a whole number above 0", argv[i]);
				x->seed = strtoull(argv[i], NULL, 10);
			} else {
				if (v < 2 || v > MAX_ROUNDS || v != (int)v)
					die_usage("explore: --runs %s is out of range: use 2 to %d", argv[i],
						  MAX_ROUNDS);
				x->rounds = (int)v;
				x->rounds_given = true;
			}
		} else {
			rest[n++] = argv[i];
		}
	}
	return n;
}

static void run_all(struct explore *x)
{
	int *order = xcalloc((size_t)(x->nconf * x->rounds), sizeof(int));
	size_t olen = 0;

	explore_schedule(x->nconf, x->rounds, x->seed, order);
	for (int i = 0; i < x->nconf * x->rounds; i++) {
		struct config *c = &x->conf[order[i]];

		olen += (size_t)snprintf(x->order + olen, sizeof(x->order) - olen, "%s%d",
					 i == 0 ? "" : i % x->nconf ? "," : " ", order[i]);
		if (!measure(x, c, c->name, &c->s[i / x->nconf]))
			break;
		c->nsamples = i / x->nconf + 1;
	}
	free(order);
}

static void run_combination(struct explore *x)
{
	uint64_t st = x->seed ^ 0xc0bb1e;

	for (int r = 0; r < x->rounds && !run_interrupted(); r++) {
		bool combo_first = stats_rand(&st) & 1;

		for (int k = 0; k < 2; k++) {
			bool combo = k == (combo_first ? 0 : 1);
			bool ok = combo ? measure(x, &x->combo, "best combination", &x->combo.s[r])
					: measure(x, &x->conf[0], "baseline (for the combination)",
						  &x->combo_base[r]);

			if (!ok)
				goto out;
		}
		x->ncombo = x->combo.nsamples = r + 1;
	}
out:
	analyse(&x->combo, x->combo_base, x->ncombo);
	if (!x->combo.few && x->combo.verdict == VERDICT_SAME && fabs(x->combo.e.ratio - 1) >= MIN_GAIN)
		x->combo.needed = stats_runs_needed(&x->combo.e, x->combo.level, 1000);
}

int cmd_explore(int argc, char **argv)
{
	struct explore *x = xcalloc(1, sizeof(*x));
	char **rest = xcalloc((size_t)argc + 1, sizeof(char *));
	bool list = false;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf("usage: sockbench explore WORKLOAD [workload flags] [--budget S] [--runs N] "
		       "[--seed N] [--json] [--list]\n"
		       "Runs the workload as given and every applicable strategy in rounds (each round "
		       "all of them, in a random order), then the best combination of those found "
		       "faster, and ranks them by measured gain; the verdicts share one 5%% error "
		       "budget.\n"
		       "  --budget S   total time to spend (default %d)\n"
		       "  --runs N     rounds (default %d; fewer when the budget is short, down to %d)\n"
		       "  --seed N     of the order of runs (default: a fresh one, printed)\n"
		       "  --list       print the strategies (name, flags) and exit\n",
		       DEFAULT_BUDGET, STATS_DEFAULT_RUNS, MIN_ROUNDS);
		return argc < 2 ? 2 : 0;
	}
	x->wl = workload_or_exit("explore", argv[1]);
	x->budget = DEFAULT_BUDGET;
	x->rounds = STATS_DEFAULT_RUNS;
	int nrest = take_own_flags(argc - 2, argv + 2, x, &list, rest);

	if (list) {
		for (const struct strategy *s = x->wl->strategies; s && s->name; s++)
			printf("%s\t%s%s\n", s->name, s->args, s->changes_workload ? "\t(changes the workload)" : "");
		free(rest);
		free(x);
		return 0;
	}
	if (!x->seed)
		x->seed = (now_ns() ^ ((uint64_t)getpid() << 32)) | 1;
	plan(x, rest, nrest);
	x->json = x->conf[0].o.json || OPT_IS_SET(&x->conf[0].o, json);
	x->t0 = now_ns();
	run_signals_keep();
	run_all(x);

	struct config *ranked[MAX_CONFIGS], *apart[MAX_CONFIGS], *tested[MAX_CONFIGS];
	int n = 0, napart = 0, ntested = 0, nbase = x->conf[0].nsamples;
	struct config *done[MAX_CONFIGS];
	double speedup[MAX_CONFIGS] = {0};
	int order[MAX_CONFIGS];

	analyse(&x->conf[0], x->conf[0].s, nbase);
	for (int i = 1; i < x->nconf; i++) {
		struct config *c = &x->conf[i];

		analyse(c, x->conf[0].s, nbase);
		if (c->analysed)
			tested[ntested++] = c;
	}
	holm(tested, ntested, x->conf[0].s, nbase);
	for (int i = 1; i < x->nconf; i++) {
		struct config *c = &x->conf[i];

		if (c->changes) {
			apart[napart++] = c;
		} else {
			speedup[n] = c->analysed ? c->e.ratio : 0;
			done[n++] = c;
		}
	}
	explore_rank(speedup, n, order);
	for (int i = 0; i < n; i++)
		ranked[i] = done[order[i]];
	/* The combination runs only if the budget still has room for it. */
	double left = x->budget - ns_to_s(now_ns() - x->t0);
	bool room = left >= 2 * x->rounds * (x->run_s + WARMUP_S + RUN_OVERHEAD_S) * 0.9;
	bool combo = !run_interrupted() && room && plan_combination(x, rest, nrest, ranked, n);

	if (combo)
		run_combination(x);
	progress_done();
	if (x->json)
		print_json(x, ranked, n, apart, napart, combo && x->combo.analysed);
	else
		print_table(x, ranked, n, apart, napart, combo && x->combo.analysed);
	for (int i = 0; i < x->nconf; i++) {
		free_docs(x->conf[i].s, x->conf[i].nsamples);
		opts_free(&x->conf[i].o);
	}
	free_docs(x->combo_base, x->ncombo);
	free_docs(x->combo.s, x->combo.nsamples);
	if (combo) {
		opts_free(&x->combo.o);
		free((char *)x->combo.name);
	}
	free(rest);
	free(x);
	return 0;
}
