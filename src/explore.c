/* explore.c: try every user-space strategy on the user's own workload and rank them by the
 * gain measured against the workload as given.
 *
 * Runs are interleaved (baseline, A, B, ..., baseline, A, B, ...) and each strategy is compared
 * with the baseline of the same round, so slow drift of a noisy machine cancels out; the
 * speedup is the median of those paired ratios with a 95% bootstrap interval, and only an
 * interval wholly above (below) 1 is called faster (slower). The strategies that helped are
 * then combined (the best of each group) and the combination is measured the same way.
 * With --profile every run is profiled and each strategy that helped is explained: where the
 * time moved against the baseline runs (moved.h).
 */
#include "explore.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "moved.h"
#include "out.h"
#include "run.h"
#include "stats.h"
#include "util.h"
#include "workload.h"

#define MAX_CONFIGS 32
#define MAX_ARGS 96
#define RUN_OVERHEAD_S 0.2 /* starting the agent and the clients, handshakes: measured */
#define MIN_RUN_S 0.15
#define WARMUP_S 0.15
#define BOOT_ITERS 4000
#define MIN_GAIN 0.02
#define WHY_SHOWN 3 /* faster strategies explained in the table (all in --json) */
#define WHY_ROWS 6  /* syscalls and functions shown for each */

struct sample {
	double tps;
	double cpu_us[2];      /* client, server: CPU us per transaction */
	double user_s[2], sys_s[2];
	double sys_per_tx[2];  /* syscalls per transaction */
	bool partial;
	cJSON *doc;	       /* the run's result, kept with --profile */
};

struct config {
	const char *name;
	const char *group;
	char flags[200];	/* the strategy's flags ("" for the baseline) */
	struct opts o;
	int nsamples;
	struct sample s[16];
	/* analysis */
	double tps, spread, speedup, lo, hi;
	enum verdict verdict;
	bool few; /* fewer than 2 runs: no verdict */
	bool analysed;
};

struct explore {
	const struct workload *wl;
	int rounds;
	bool rounds_given;
	double budget, run_s;
	int nconf;
	struct config conf[MAX_CONFIGS];
	struct config combo; /* the best combination, paired with baseline runs of its own */
	struct sample combo_base[16];
	int ncombo;
	const char *skipped_name[MAX_CONFIGS];
	char skipped_why[MAX_CONFIGS][240];
	const char *skipped_flags[MAX_CONFIGS];
	int nskipped;
	int runs_done, runs_total;
	uint64_t t0;
	bool json;
};

