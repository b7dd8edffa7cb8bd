/* A command's own flags (opts.h's OWN_FLAG): short flags and --flag=value, the words left over
 * (report's and check's: a flag none of the table has is an error), defaults from the table,
 * and the usage made from it; every command's table holds defaults that its own checks take. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/opts.h"
#include "multi/compare.h"
#include "multi/explore.h"

struct cmd {
	char *out, *format;
	double budget;
	bool json;
};

static const struct opt_def defs[] = {
	{OWN_FLAG(STR, struct cmd, out, "output", 0, 0, "FILE", "where to write it"),
	 .shortc = 'o', .shown = "standard output"},
	{OWN_FLAG(STR, struct cmd, format, "format", 0, 0, "csv", "CSV instead")},
	{OWN_FLAG(DBL, struct cmd, budget, "budget", 5, 600, "S", "total time"), .def = "60"},
	{OWN_FLAG(BOOL, struct cmd, json, "json", 0, 1, "", "JSON"), .shortc = 'j'},
	{0},
};

static char err[256];

static void cmd_free(struct cmd *c)
{
	free(c->out);
	free(c->format);
	*c = (struct cmd){0};
}

/* -o FILE, --format=csv and -j are taken; files, "-" and unknown words are left, in order. */
static void test_short_and_equals(void **state)
{
	(void)state;
	char *argv[] = {"-o", "x.html", "r.json", "--format=csv", "-", "-j", "-ox", "--budget=2m"};
	char *rest[8];
	struct cmd c = {0};
	int n;

	n = opts_take(defs, &c, &(struct opts_words){8, argv}, rest, err, sizeof(err));
	assert_string_equal(c.out, "x.html");
	assert_string_equal(c.format, "csv");
	assert_true(c.json);
	assert_true(c.budget == 120);
	assert_int_equal(n, 3);
	assert_string_equal(rest[0], "r.json");
	assert_string_equal(rest[1], "-");
	assert_string_equal(rest[2], "-ox");
	cmd_free(&c);
	char *bad[] = {"-o"};

	assert_int_equal(opts_take(defs, &c, &(struct opts_words){1, bad}, rest, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "-o needs a value");
}

/* The words left: files pass, --help asks for the usage, a flag nobody has is named as
 * opts_parse names it, with the nearest flag where one is near. */
static void test_own_words(void **state)
{
	(void)state;
	char *files[] = {"r.json", "-"}, *help[] = {"r.json", "-h"}, *typo[] = {"--formt"};
	char *one[] = {"-x"}, *after[] = {"--nope", "--help"};

	assert_int_equal(opts_own_words(defs, files, 2, err, sizeof(err)), 0);
	assert_int_equal(opts_own_words(defs, help, 2, err, sizeof(err)), 1);
	assert_int_equal(opts_own_words(defs, typo, 1, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "unknown option '--formt'; did you mean '--format'? (see '--help')");
	assert_int_equal(opts_own_words(defs, one, 1, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "unknown option '-x' (see '--help')");
	assert_int_equal(opts_own_words(defs, after, 2, err, sizeof(err)), -EINVAL);
}

/* The usage: the synopsis from the table, a line per flag with its default or what is shown
 * for it, none where it has neither. */
static void test_usage(void **state)
{
	(void)state;
	static const struct cmd_usage u = {
	    .cmd = "t", .args = "FILE...", .more = "[more]", .also = "a.json", .summary = "Does."};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	opts_usage_cmd(defs, &u, f);
	fclose(f);
	assert_non_null(strstr(buf, "usage: sockbench t FILE... [--output FILE] [--format csv] "
				    "[--budget S] [--json] [more]\n       sockbench t a.json\nDoes.\n"));
	assert_non_null(strstr(buf, "  -o, --output FILE            where to write it (default: "
				    "standard output)\n"));
	assert_non_null(strstr(buf, "      --format csv             CSV instead\n"));
	assert_non_null(strstr(buf, "total time (default: 60)\n"));
	assert_non_null(strstr(buf, "  -j, --json                   JSON\n"));
	free(buf);
}

/* Each command's table: its defaults are values its own checks take (opts_own_defaults
 * aborts on one that is not), and every flag has a help line. */
static void test_command_tables(void **state)
{
	(void)state;
	const struct opt_def *tables[] = {compare_flags, explore_flags, sweep_flags};
	static union {
		max_align_t align;
		char c[1 << 20]; /* room for the largest command's struct */
	} base;

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		for (const struct opt_def *d = tables[i]; d->name; d++) {
			assert_non_null(d->help);
			assert_true(d->help[0] != '\0');
			assert_true(d->off + sizeof(double) <= sizeof(base));
		}
		opts_own_defaults(tables[i], &base);
		memset(&base, 0, sizeof(base));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_and_equals),
		cmocka_unit_test(test_own_words),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_command_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
