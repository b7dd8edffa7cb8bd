/* completion.c: what is made from the option tables for the system around sockbench:
 * `sockbench man-options CMD` (the man page's option lists, scripts/mkman) and
 * `sockbench completion bash`: a bash completion script made from the option tables, so it names
 * every flag each command takes and nothing else, and offers an enum flag's words and a file flag's
 * paths. Installed by `make install` (and the package) as
 * share/bash-completion/completions/sockbench. */
#include <stdio.h>
#include <string.h>

#include "base/opts.h"
#include "base/util.h"
#include "cli/cli.h"
#include "multi/compare.h"
#include "multi/explore.h"

/* Flags whose value is a path. */
static bool takes_file(const struct opt_def *d)
{
	return d->type == OPT_STR && d->metavar &&
	       (strstr(d->metavar, "FILE") || !strcmp(d->name, "auth-file"));
}

/* One case of the script: the command's flags, then what follows an enum or a file flag. */
static void command_case(const char *name, const struct opt_def *defs, const char *extra)
{
	printf("\t%s)\n\t\topts=\"--help", name);
	for (const struct opt_def *d = defs; d->name; d++)
		printf(" --%s", d->name);
	printf("%s%s\"\n\t\tcase \"$prev\" in\n", extra ? " " : "", extra ? extra : "");
	for (const struct opt_def *d = defs; d->name; d++) {
		if (d->type == OPT_ENUM) {
			char words[256];

			snprintf(words, sizeof(words), "%s", d->metavar);
			for (char *c = words; *c; c++)
				if (*c == '|')
					*c = ' ';
			printf(
			    "\t\t--%s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n",
			    d->name, words);
		} else if (takes_file(d)) {
			printf("\t\t--%s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n",
			       d->name);
		}
	}
	printf("\t\tesac\n\t\t;;\n");
}

/* A command's own flags, each as -c (where it has one) and --name. */
static void own_flags(const struct opt_def *defs)
{
	for (const struct opt_def *d = defs; d->name; d++) {
		if (d->shortc)
			printf("%s-%c", d == defs ? "" : " ", d->shortc);
		printf("%s--%s", d == defs && !d->shortc ? "" : " ", d->name);
	}
}

int cmd_completion(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "bash")) {
		fprintf(
		    stderr,
		    "usage: sockbench completion bash   (a bash completion script on stdout)\n");
		return argc < 2 ? 2 : (strcmp(argv[1], "--help") ? 2 : 0);
	}
	printf(
	    "# bash completion for sockbench, made by `sockbench completion bash` from its option "
	    "tables\n_sockbench()\n{\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} "
	    "prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]} opts\n");
	printf("\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W \"");
	for (int i = 0; workloads[i]; i++)
		printf("%s ", workloads[i]->name);
	printf("explore compare sweep report serve check list list-io version help completion\" -- "
	       "\"$cur\"))\n\t\treturn\n\tfi\n");
	/* explore and sweep: the workload, then its flags (and their own). */
	printf("\tlocal own=\n\tcase \"$cmd\" in\n\texplore) own=\"");
	own_flags(explore_flags);
	printf("\" ;;\n\tsweep) own=\"");
	own_flags(sweep_flags);
	printf("\" ;;\n\tesac\n");
	printf("\tcase \"$cmd\" in\n\texplore|sweep|help)\n\t\tif [ \"$COMP_CWORD\" -eq 2 ]; then\n"
	       "\t\t\tCOMPREPLY=($(compgen -W \"");
	for (int i = 0; workloads[i]; i++)
		printf("%s ", workloads[i]->name);
	printf(
	    "\" -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n\t\tcmd=${COMP_WORDS[2]}\n\t\t;;\n\tesac\n");
	printf("\tcase \"$cmd\" in\n");
	for (int i = 0; workloads[i]; i++)
		command_case(workloads[i]->name, workloads[i]->opts, "$own");
	command_case("serve", opts_serve, NULL);
	printf(
	    "\treport)\n\t\tcase \"$prev\" in\n\t\t-o|--output) COMPREPLY=($(compgen -f -- \"$cur\")); "
	    "return ;;\n\t\tesac\n\t\tif [[ $cur != -* ]]; then\n\t\t\tCOMPREPLY=($(compgen -f -X "
	    "'!*.json' -- \"$cur\") $(compgen -d -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n"
	    "\t\topts=\"--help ");
	own_flags(report_flags);
	printf("\"\n\t\t;;\n\tcompletion)\n\t\topts=bash\n\t\t;;\n\tcheck)\n\t\topts=\"--help ");
	own_flags(check_flags);
	printf("\"\n\t\t;;\n\t*)\n\t\treturn\n\t\t;;\n\tesac\n");
	printf("\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n}\ncomplete -F _sockbench "
	       "sockbench\n");
	return 0;
}

int cmd_man_options(int argc, char **argv)
{
	const struct workload *wl = argc > 1 ? workload_find(argv[1]) : NULL;

	if (wl)
		opts_man(wl->opts, wl->overrides, stdout);
	else if (argc > 1 && !strcmp(argv[1], "serve"))
		opts_man(opts_serve, NULL, stdout);
	else
		die_usage(
		    "man-options: give a workload or serve (it prints that command's options as "
		    "troff for the man page: make man)");
	return 0;
}
