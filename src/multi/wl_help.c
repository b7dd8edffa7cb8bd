/* wl_help.c: see wl_help.h. `explore tcp-rr --help` asks for tcp-rr's flags under explore,
 * not for a strategy named --help; it gets them, and exit 0. */
#include "multi/wl_help.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/util.h"

/* How each command reads the workload's flags below its usage. */
static const struct {
	const char *cmd, *note;
} notes[] = {
    {"explore", "These flags set the baseline: the workload as given, which every strategy is "
		"measured against (a strategy adds its own flags on top).\nexplore's own flags "
		"(--budget, --runs, --seed, --list, --kernel): sockbench explore --help"},
    {"compare", "Each configuration is the workload and these flags, quoted as one word: "
		"sockbench compare 'WORKLOAD [flags]' 'WORKLOAD [flags]'.\ncompare's own flags "
		"(--runs, --seed, --primary, --profile, --json): sockbench compare --help"},
    {"sweep", "Each flag that takes a value may take a comma-separated list of them (--size "
	      "100,1K); the grid is every combination.\nsweep's own flags (--csv, --plot, "
	      "--compare, --json, --seed): sockbench sweep --help"},
    {"knee", "These flags set the workload; knee sweeps its offered load.\nknee's own flags: "
	     "sockbench knee --help"},
};

static bool is_help(const char *w)
{
	return !strcmp(w, "--help") || !strcmp(w, "-h");
}

static void print_help(const char *cmd, const struct workload *wl)
{
	char head[96];

	snprintf(head, sizeof(head), "%s %s", cmd, wl->name);
	opts_usage(wl->opts, wl->overrides, head, wl->summary, stdout);
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++)
		if (!strcmp(notes[i].cmd, cmd))
			printf("\n%s\n", notes[i].note);
	exit(0);
}

void wl_help_or_return(const char *cmd, const struct workload *wl, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return;
		if (is_help(argv[i]))
			print_help(cmd, wl);
	}
}

void wl_help_quoted_or_return(const char *cmd, const char *config)
{
	char *copy = xstrdup(config), *save = NULL, *w;
	const struct workload *wl = NULL;
	bool help = false;

	for (w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (!wl && !(wl = workload_find(w)))
			break;
		help |= is_help(w);
	}
	free(copy);
	if (wl && help)
		print_help(cmd, wl);
}
