/* main.c: the command table (iproute2 ip.c style): the workloads from workload/registry.c,
 * then the other commands; the usage text is made from the same table. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outfile.h"
#include "base/suggest.h"
#include "base/util.h"
#include "cli/cli.h"
#include "link/serve.h"
#include "link/sysctl.h"
#include "multi/compare.h"
#include "multi/explore.h"
#include "multi/knee.h"
#include "transport/io.h"
#include "workload/workload.h"

#ifndef SB_VERSION
#define SB_VERSION "unknown"
#endif

static int cmd_list(int argc, char **argv);
static int cmd_list_io(int argc, char **argv);
static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);
static int cmd_completion(int argc, char **argv);

static const struct command commands[] = {
	{"explore", {0}, cmd_explore,
	 "\"what can I do?\": every strategy on your workload, ranked by measured gain",
	 .flags = explore_flags, .arg = ARG_WORKLOAD},
	{"compare", {0}, cmd_compare,
	 "A/B: two configurations interleaved, or two saved --json results, with a verdict",
	 .flags = compare_flags, .arg = ARG_JSON},
	{"knee", {0}, cmd_knee,
	 "the highest open-loop rate (--rate) whose latency percentile holds an SLO (table, JSON, SVG)",
	 .flags = knee_flags, .arg = ARG_WORKLOAD},
	{"sweep", {0}, cmd_sweep, "a grid of flag values (table, CSV, JSON, gnuplot SVG), optionally B/A",
	 .flags = sweep_flags, .arg = ARG_WORKLOAD},
	{"report", {0}, cmd_report,
	 "one self-contained HTML page (SVG pictures, flame graphs) from saved --json results",
	 .flags = report_flags, .arg = ARG_JSON},
	{"serve", {0}, cmd_serve,
	 "run the server side of tests for a controller (another host or a local run)",
	 .flags = opts_serve},
	{"check", {0}, cmd_check,
	 "is this machine quiet enough to measure on? what would add noise, and the environment",
	 .flags = check_flags},
	{"list", {0}, cmd_list, "the workloads, one per line", .usage = ""},
	{"list-io", {0}, cmd_list_io, "the I/O back ends built in, one per line", .usage = ""},
	{"version", {"--version"}, cmd_version, "print the version", .usage = ""},
	{"completion", {0}, cmd_completion, "`completion bash`: the bash completion script",
	 .words = "bash"},
	{"man-options", {0}, cmd_man_options, "a command's options as troff (make man uses it)",
	 .hidden = true},
	{"help", {"--help", "-h"}, cmd_help, "this text", .arg = ARG_COMMAND, .usage = "[COMMAND]"},
};

static int cmd_completion(int argc, char **argv)
{
	return completion_main(argc, argv, commands, ARRAY_SIZE(commands));
}

static void usage(FILE *f)
{
	fprintf(f, "usage: sockbench COMMAND [options]   (sockbench COMMAND --help for its options)\n\n"
		   "workloads:\n");
	for (int i = 0; workloads[i]; i++)
		fprintf(f, "  %-10s %s\n", workloads[i]->name, workloads[i]->summary);
	fprintf(f, "\nother commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!commands[i].hidden)
			fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

static int cmd_list(int argc, char **argv)
{
	(void)argc, (void)argv;
	for (int i = 0; workloads[i]; i++)
		printf("%s\n", workloads[i]->name);
	return 0;
}

static int cmd_list_io(int argc, char **argv)
{
	(void)argc, (void)argv;
	for (int i = 0; io_registry[i]; i++)
		printf("%s\n", io_registry[i]->name);
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	(void)argc, (void)argv;
	printf("sockbench %s\n", SB_VERSION);
	return 0;
}

static const struct command *command_find(const char *name);

/* `sockbench COMMAND --help` of a command without its own: its usage line and summary. 0. */
static int plain_usage(const struct command *c)
{
	printf("usage: sockbench %s%s%s\n%s\n", c->name, *c->usage ? " " : "", c->usage,
	       c->summary);
	return 0;
}

/* `sockbench help [COMMAND]`: the list, or that command's own --help. */
static int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	const struct workload *wl = workload_find(argv[1]);
	const struct command *c = command_find(argv[1]);
	char *args[] = {argv[1], "--help", NULL};

	if (wl)
		return cmd_workload(wl, 2, args);
	if (c && !c->usage)
		return c->fn(2, args);
	if (c)
		return plain_usage(c);
	die_usage("help: unknown command '%s' (try 'sockbench help')", argv[1]);
}

static const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(commands[i].name, name))
			return &commands[i];
		for (size_t k = 0; k < ARRAY_SIZE(commands[i].alias) && commands[i].alias[k]; k++)
			if (!strcmp(commands[i].alias[k], name))
				return &commands[i];
	}
	return NULL;
}

/* Exit 2 naming the nearest command or workload, if the word looks like a typo of one. */
static void __attribute__((noreturn)) unknown_command(const char *word)
{
	const char *names[64];
	size_t n = 0;

	for (int i = 0; workloads[i] && n < ARRAY_SIZE(names); i++)
		names[n++] = workloads[i]->name;
	for (size_t i = 0; i < ARRAY_SIZE(commands) && n < ARRAY_SIZE(names); i++)
		if (!commands[i].hidden)
			names[n++] = commands[i].name;
	const char *near = suggest_nearest(word, names, n);
	char peer[256];

	if (opts_peer_command(word, peer, sizeof(peer)))
		die_usage("%s (try 'sockbench help')", peer);
	if (near)
		die_usage("unknown command '%s'; did you mean '%s'? (try 'sockbench help')", word, near);
	die_usage("unknown command '%s' (try 'sockbench help')", word);
}

static pid_t main_pid;

/* At exit: what the command printed must have reached standard output. A full disk or >/dev/full
 * is a failure, not a cut-short report with exit 0. Forked children leave it to us. */
static void stdout_check(void)
{
	bool bad;
	int e;

	if (getpid() != main_pid)
		return;
	errno = 0;
	bad = fflush(stdout) != 0;
	e = errno;
	bad |= ferror(stdout) != 0;
	if (!bad && fclose(stdout) && errno != EBADF) { /* EBADF: closed (>&-), never written */
		bad = true;
		e = errno;
	}
	if (outfile_stdout_error())
		e = -outfile_stdout_error();
	if (bad) {
		fprintf(stderr, "sockbench: writing the report to standard output: %s\n",
			strerror(e ? e : EIO));
		_exit(1);
	}
}

int main(int argc, char **argv)
{
	main_pid = getpid();
	outfile_stdout();
	atexit(stdout_check);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const struct workload *wl = workload_find(argv[1]);
	const struct command *c = command_find(argv[1]);
	char msg[2048];

	/* Kernel settings a sockbench that died left changed (--sysctl) go back first. */
	if (sysctl_recover(msg, sizeof(msg)))
		fprintf(stderr, "sockbench: %s\n", msg);

	if (wl)
		return cmd_workload(wl, argc - 1, argv + 1);
	if (c && c->usage && argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")))
		return plain_usage(c);
	if (c)
		return c->fn(argc - 1, argv + 1);
	unknown_command(argv[1]);
}
