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

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/moved.h"
#include "measure/env.h"
#include "multi/repeat.h"
#include "report/out.h"
#include "base/util.h"

#include "multi/explore_priv.h"

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

/* --kernel: the kernel's knobs (root), each set for its runs only (--sysctl) and put back
 * after them, marked system-wide: they change the host, not the program. Proto: "Tcp" or "Udp"
 * for those that act on one protocol, NULL for both. */
static const struct kernel_strategy {
	struct strategy st;
	const char *proto;
} kernel_strategies[] = {
	{{"busy_read/busy_poll 50us [sys]", "kbusy",
	  "--sysctl net.core.busy_read=50 --sysctl net.core.busy_poll=50", false}, NULL},
	{{"socket buffers 1 MiB [sys]", "kbuf",
	  "--sysctl net.core.rmem_default=1048576 --sysctl net.core.wmem_default=1048576 "
	  "--sysctl net.core.rmem_max=16777216 --sysctl net.core.wmem_max=16777216", false}, NULL},
	{{"backlog 10k, budget 600 [sys]", "kbudget",
	  "--sysctl net.core.netdev_max_backlog=10000 --sysctl net.core.netdev_budget=600", false},
	 NULL},
	{{"TCP autocorking off [sys]", "kcork", "--sysctl net.ipv4.tcp_autocorking=0", false},
	 "Tcp"},
	{{"TCP timestamps off [sys]", "kts", "--sysctl net.ipv4.tcp_timestamps=0", false},
	 "Tcp"},
	{{"no slow start after idle [sys]", "kssai",
	  "--sysctl net.ipv4.tcp_slow_start_after_idle=0", false}, "Tcp"},
	{{0}, NULL},
};

static void skip_strategy(struct explore *x, const struct strategy *st, const char *why)
{
	x->skipped_name[x->nskipped] = st->name;
	x->skipped_flags[x->nskipped] = st->args;
	snprintf(x->skipped_why[x->nskipped++], sizeof(x->skipped_why[0]), "%s", why);
}

static void add_strategy(struct explore *x, const struct strategy *st, char **user, int nuser)
{
	struct config *c = &x->conf[x->nconf];
	char err[240];

	if (x->nconf == MAX_CONFIGS || x->nskipped == MAX_CONFIGS)
		return;
	if (parse_config(x->wl, user, nuser, st->args, &c->o, err, sizeof(err))) {
		opts_free(&c->o);
		skip_strategy(x, st, err);
		return;
	}
	if (same_config(x->wl, &c->o, &x->conf[0].o)) {
		opts_free(&c->o);
		skip_strategy(x, st, "already in the baseline");
		return;
	}
	c->name = st->name;
	c->group = st->group;
	c->changes = st->changes_workload;
	snprintf(c->flags, sizeof(c->flags), "%s", st->args);
	x->nconf++;
}

/* Every CPU, as rps_cpus wants it: hex, 32 bits a group, groups comma-separated. */
static void all_cpus_mask(char *out, size_t len)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int groups = (int)((n + 31) / 32);
	size_t o = 0;

	out[0] = 0;
	for (int g = groups - 1; g >= 0 && o < len; g--) {
		long bits = n - 32L * g > 32 ? 32 : n - 32L * g;
		unsigned v = bits == 32 ? 0xffffffffu : (1u << bits) - 1;

		o += (size_t)snprintf(out + o, len - o, g == groups - 1 ? "%x" : ",%08x", v);
	}
}

/* Receive steering on the data path of a local run: loopback, whose receive path RPS can
 * spread (netif_rx goes through the per-CPU backlog). */
static char rps_args[256], rfs_args[400];
static const struct strategy steer[2] = {
	{"RPS over every CPU (lo) [sys]", "ksteer", rps_args, false},
	{"RPS + RFS (lo) [sys]", "ksteer", rfs_args, false},
};

static void steer_args(void)
{
	char mask[160];

	all_cpus_mask(mask, sizeof(mask));
	snprintf(rps_args, sizeof(rps_args), "--sysctl net.dev.lo.rps_cpus=%s", mask);
	snprintf(rfs_args, sizeof(rfs_args), "--sysctl net.dev.lo.rps_cpus=%s --sysctl "
		 "net.core.rps_sock_flow_entries=32768 --sysctl net.dev.lo.rps_flow_cnt=32768", mask);
}

static void plan_kernel(struct explore *x, char **user, int nuser)
{
	static char coal_why[240];
	static const struct strategy coal = {"interrupt coalescing (lo) [sys]", "kcoal",
					     "(ethtool -C lo)", false};
	int e;

	if (x->conf[0].o.server)
		die_usage("explore --kernel sets this host's kernel settings: run it on the host of "
			  "the test (the agent's --allow-sysctl covers a single --sysctl run)");
	if (geteuid() != 0)
		die_usage("explore --kernel writes /proc/sys: run it as root");
	for (const struct kernel_strategy *k = kernel_strategies; k->st.name; k++)
		if (!k->proto || !strcmp(k->proto, x->wl->snmp_proto))
			add_strategy(x, &k->st, user, nuser);
	steer_args();
	add_strategy(x, &steer[0], user, nuser);
	add_strategy(x, &steer[1], user, nuser);
	/* Coalescing is the driver's to offer: where it does not, say so. */
	if ((e = env_coalesce_probe("lo")))
		snprintf(coal_why, sizeof(coal_why), "lo's driver has no interrupt coalescing "
			 "settings (ETHTOOL_GCOALESCE: %s)", strerror(-e));
	else
		snprintf(coal_why, sizeof(coal_why), "lo's driver has coalescing settings, but "
			 "sockbench sets only /proc/sys and rx-queue files so far");
	skip_strategy(x, &coal, coal_why);
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
	for (const struct strategy *st = wl->strategies; st && st->name; st++)
		add_strategy(x, st, user, nuser);
	if (x->kernel)
		plan_kernel(x, user, nuser);
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
		die_usage("explore: --budget %.0f is too short for %d configurations x %ld runs: give at "
			  "least %.0f seconds, or fewer --runs",
			  x->budget, x->nconf, x->rounds,
			  x->runs_total * (MIN_RUN_S + WARMUP_S + RUN_OVERHEAD_S) + 1);
	for (int i = 0; i < x->nconf; i++)
		fit_run(x, &x->conf[i].o);
}

