/* opts_help.c: --help and the man page's option lists, made from the option tables. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/opts_priv.h"

static void default_text(const struct opt_def *d, const struct opt_override *ov, char *buf,
			 size_t len)
{
	struct opts o;

	for (const struct opt_override *v = ov; v && v->field; v++) {
		if (v->shown && !strcmp(v->field, d->field)) {
			snprintf(buf, len, "%s", v->shown);
			return;
		}
	}
	opts_defaults(&o, ov);
	const void *p = cfield(&o, d);

	switch (d->type) {
	case OPT_INT:
		snprintf(buf, len, "%ld", *(const long *)p);
		break;
	case OPT_DBL:
		snprintf(buf, len, "%g", *(const double *)p);
		break;
	case OPT_STR:
		snprintf(buf, len, "%s", *(char *const *)p ? *(char *const *)p : "none");
		break;
	case OPT_ENUM:
		snprintf(buf, len, "%s", opts_word(d->id, *(const int *)p));
		break;
	case OPT_BOOL:
		snprintf(buf, len, "off");
		break;
	case OPT_U64:
		snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)p);
		break;
	}
	opts_free(&o);
}

/* The flag as an option list's first column: "-l, --duration S", "    --warmup S". */
static void flag_column(const struct opt_def *d, char *buf, size_t len)
{
	snprintf(buf, len, "%c%c%s--%s %s", d->shortc ? '-' : ' ', d->shortc ? d->shortc : ' ',
		 d->shortc ? ", " : "  ", d->name, d->metavar ? d->metavar : "");
}

void opts_usage(const struct opt_def *table, const struct opt_override *ov, const char *cmd,
		const char *summary, void *file)
{
	FILE *f = file;
	struct opt_def *all = opts_effective(table, ov), *defs = all;

	fprintf(f, "usage: sockbench %s [options]\n%s\n\noptions:\n", cmd, summary);
	for (; defs->name; defs++) {
		char flag[64], def[64];

		flag_column(defs, flag, sizeof(flag));
		default_text(defs, ov, def, sizeof(def));
		fprintf(f, "  %-28s %s (default: %s)\n", flag, defs->help, def);
	}
	fprintf(f, "  -h, --help                   this text\n\n"
		   "units: BYTES take K, M, G (1024-based, as iperf3) or KiB, MiB, GiB (-m 64K); times\n"
		   "take us, ms, s, m or h (-l 500ms); a bare number is the metavar's unit (S: seconds,\n"
		   "MS: milliseconds, USEC: microseconds)\n");
	free(all);
}

void opts_usage_cmd(const struct opt_def *defs, const struct cmd_usage *u, void *file)
{
	FILE *f = file;

	fprintf(f, "usage: sockbench %s%s%s", u->cmd, *u->args ? " " : "", u->args);
	for (const struct opt_def *d = defs; d->name; d++)
		fprintf(f, " [--%s%s%s]", d->name, d->metavar && *d->metavar ? " " : "",
			d->metavar ? d->metavar : "");
	fprintf(f, "%s%s\n", u->more ? " " : "", u->more ? u->more : "");
	if (u->also)
		fprintf(f, "       sockbench %s %s\n", u->cmd, u->also);
	fprintf(f, "%s\n\noptions:\n", u->summary);
	for (const struct opt_def *d = defs; d->name; d++) {
		const char *def = d->shown ? d->shown : d->def;
		char flag[64];

		flag_column(d, flag, sizeof(flag));
		fprintf(f, "  %-28s %s%s%s%s\n", flag, d->help, def ? " (default: " : "",
			def ? def : "", def ? ")" : "");
	}
}

/* troff: a backslash is an escape, a '-' is written \- (a minus, as man pages write
 * flags), a line may not start with '.' or '\''. */
static void man_text(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

void opts_man(const struct opt_def *table, const struct opt_override *ov, void *file)
{
	FILE *f = file;
	struct opt_def *all = opts_effective(table, ov), *defs = all;

	for (; defs->name; defs++) {
		char def[64];

		fputs(".TP\n.BR ", f);
		if (defs->shortc)
			fprintf(f, "\\-%c \", \" ", defs->shortc);
		fputs("\\-\\-", f);
		man_text(f, defs->name);
		if (defs->metavar && *defs->metavar) {
			fputs(" \" \" \\fI", f);
			man_text(f, defs->metavar);
			fputs("\\fR", f);
		}
		fputc('\n', f);
		default_text(defs, ov, def, sizeof(def));
		man_text(f, defs->help);
		fputs(" (default: ", f);
		man_text(f, def);
		fputs(").\n", f);
	}
	free(all);
}
