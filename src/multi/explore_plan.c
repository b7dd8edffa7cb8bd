/* explore_plan.c: what an exploration runs: the baseline as given, each strategy of the
 * workload that applies (and, with --kernel, the kernel's knobs), each a parsed configuration,
 * and the length of every run, fitted to the budget. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/util.h"
#include "measure/env.h"
#include "transport/knobs.h"
#include "profile/moved.h"

#include "multi/explore_priv.h"

/* argv = the user's flags, then the strategy's (later flags win), split in store. */
static int build_argv(const struct config_line *cl, char *store, size_t storelen, char **argv)
{
	int argc = 0;

	argv[argc++] = (char *)cl->wl->name;
	for (int i = 0; i < cl->nuser && argc < MAX_ARGS - 1; i++)
		argv[argc++] = cl->user[i];
	snprintf(store, storelen, "%s", cl->extra ? cl->extra : "");
	for (char *tok = strtok(store, " "); tok && argc < MAX_ARGS - 1; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return argc;
}

int explore_parse_config(const struct config_line *cl, struct opts *o, char *err, size_t errlen)
{
	const struct workload *wl = cl->wl;
	char store[512], *argv[MAX_ARGS]; /* a configuration's flags: at most 400 */
	int argc = build_argv(cl, store, sizeof(store), argv);
	int ret;

	opts_defaults(o, wl->overrides);
	ret = opts_parse(wl->opts, wl->overrides, &(struct opts_words){argc, argv}, o, err, errlen);
	if (ret == 0)
		ret = wl->check(o, err, errlen);
	/* As a run's own command line is checked (workload_parse_or_exit): a strategy naming CPUs
	 * this machine lacks, or placing threads the user placed with --pin, is not tried. */
	if (ret == 0)
		ret = knobs_check(o, !strcmp(wl->snmp_proto, "Tcp"), err, errlen);
	if (ret == 0)
		ret = cpus_check(o, err, errlen);
	if (ret == 0)
		workload_effective(wl, o);
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
void explore_fit_run(const struct explore *x, struct opts *o)
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
	struct config_line cl = {.wl = x->wl, .user = user, .nuser = nuser, .extra = st->args};
	char err[240];

	if (x->nconf == MAX_CONFIGS || x->nskipped == MAX_CONFIGS)
		return;
	if (explore_parse_config(&cl, &c->o, err, sizeof(err))) {
		opts_free(&c->o);
		skip_strategy(x, st, err);
		return;
	}
	/* A strategy that places clients and server threads on the same CPUs pairs them where
	 * both run on this host: with another host it places the two sides of nothing. */
	if (strstr(st->args, "--cpus") && (c->o.server || c->o.clients_on)) {
		opts_free(&c->o);
		skip_strategy(x, st, "it pairs each client with a server thread on one CPU (on "
			      "loopback a datagram arrives on its sender's CPU): with --server or "
			      "--clients-on the two sides are on different hosts");
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

/* The candidates a step of the search is planned with: the strategies ranked (not apart)
 * outside the largest group (the screen's best is most often of that one). */
static int planned_candidates(const struct explore *x)
{
	int n = 0, most = 0;

	for (int i = 1; i < x->nconf; i++) {
		int same = 0;

		if (x->conf[i].changes)
			continue;
		n++;
		for (int j = 1; j < x->nconf; j++)
			same += !x->conf[j].changes && !strcmp(x->conf[j].group, x->conf[i].group);
		most = same > most ? same : most;
	}
	return n - most;
}

/* The runs an exploration plans with: the screen's, a search step's with cand candidates (0:
 * none planned), the final comparison's. */
int explore_selection_rounds(int rounds)
{
	int least = rounds < MIN_ROUNDS ? rounds : MIN_ROUNDS; /* --runs 2 means 2 */

	return rounds / 2 < least ? least : rounds / 2;
}

/* The runs planned: the screen's nconf x rounds, a search step's with cand candidates
 * (selection and confirmation; none when cand is 0), the final comparison's. */
static int explore_planned_runs(int nconf, int rounds, int cand)
{
	int sel = explore_selection_rounds(rounds);

	return nconf * rounds + (cand ? sel * (cand + 1) + 2 * rounds : 0) + 2 * rounds;
}

/* What a run costs beyond its warm-up and window, as planned (each round then refits it to
 * what the runs took). */
double explore_planned_overhead(const struct explore *x)
{
	return RUN_OVERHEAD_S + (x->conf[0].o.trace ? TRACE_OVERHEAD_S : 0);
}

/* The rounds and the windows for the plan with cand candidates a step: true when they fit. */
static bool fit_rounds(struct explore *x, int cand)
{
	if (!x->rounds_given)
		x->rounds = STATS_DEFAULT_RUNS;
	for (;;) {
		x->runs_total = explore_planned_runs(x->nconf, (int)x->rounds, cand);
		x->run_s = x->budget / x->runs_total - WARMUP_S - explore_planned_overhead(x);
		if (x->run_s >= MIN_RUN_S || x->rounds_given || x->rounds == MIN_ROUNDS)
			break;
		x->rounds--;
	}
	return x->run_s >= MIN_RUN_S;
}

void explore_plan(struct explore *x, char **user, int nuser)
{
	const struct workload *wl = x->wl;
	char err[512];
	struct config *base = &x->conf[0];
	struct config_line cl = {.wl = wl, .user = user, .nuser = nuser};

	base->name = "baseline (as given)";
	base->group = "";
	if (explore_parse_config(&cl, &base->o, err, sizeof(err)))
		die_usage("explore %s: %s", wl->name, err);
	x->nconf = 1;
	cpus_one_fill();
	for (const struct strategy *st = wl->strategies; st && st->name; st++)
		add_strategy(x, st, user, nuser);
	if (x->kernel)
		plan_kernel(x, user, nuser);
	/* Runs: every config each round (the screen), one step of the search, and the final
	 * comparison. A short budget takes fewer rounds (down to 3), unless --runs was given;
	 * one too short for a step of the search plans without it (the search then says what it
	 * needed). */
	if (!fit_rounds(x, planned_candidates(x)) && !fit_rounds(x, 0))
		die_usage("explore: --budget %.0f is too short for %d configurations x %ld runs: give at "
			  "least %.0f seconds, or fewer --runs",
			  x->budget, x->nconf, x->rounds,
			  ceil(x->runs_total * (MIN_RUN_S + WARMUP_S + explore_planned_overhead(x)) -
			       1e-9)); /* the least whole budget that fits */
	for (int i = 0; i < x->nconf; i++)
		explore_fit_run(x, &x->conf[i].o);
}

void explore_list(const struct explore *x)
{
	cpus_one_fill();
	for (const struct strategy *s = x->wl->strategies; s && s->name; s++)
		printf("%s\t%s%s\n", s->name, s->args,
		       s->changes_workload ? "\t(changes the workload)" : "");
	for (const struct kernel_strategy *k = kernel_strategies; x->kernel && k->st.name; k++)
		if (!k->proto || !strcmp(k->proto, x->wl->snmp_proto))
			printf("%s\t%s\n", k->st.name, k->st.args);
	steer_args();
	for (int i = 0; x->kernel && i < 2; i++)
		printf("%s\t%s\n", steer[i].name, steer[i].args);
}
