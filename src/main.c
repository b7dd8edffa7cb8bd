/* main.c: the subcommand table (iproute2 ip.c style). Workloads come from workloads.c. */
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "explore.h"
#include "run.h"
#include "io.h"
#include "serve.h"
#include "util.h"
#include "workload.h"

#ifndef SB_VERSION
#define SB_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f, "usage: sockbench COMMAND [options]   (sockbench COMMAND --help for its options)\n\n"
		   "workloads:\n");
	for (int i = 0; workloads[i]; i++)
		fprintf(f, "  %-10s %s\n", workloads[i]->name, workloads[i]->summary);
	fprintf(f, "\nother commands:\n"
		   "  explore    \"what can I do?\": every strategy on your workload, ranked by measured gain\n"
		   "  compare    A/B: two configurations interleaved, or two saved --json results, with a verdict\n"
		   "  sweep      a grid of flag values (table, CSV, JSON, gnuplot SVG), optionally B/A\n"
		   "  serve      run the server side of tests for a controller (another host or a local run)\n"
		   "  list       the workloads, one per line\n"
		   "  list-io    the I/O back ends built in, one per line\n"
		   "  version    print the version\n"
		   "  help       this text\n");
}

static int cmd_list(void)
{
	for (int i = 0; workloads[i]; i++)
		printf("%s\n", workloads[i]->name);
	return 0;
}

static int cmd_list_io(void)
{
	for (int i = 0; io_registry[i]; i++)
		printf("%s\n", io_registry[i]->name);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	const struct workload *wl = workload_find(cmd);

	if (wl)
		return cmd_workload(wl, argc - 1, argv + 1);
	if (!strcmp(cmd, "serve"))
		return cmd_serve(argc - 1, argv + 1);
	if (!strcmp(cmd, "explore"))
		return cmd_explore(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return cmd_compare(argc - 1, argv + 1);
	if (!strcmp(cmd, "sweep"))
		return cmd_sweep(argc - 1, argv + 1);
	if (!strcmp(cmd, "list-io"))
		return cmd_list_io();
	if (!strcmp(cmd, "list"))
		return cmd_list();
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("sockbench %s\n", SB_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	die_usage("unknown command '%s' (try 'sockbench help')", cmd);
}