/* One run, in a child process of its own; false when Ctrl-C cut it (no sample, and stop). */
static bool measure(struct explore *x, const struct config *c, const char *label, struct sample *s)
{
	cJSON *doc;

	progress_line("explore: run", label, x->runs_done, x->runs_total, x->t0);
	*s = (struct sample){0};
	s->status = run_isolated(x->wl, &c->o, &doc, s->why, sizeof(s->why));
	x->runs_done++;
	if (run_interrupted()) {
		cJSON_Delete(doc);
		return false;
	}
	if (s->status == RUN_WHOLE)
		figures_of(doc, s->fig);
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
		if (base[i].status == RUN_WHOLE && c->s[i].status == RUN_WHOLE &&
		    base[i].fig[FIG_RATE] > 0 && c->s[i].fig[FIG_RATE] > 0) {
			a[n] = base[i].fig[FIG_RATE];
			b[n++] = c->s[i].fig[FIG_RATE];
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
			t[k++] = c->s[i].fig[FIG_RATE];
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


static void free_docs(struct sample *s, int n)
{
	for (int i = 0; i < n; i++)
		cJSON_Delete(s[i].doc);
}

/* Take explore's own flags (--budget S, --runs N, --seed N, --list) out of argv. */
/* explore's own flags; the other words are the workload's. */
const struct opt_def explore_flags[] = {
	OWN_FLAG(DBL, struct explore, budget, "budget", 5, 86400),
	OWN_FLAG(INT, struct explore, rounds, "runs", 2, MAX_ROUNDS),
	OWN_FLAG(U64, struct explore, seed, "seed", 1, 0),
	OWN_FLAG(BOOL, struct explore, list, "list", 0, 1),
	OWN_FLAG(BOOL, struct explore, kernel, "kernel", 0, 1),
	{0},
};

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
	struct explore *x;
	char **rest;
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf("usage: sockbench explore WORKLOAD [workload flags] [--budget S] [--runs N] "
		       "[--seed N] [--json] [--list] [--kernel]\n"
		       "Runs the workload as given and every applicable strategy in rounds (each round "
		       "all of them, in a random order), then the best combination of those found "
		       "faster, and ranks them by measured gain; the verdicts share one 5%% error "
		       "budget.\n"
		       "  --budget S   total time to spend (default %d)\n"
		       "  --runs N     rounds (default %d; fewer when the budget is short, down to %d)\n"
		       "  --seed N     of the order of runs (default: a fresh one, printed)\n"
		       "  --list       print the strategies (name, flags) and exit\n"
		       "  --kernel     add the kernel's knobs (root): busy polling, buffer sizes, backlog "
		       "and budget, RPS and RFS, TCP autocorking, timestamps, slow start after idle; "
		       "each set with "
		       "--sysctl for its runs only, marked [sys] (system-wide)\n",
		       DEFAULT_BUDGET, STATS_DEFAULT_RUNS, MIN_ROUNDS);
		return argc < 2 ? 2 : 0;
	}
	x = xcalloc(1, sizeof(*x));
	rest = xcalloc((size_t)argc + 1, sizeof(char *));
	x->wl = workload_or_exit("explore", argv[1]);
	x->budget = DEFAULT_BUDGET;
	x->rounds = 0; /* given or not: see below */
	int nrest;
	char err[200];

	if (opts_take(explore_flags, x, argc - 2, argv + 2, rest, &nrest, err, sizeof(err)))
		die_usage("explore: %s", err);
	x->rounds_given = x->rounds != 0;
	if (!x->rounds)
		x->rounds = STATS_DEFAULT_RUNS;
	if (x->list) {
		for (const struct strategy *s = x->wl->strategies; s && s->name; s++)
			printf("%s\t%s%s\n", s->name, s->args, s->changes_workload ? "\t(changes the workload)" : "");
		for (const struct kernel_strategy *k = kernel_strategies; x->kernel && k->st.name; k++)
			if (!k->proto || !strcmp(k->proto, x->wl->snmp_proto))
				printf("%s\t%s\n", k->st.name, k->st.args);
		steer_args();
		for (int i = 0; x->kernel && i < 2; i++)
			printf("%s\t%s\n", steer[i].name, steer[i].args);
		free(rest);
		free(x);
		return 0;
	}
	if (!x->seed)
		x->seed = fresh_seed();
	plan(x, rest, nrest);
	x->json = x->conf[0].o.json || OPT_IS_SET(&x->conf[0].o, json);
	x->t0 = now_ns();
	run_signals_keep();
	out_noise_warnings(stderr);
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
	progress_clear();
	if (x->json)
		explore_print_json(x, ranked, n, apart, napart, combo && x->combo.analysed);
	else
		explore_print_table(x, ranked, n, apart, napart, combo && x->combo.analysed);
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
