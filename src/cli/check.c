/* check.c: `sockbench check`: is this machine quiet enough to measure on? The noise check
 * that runs before every run, over a longer sample, with every finding explained, and the
 * environment a result would record. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cli/cli.h"
#include "measure/env.h"
#include "measure/noise.h"
#include "report/out.h"

/* Socket settings whose upstream default has long been the same: one set otherwise is said. */
static const struct {
	const char *key, *def;
} sysctl_defaults[] = {
	{"net.core.rmem_default", "212992"}, {"net.core.rmem_max", "212992"},
	{"net.core.wmem_default", "212992"}, {"net.core.wmem_max", "212992"},
	{"net.core.busy_read", "0"}, {"net.core.busy_poll", "0"},
	{"net.core.netdev_max_backlog", "1000"}, {"net.core.netdev_budget", "300"},
	{"net.core.default_qdisc", "pfifo_fast"}, {"net.core.rps_sock_flow_entries", "0"},
	{"net.ipv4.tcp_rmem", "4096 131072 6291456"}, {"net.ipv4.tcp_wmem", "4096 16384 4194304"},
	{"net.ipv4.tcp_congestion_control", "cubic"}, {"net.ipv4.tcp_autocorking", "1"},
	{"net.ipv4.tcp_timestamps", "1"}, {"net.ipv4.tcp_sack", "1"},
	{"net.ipv4.tcp_slow_start_after_idle", "1"}, {"net.ipv4.tcp_early_demux", "1"},
	{"net.ipv4.udp_early_demux", "1"}, {"net.ipv4.tcp_moderate_rcvbuf", "1"},
};

/* Kernel command-line words that change how fast the socket path runs. */
static const char *const cmdline_words[] = {"mitigations=", "isolcpus=", "nohz_full=", "idle=",
					    "intel_pstate=", "processor.max_cstate=",
					    "intel_idle.max_cstate=", "threadirqs", "preempt="};

static void line_cmdline(const cJSON *env)
{
	char cmd[4096], *save = NULL;
	int n = 0;

	out_env_str(env, "kernel.cmdline", cmd, sizeof(cmd));
	for (char *w = strtok_r(cmd, " ", &save); w; w = strtok_r(NULL, " ", &save))
		for (size_t i = 0; i < ARRAY_SIZE(cmdline_words); i++)
			if (!strncmp(w, cmdline_words[i], strlen(cmdline_words[i])))
				printf("%s%s", n++ ? " " : "  boot:      ", w);
	if (n)
		printf("\n");
}

static void line_sysctls(const cJSON *env)
{
	const cJSON *sys = cJSON_GetObjectItemCaseSensitive(env, "sysctl");
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(sysctl_defaults); i++) {
		const char *v = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(sys, sysctl_defaults[i].key));

		if (v && strcmp(v, sysctl_defaults[i].def))
			printf("%s%s %s (default %s)", n++ ? ", " : "  sysctl:    ",
			       sysctl_defaults[i].key, v, sysctl_defaults[i].def);
	}
	printf("%s\n", n ? "" : "  sysctl:    the socket settings are the kernel's defaults");
}

/* A few lines of what is set that shapes results, then each finding with its fix. */
static void check_summary(const cJSON *env, const struct noise *n)
{
	char a[160], b[160], c[64], d[64], e[64], f[64], g[64], h[64];

	printf("sockbench check: %s\n", n->n ? "something here would move the figures"
					       : "quiet: nothing found that would add noise");
	printf("  kernel:    Linux %s %s\n", out_env_str(env, "kernel.release", a, sizeof(a)),
	       out_env_str(env, "kernel.machine", c, sizeof(c)));
	printf("  CPUs:      %s online (%s), SMT %s, %s NUMA node(s); governor %s, turbo %s\n",
	       out_env_str(env, "cpu.online", c, sizeof(c)), out_env_str(env, "cpu.model", a, sizeof(a)),
	       out_env_str(env, "cpu.smt", d, sizeof(d)), out_env_str(env, "cpu.numa_nodes", e, sizeof(e)),
	       out_env_str(env, "cpu.governor", f, sizeof(f)), out_env_str(env, "cpu.turbo", g, sizeof(g)));
	printf("  clock:     %s; hypervisor %s\n", out_env_str(env, "clocksource", c, sizeof(c)),
	       out_env_str(env, "virtualization.hypervisor", d, sizeof(d)));
	printf("  interface: %s (driver %s, MTU %s, qdisc %s, GRO %s, GSO %s, TSO %s, RPS CPUs %s)\n",
	       out_env_str(env, "interface.name", a, sizeof(a)),
	       out_env_str(env, "interface.driver", b, sizeof(b)),
	       out_env_str(env, "interface.mtu", c, sizeof(c)), out_env_str(env, "interface.qdisc", d, sizeof(d)),
	       out_env_str(env, "interface.offloads.gro", e, sizeof(e)),
	       out_env_str(env, "interface.offloads.gso", f, sizeof(f)),
	       out_env_str(env, "interface.offloads.tso", g, sizeof(g)),
	       out_env_str(env, "interface.rps_cpus", h, sizeof(h)));
	line_cmdline(env);
	line_sysctls(env);
	for (int i = 0; i < n->n; i++)
		printf("  warning: %s: %s\n    fix: %s\n", n->f[i].what, n->f[i].does, n->f[i].fix);
	printf("  (sampled %.1f s; --json: the whole environment, as every result records it)\n",
	       n->sample_s);
}

