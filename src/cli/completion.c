/* completion.c: what is made from the command and option tables for the system around
 * sockbench: `sockbench man-options CMD` (the man page's option lists, scripts/mkman) and
 * `sockbench completion bash`: a bash completion script made from main.c's command table and the
 * option tables, so it names every command and every flag each takes and nothing else, and
 * offers an enum flag's words, a file flag's paths, --cc's congestion controls and nothing
 * where a flag wants a number. Installed by `make install` (and the package) as
 * share/bash-completion/completions/sockbench. */
#include <stdio.h>
#include <string.h>

#include "base/opts.h"
#include "base/util.h"
#include "cli/cli.h"

/* Flags whose value is a path. */
static bool takes_file(const struct opt_def *d)
{
	return d->type == OPT_STR && d->metavar &&
	       (strstr(d->metavar, "FILE") || !strcmp(d->name, "auth-file"));
}

/* The case arms for what follows each flag of defs that takes a value: an enum's words, a
 * path, the kernel's congestion controls, or nothing (a number: no flag names offered). */
static void value_cases(const struct opt_def *defs)
{
	printf("\t\tcase \"$prev\" in\n");
	for (const struct opt_def *d = defs; d->name; d++) {
		if (d->type == OPT_BOOL)
			continue;
		printf("\t\t--%s", d->name);
		if (d->shortc)
			printf("|-%c", d->shortc);
		if (d->type == OPT_ENUM) {
			char words[256];

			snprintf(words, sizeof(words), "%s", d->metavar);
			for (char *c = words; *c; c++)
				if (*c == '|')
					*c = ' ';
			printf(") COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n",
			       words);
		} else if (takes_file(d)) {
			printf(") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n");
		} else if (!strcmp(d->name, "cc")) {
			printf(
			    ") COMPREPLY=($(compgen -W \"$(cat "
			    "/proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null)\" -- "
			    "\"$cur\")); return ;;\n");
		} else {
			printf(") return ;;\n");
		}
	}
	printf("\t\tesac\n");
}

/* One arm of a case on the command (or workload): its flags, then what follows one. */
static void flags_case(const char *name, const struct opt_def *defs)
{
	printf("\t%s)\n\t\topts=\"${opts:---help}", name);
	for (const struct opt_def *d = defs; d->name; d++)
		printf(" --%s", d->name);
	printf("\"\n");
	value_cases(defs);
}

/* The command names (`sockbench help`'s) into one line. */
static void command_words(const struct command *cmds, size_t n)
{
	for (int i = 0; workloads[i]; i++)
		printf("%s ", workloads[i]->name);
	for (size_t i = 0; i < n; i++)
		if (!cmds[i].hidden)
			printf("%s ", cmds[i].name);
}

/* What a command's words are: a workload first (then that workload's flags), a command, or
 * result files; and what a command taking fixed words offers. */
static void command_args(const struct command *cmds, size_t n)
{
	printf("\tcase \"$cmd\" in\n");
	for (size_t i = 0; i < n; i++) {
		const struct command *c = &cmds[i];

		if (c->hidden || (c->arg == ARG_NONE && !c->words))
			continue;
		printf("\t%s)\n", c->name);
		if (c->arg == ARG_WORKLOAD)
			printf(
			    "\t\tif [ \"$COMP_CWORD\" -eq 2 ]; then\n\t\t\tCOMPREPLY=($(compgen -W "
			    "\"$(sockbench_words workloads)\" -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n"
			    "\t\twl=${COMP_WORDS[2]}\n");
		else if (c->arg == ARG_COMMAND)
			printf("\t\t[ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W "
			       "\"$(sockbench_words commands)\" -- \"$cur\"))\n\t\treturn\n");
		else if (c->arg == ARG_JSON)
			printf("\t\tjson=1\n");
		if (c->words)
			printf("\t\tCOMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n\t\treturn\n",
			       c->words);
		printf("\t\t;;\n");
	}
	printf("\tesac\n");
}

/* The script: the commands, a command's own flags, then its workload's. */
static void completion_script(const struct command *cmds, size_t n)
{
	printf("# bash completion for sockbench, made by `sockbench completion bash` from its "
	       "command and option tables\nsockbench_words()\n{\n\tcase $1 in\n\tworkloads) "
	       "echo \"");
	for (int i = 0; workloads[i]; i++)
		printf("%s ", workloads[i]->name);
	printf("\" ;;\n\tcommands) echo \"");
	command_words(cmds, n);
	printf("\" ;;\n\tesac\n}\n_sockbench()\n{\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} "
	       "prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]} wl= json= opts=\n"
	       "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W "
	       "\"$(sockbench_words commands)\" -- \"$cur\"))\n\t\treturn\n\tfi\n");
	command_args(cmds, n);
	printf("\tcase \"$cmd\" in\n");
	for (size_t i = 0; i < n; i++)
		if (!cmds[i].hidden && cmds[i].flags)
			flags_case(cmds[i].name, cmds[i].flags), printf("\t\t;;\n");
	for (int i = 0; workloads[i]; i++)
		flags_case(workloads[i]->name, workloads[i]->opts), printf("\t\t;;\n");
	printf("\tesac\n\tif [ -n \"$json\" ] && [[ $cur != -* ]]; then\n\t\tCOMPREPLY=($(compgen "
	       "-f -X '!*.json' -- \"$cur\") $(compgen -d -- \"$cur\"))\n\t\treturn\n\tfi\n");
	printf("\tcase \"$wl\" in\n");
	for (int i = 0; workloads[i]; i++)
		flags_case(workloads[i]->name, workloads[i]->opts), printf("\t\t;;\n");
	printf("\tesac\n\t[ -n \"$opts\" ] || return\n"
	       "\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n}\n"
	       "complete -F _sockbench sockbench\n");
}

int completion_main(int argc, char **argv, const struct command *cmds, size_t n)
{
	if (argc < 2 || strcmp(argv[1], "bash")) {
		bool help = argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));

		fprintf(help ? stdout : stderr,
			"usage: sockbench completion bash\nThe bash completion script, on standard "
			"output (make install puts it in share/bash-completion/completions).\n");
		return help ? 0 : 2;
	}
	completion_script(cmds, n);
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