void explore_schedule(int nconfigs, int rounds, int *order)
{
	for (int r = 0; r < rounds; r++)
		for (int c = 0; c < nconfigs; c++)
			order[r * nconfigs + c] = c;
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
		snprintf(c->flags, sizeof(c->flags), "%s", st->args);
		x->nconf++;
	}
	/* Runs: every config each round, then the combination paired with baselines. A short
	 * budget takes 2 runs rather than 3, unless --runs was given. */
	for (;;) {
		x->runs_total = x->nconf * x->rounds + 2 * x->rounds;
		x->run_s = x->budget / x->runs_total - WARMUP_S - RUN_OVERHEAD_S;
		if (x->run_s >= MIN_RUN_S || x->rounds_given || x->rounds == 2)
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

static bool measure(struct explore *x, const struct config *c, const char *label, struct sample *s)
{
	struct result res;

	progress(x, label);
	run_once(x->wl, &c->o, &res);
	double n = result_units(&res);

	s->tps = result_rate(&res);
	s->partial = res.partial;
	s->user_s[0] = res.client.user_s;
	s->sys_s[0] = res.client.sys_s;
	s->user_s[1] = res.server.user_s;
	s->sys_s[1] = res.server.sys_s;
	s->cpu_us[0] = out_cpu_us_per(res.client.user_s, res.client.sys_s, n);
	s->cpu_us[1] = out_cpu_us_per(res.server.user_s, res.server.sys_s, n);
	s->sys_per_tx[0] = n > 0 ? (double)res.client.c.syscalls / n : 0;
	s->sys_per_tx[1] = n > 0 ? (double)res.server.c.syscalls / n : 0;
	s->doc = c->o.profile ? out_result_json(&res) : NULL;
	result_free(&res);
	x->runs_done++;
	return !run_interrupted(); /* a run cut by Ctrl-C is not a sample */
}

static void analyse(struct config *c, const struct sample *base, int n)
{
	double a[16], b[16];

	n = n < c->nsamples ? n : c->nsamples;
	for (int i = 0; i < n; i++) {
		a[i] = base[i].tps;
		b[i] = c->s[i].tps;
	}
	if (n == 0)
		return;
	c->tps = stats_median(b, n);
	c->spread = stats_spread_pct(b, n);
	stats_paired_ratio(a, b, n, BOOT_ITERS, 42, &c->speedup, &c->lo, &c->hi);
	c->verdict = stats_verdict(c->speedup, c->lo, c->hi, MIN_GAIN);
	c->few = n < 2; /* one ratio has no spread to judge it by */
	if (c->few)
		c->verdict = VERDICT_SAME;
	c->analysed = true;
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

		if (c->verdict != VERDICT_FASTER)
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

static cJSON *sample_sides_json(const struct workload *wl, const struct config *c)
{
	cJSON *sides = cJSON_CreateObject();
	static const char *const side_names[] = {"client", "server"};

	for (int k = 0; k < 2; k++) {
		double cpu[16], u[16], s[16], sc[16];
		cJSON *j = cJSON_CreateObject();

		for (int i = 0; i < c->nsamples; i++) {
			cpu[i] = c->s[i].cpu_us[k];
			u[i] = c->s[i].user_s[k];
			s[i] = c->s[i].sys_s[k];
			sc[i] = c->s[i].sys_per_tx[k];
		}
		double mcpu = c->nsamples ? stats_median(cpu, c->nsamples) : 0;
		double msc = c->nsamples ? stats_median(sc, c->nsamples) : 0;

		cJSON_AddNumberToObject(j, "cpu_us_per_unit", mcpu);
		if (!wl->units)
			cJSON_AddNumberToObject(j, "cpu_us_per_transaction", mcpu);
		cJSON_AddNumberToObject(j, "user_s", c->nsamples ? stats_median(u, c->nsamples) : 0);
		cJSON_AddNumberToObject(j, "sys_s", c->nsamples ? stats_median(s, c->nsamples) : 0);
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
	int nbase = c == &x->combo ? x->ncombo : x->conf[0].nsamples;
	cJSON *a[16], *b[16];

	if (!c->o.profile || c == &x->conf[0])
		return NULL;
	for (int i = 0; i < nbase; i++)
		a[i] = base[i].doc;
	for (int i = 0; i < c->nsamples; i++)
		b[i] = c->s[i].doc;
	return moved_of(a, nbase, b, c->nsamples);
}

static void free_docs(struct sample *s, int n)
{
	for (int i = 0; i < n; i++)
		cJSON_Delete(s[i].doc);
}

static cJSON *config_json(const struct explore *x, const struct config *c, int rank)
{
	struct moved_set *mv = config_moved(x, c);

	cJSON *j = cJSON_CreateObject(), *samples = cJSON_CreateArray();

	if (rank)
		cJSON_AddNumberToObject(j, "rank", rank);
	cJSON_AddStringToObject(j, "name", c->name);
	cJSON_AddStringToObject(j, "flags", c->flags);
	cJSON_AddStringToObject(j, "unit", x->wl->unit);
	cJSON_AddNumberToObject(j, "rate", c->tps);
	if (!x->wl->units)
		cJSON_AddNumberToObject(j, "transactions_per_s", c->tps);
	cJSON_AddNumberToObject(j, "spread_pct", c->spread);
	cJSON_AddNumberToObject(j, "speedup", c->speedup);
	cJSON_AddNumberToObject(j, "ci_low", c->lo);
	cJSON_AddNumberToObject(j, "ci_high", c->hi);
	cJSON_AddStringToObject(j, "verdict", c->few ? "not enough runs" : stats_verdict_name(c->verdict));
	cJSON_AddItemToObject(j, "sides", sample_sides_json(x->wl, c));
	for (int i = 0; i < c->nsamples; i++)
		cJSON_AddItemToArray(samples, cJSON_CreateNumber(c->s[i].tps));
	cJSON_AddItemToObject(j, "samples", samples);
	if (mv)
		cJSON_AddItemToObject(j, "where_time_moved", moved_json(mv));
	moved_free(mv);
	return j;
}

static double med_of(const struct config *c, int what, int k)
{
	double v[16];

	for (int i = 0; i < c->nsamples; i++)
		v[i] = what == 0 ? c->s[i].cpu_us[k] : c->s[i].sys_per_tx[k];
	return c->nsamples ? stats_median(v, c->nsamples) : 0;
}

static void print_row(const struct config *c, const char *rank, bool base)
{
	char ci[32] = "-";

	if (!base)
		snprintf(ci, sizeof(ci), "%.2f-%.2f", c->lo, c->hi);
	printf("%-4s %-36.36s %11.0f %5.1f %7.2fx %-11s %7.2f %7.2f %6.2f %6.2f  %s\n", rank,
	       c->name, c->tps, c->spread, base ? 1.0 : c->speedup, ci, med_of(c, 0, 0),
	       med_of(c, 0, 1), med_of(c, 1, 0), med_of(c, 1, 1),
	       base ? "" : c->few ? "1 run: no verdict" : stats_verdict_name(c->verdict));
}

/* Why there is no combination to show. */
static const char *no_combo_reason(const struct explore *x, struct config **ranked, int n)
{
	static char why[200];
	const char *groups[MAX_CONFIGS];
	int faster = 0, ngroups = 0;

	for (int i = 0; i < n; i++) {
		bool seen = false;

		if (ranked[i]->verdict != VERDICT_FASTER)
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
	return "fewer than two strategies were faster, nothing to combine";
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
	       c->speedup);
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

static void print_table(struct explore *x, struct config **ranked, int n, bool have_combo)
{
	printf("sockbench explore %s: %d runs of each configuration, %.2f s each after %.2f s of "
	       "warm-up, interleaved; speedup = median of ratios to the baseline run of the same "
	       "round, with a 95%% bootstrap interval\n\n",
	       x->wl->name, x->rounds, x->run_s, WARMUP_S);
	if (x->rounds < 3)
		printf("(with %d runs an interval spans just the runs' own ratios: give a larger --budget "
		       "for firmer verdicts)\n\n", x->rounds);
	char rate[24];

	snprintf(rate, sizeof(rate), "%.7ss/s", x->wl->unit);
	printf("%-4s %-36s %11s %5s %8s %-11s %7s %7s %6s %6s  %s\n", "rank", "strategy",
	       rate, "+-%", "speedup", "95% CI", "cli us", "srv us", "cli sc", "srv sc",
	       "verdict");
	print_row(&x->conf[0], "-", true);
	for (int i = 0; i < n; i++) {
		char rank[16];

		snprintf(rank, sizeof(rank), "%d", i + 1);
		print_row(ranked[i], rank, false);
	}
	printf("\n(us: CPU microseconds per %s; sc: system calls per %s)\n", x->wl->unit,
	       x->wl->unit);
	for (int i = 0; i < n; i++)
		printf("  %-36s %s\n", ranked[i]->name, ranked[i]->flags);
	if (have_combo) {
		printf("\nbest combination: %s\n  flags: %s\n  ", x->combo.name, x->combo.flags);
		print_row(&x->combo, "", false);
	} else {
		printf("\nbest combination: %s\n", no_combo_reason(x, ranked, n));
	}
	for (int i = 0; i < x->nskipped; i++)
		printf("%s %s (%s): %s\n", i ? "             " : "\nnot tried:  ", x->skipped_name[i],
		       x->skipped_flags[i], x->skipped_why[i]);
	if (x->conf[0].o.profile)
		print_why(x, ranked, n, have_combo);
	if (run_interrupted())
		printf("\nPARTIAL: interrupted after %d of %d runs\n", x->runs_done, x->runs_total);
}

static void print_json(struct explore *x, struct config **ranked, int n, bool have_combo)
{
	cJSON *j = cJSON_CreateObject(), *arr = cJSON_CreateArray(), *sk = cJSON_CreateArray();

	cJSON_AddNumberToObject(j, "schema", RESULT_SCHEMA);
	cJSON_AddStringToObject(j, "tool", "sockbench");
	cJSON_AddStringToObject(j, "kind", "explore");
	cJSON_AddStringToObject(j, "workload", x->wl->name);
	cJSON_AddItemToObject(j, "config", opts_to_json(x->wl->opts, &x->conf[0].o));
	cJSON_AddBoolToObject(j, "partial", run_interrupted());
	cJSON_AddNumberToObject(j, "runs", x->rounds);
	cJSON_AddNumberToObject(j, "run_seconds", x->run_s);
	cJSON_AddItemToObject(j, "baseline", config_json(x, &x->conf[0], 0));
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, config_json(x, ranked[i], i + 1));
	cJSON_AddItemToObject(j, "strategies", arr);
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

/* Take explore's own flags (--budget S, --runs N, --list) out of argv. */
static int take_own_flags(int argc, char **argv, struct explore *x, bool *list, char **rest)
{
	int n = 0;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		char *end;

		if (!strcmp(a, "--list")) {
			*list = true;
		} else if (!strcmp(a, "--budget") || !strcmp(a, "--runs")) {
			if (i + 1 >= argc)
				die_usage("explore: %s needs a value", a);
			double v = strtod(argv[++i], &end);

			if (*end || end == argv[i])
				die_usage("explore: %s '%s' is not a number", a, argv[i]);
			if (!strcmp(a, "--budget")) {
				if (v < 5 || v > 86400)
					die_usage("explore: --budget %s is out of range: use 5 to 86400", argv[i]);
				x->budget = v;
			} else {
				if (v < 2 || v > 16 || v != (int)v)
					die_usage("explore: --runs %s is out of range: use 2 to 16", argv[i]);
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

	explore_schedule(x->nconf, x->rounds, order);
	for (int i = 0; i < x->nconf * x->rounds; i++) {
		struct config *c = &x->conf[order[i]];

		if (!measure(x, c, c->name, &c->s[c->nsamples]))
			break;
		c->nsamples++;
	}
	free(order);
}

static void run_combination(struct explore *x)
{
	for (int r = 0; r < x->rounds && !run_interrupted(); r++) {
		if (!measure(x, &x->conf[0], "baseline (for the combination)", &x->combo_base[r]))
			break;
		x->ncombo++;
		if (!measure(x, &x->combo, "best combination", &x->combo.s[x->combo.nsamples]))
			break;
		x->combo.nsamples++;
	}
	analyse(&x->combo, x->combo_base, x->ncombo);
}

int cmd_explore(int argc, char **argv)
{
	struct explore *x = xcalloc(1, sizeof(*x));
	char **rest = xcalloc((size_t)argc + 1, sizeof(char *));
	bool list = false;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf("usage: sockbench explore WORKLOAD [workload flags] [--budget S] [--runs N] "
		       "[--json] [--list]\n"
		       "Runs the workload as given, then every applicable strategy, interleaved, then "
		       "the best combination of those that helped, and ranks them by measured gain.\n"
		       "  --budget S   total time to spend (default 60)\n"
		       "  --runs N     runs of each configuration (default 3)\n"
		       "  --list       print the strategies (name, flags) and exit\n");
		return argc < 2 ? 2 : 0;
	}
	x->wl = workload_or_exit("explore", argv[1]);
	x->budget = 60;
	x->rounds = 3;
	int nrest = take_own_flags(argc - 2, argv + 2, x, &list, rest);

	if (list) {
		for (const struct strategy *s = x->wl->strategies; s && s->name; s++)
			printf("%s\t%s\n", s->name, s->args);
		free(rest);
		free(x);
		return 0;
	}
	plan(x, rest, nrest);
	x->json = x->conf[0].o.json || OPT_IS_SET(&x->conf[0].o, json);
	x->t0 = now_ns();
	run_all(x);

	struct config *ranked[MAX_CONFIGS];
	int n = 0;
	int nbase = x->conf[0].nsamples;

	struct config *done[MAX_CONFIGS];
	double speedup[MAX_CONFIGS] = {0};
	int order[MAX_CONFIGS];

	analyse(&x->conf[0], x->conf[0].s, nbase);
	for (int i = 1; i < x->nconf; i++) {
		analyse(&x->conf[i], x->conf[0].s, nbase);
		if (x->conf[i].analysed) {
			speedup[n] = x->conf[i].speedup;
			done[n++] = &x->conf[i];
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
		print_json(x, ranked, n, combo && x->combo.analysed);
	else
		print_table(x, ranked, n, combo && x->combo.analysed);
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