/* check's own flags: --sample takes the time units every other time option takes (opts.h). */
struct check_args {
	long sample; /* ms */
	bool json;
};

const struct opt_def check_flags[] = {
	{OWN_FLAG(INT, struct check_args, sample, "sample", 100, 60000, "MS",
		  "how long to sample /proc (a unit if you like: 2s, 500ms)"),
	 .def = "1000"},
	{OWN_FLAG(BOOL, struct check_args, json, "json", 0, 1, "",
		  "print the findings and the whole environment a result records, as JSON"),
	 .shortc = 'j'},
	{0},
};

static const struct cmd_usage check_usage = {
    .cmd = "check",
    .args = "",
    .summary = "Looks for what would make figures vary (frequency scaling, turbo, busy processes, "
	       "steal time, a CPU loaded with interrupts, a slow clock source), sampling /proc, "
	       "and prints a summary of what is set that shapes results (kernel, CPUs, clock, "
	       "interface, boot flags, socket sysctls not at the kernel's default), then each "
	       "finding with what it does and how to fix it. Exit 0 when quiet, 1 when something "
	       "was found.",
};

int cmd_check(int argc, char **argv)
{
	struct check_args f = {0};
	char **rest = xcalloc((size_t)argc + 1, sizeof(*rest)), err[512];
	int nrest, e = 0;

	opts_own_defaults(check_flags, &f);
	if ((nrest = opts_take(check_flags, &f, &(struct opts_words){argc - 1, argv + 1}, rest, err,
			       sizeof(err))) < 0 ||
	    (e = opts_own_words(check_flags, rest, nrest, err, sizeof(err))) < 0)
		die_usage("check: %s", err);
	if (e) {
		opts_usage_cmd(check_flags, &check_usage, stdout);
		free(rest);
		return 0;
	}
	if (nrest)
		die_usage("check: unexpected argument '%.*s%s' (see '--help')", OPTS_VAL(rest[0]));
	free(rest);
	int ms = (int)f.sample;
	bool json = f.json;
	struct noise n;
	cJSON *env = env_collect(NULL, 0);

	noise_check(&n, ms);
	if (json) {
		cJSON *j = cJSON_CreateObject(), *arr = cJSON_CreateArray();

		cJSON_AddStringToObject(j, "tool", "sockbench");
		cJSON_AddStringToObject(j, "kind", "check");
		cJSON_AddNumberToObject(j, "sample_s", n.sample_s);
		for (int i = 0; i < n.n; i++) {
			cJSON *e = cJSON_CreateObject();

			cJSON_AddStringToObject(e, "what", n.f[i].what);
			cJSON_AddStringToObject(e, "does", n.f[i].does);
			cJSON_AddStringToObject(e, "fix", n.f[i].fix);
			cJSON_AddItemToArray(arr, e);
		}
		cJSON_AddItemToObject(j, "findings", arr);
		cJSON_AddItemToObject(j, "environment", env);
		out_print_json(j, stdout);
		cJSON_Delete(j);
		return n.n ? 1 : 0;
	}
	check_summary(env, &n);
	cJSON_Delete(env);
	return n.n ? 1 : 0;
}
