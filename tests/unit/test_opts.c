/* Options: defaults, every range error, unknown/missing values, cross checks, JSON round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include "opts.h"
#include "workload.h"

static char err[256];

/* Parse a NULL-terminated list of words after the subcommand; run the workload's check too. */
static int parse(struct opts *o, ...)
{
	char *argv[32] = {"udp-rr"};
	int argc = 1;
	va_list ap;

	va_start(ap, o);
	for (char *w; (w = va_arg(ap, char *));)
		argv[argc++] = w;
	va_end(ap);
	opts_defaults(o);
	err[0] = '\0';
	int ret = opts_parse(wl_udp_rr.opts, argc, argv, o, err, sizeof(err));

	if (ret == 0)
		ret = wl_udp_rr.check(o, err, sizeof(err));
	return ret;
}

static void expect_error(const char *needle, int ret, struct opts *o)
{
	assert_int_equal(ret, -EINVAL);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not mention '%s'", err, needle);
	opts_free(o);
}

static void test_defaults_are_scenario_b(void **state)
{
	(void)state;
	struct opts o;

	assert_int_equal(parse(&o, NULL), 0);
	assert_int_equal(o.clients, 2);
	assert_int_equal(o.window, 100);
	assert_int_equal(o.size, 100);
	assert_int_equal(o.peers, 2); /* one socket per client */
	assert_false(o.no_check);
	assert_int_equal(o.timeout, 200);
	assert_null(o.server);
	opts_free(&o);
}

static void test_values_parse(void **state)
{
	(void)state;
	struct opts o;

	assert_int_equal(parse(&o, "--clients", "1", "-W", "1", "--size=65507", "--no-check",
			       "--duration", "0.5", "--peers", "1", "--json", "--server", "h:1", NULL),
			 0);
	assert_int_equal(o.clients, 1);
	assert_int_equal(o.window, 1);
	assert_int_equal(o.size, 65507);
	assert_true(o.no_check);
	assert_true(o.json);
	assert_true(o.duration == 0.5);
	assert_string_equal(o.server, "h:1");
	opts_free(&o);
}

static void test_range_errors(void **state)
{
	(void)state;
	struct opts o;

	expect_error("--size 0 is out of range: use 1 to 65507", parse(&o, "--size", "0", NULL), &o);
	expect_error("--size 65508 is out of range", parse(&o, "--size", "65508", NULL), &o);
	expect_error("--window 0 is out of range", parse(&o, "--window", "0", NULL), &o);
	expect_error("--clients 0 is out of range", parse(&o, "--clients", "0", NULL), &o);
	expect_error("--port 70000 is out of range", parse(&o, "--port", "70000", NULL), &o);
	expect_error("--duration 0 is out of range", parse(&o, "--duration", "0", NULL), &o);
	expect_error("--timeout 0 is out of range", parse(&o, "--timeout", "0", NULL), &o);
}

static void test_malformed(void **state)
{
	(void)state;
	struct opts o;

	expect_error("unknown option '--bogus'", parse(&o, "--bogus", NULL), &o);
	expect_error("unknown option '-Z'", parse(&o, "-Z", NULL), &o);
	expect_error("'--size' needs a value", parse(&o, "--size", NULL), &o);
	expect_error("not a whole number", parse(&o, "--size", "10k", NULL), &o);
	expect_error("not a whole number", parse(&o, "--window", "1.5", NULL), &o);
	expect_error("not a number", parse(&o, "--duration", "soon", NULL), &o);
	expect_error("unexpected argument 'extra'", parse(&o, "extra", NULL), &o);
	expect_error("non-empty", parse(&o, "--server", "", NULL), &o);
}

static void test_cross_checks(void **state)
{
	(void)state;
	struct opts o;

	expect_error("fewer than --clients", parse(&o, "--clients", "3", "--peers", "2", NULL), &o);
	expect_error("every peer needs a request",
		     parse(&o, "--clients", "1", "--window", "4", "--peers", "5", NULL), &o);
	expect_error("needs --size 2", parse(&o, "--size", "1", "--window", "300", NULL), &o);
	assert_int_equal(parse(&o, "--size", "1", "--window", "256", NULL), 0);
	opts_free(&o);
}

static void test_help(void **state)
{
	(void)state;
	struct opts o;
	char *argv[] = {"udp-rr", "--help"};
	FILE *f = fopen("/dev/null", "w");

	opts_defaults(&o);
	assert_int_equal(opts_parse(wl_udp_rr.opts, 2, argv, &o, err, sizeof(err)), 1);
	opts_usage(wl_udp_rr.opts, "udp-rr", "x", f);
	fclose(f);
	opts_free(&o);
}

static void test_json_round_trip(void **state)
{
	(void)state;
	struct opts a, b;

	assert_int_equal(parse(&a, "--clients", "3", "--size", "1400", "--no-check", "--server",
			       "x", "--duration", "2.25", NULL),
			 0);
	cJSON *j = opts_to_json(wl_udp_rr.opts, &a);

	opts_defaults(&b);
	assert_int_equal(opts_from_json(wl_udp_rr.opts, j, &b, err, sizeof(err)), 0);
	assert_int_equal(b.clients, 3);
	assert_int_equal(b.size, 1400);
	assert_true(b.no_check);
	assert_true(b.duration == 2.25);
	assert_string_equal(b.server, "x");
	cJSON_Delete(j);
	opts_free(&b);

	/* Out of range, wrong type, unknown key: refused as on the command line. */
	opts_defaults(&b);
	j = cJSON_Parse("{\"size\":70000}");
	expect_error("--size 70000 is out of range", opts_from_json(wl_udp_rr.opts, j, &b, err, sizeof(err)), &b);
	cJSON_Delete(j);
	opts_defaults(&b);
	j = cJSON_Parse("{\"size\":\"big\"}");
	expect_error("wrong type", opts_from_json(wl_udp_rr.opts, j, &b, err, sizeof(err)), &b);
	cJSON_Delete(j);
	opts_defaults(&b);
	j = cJSON_Parse("{\"rm -rf\":1}");
	expect_error("unknown config key", opts_from_json(wl_udp_rr.opts, j, &b, err, sizeof(err)), &b);
	cJSON_Delete(j);
	opts_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_are_scenario_b),
		cmocka_unit_test(test_values_parse),
		cmocka_unit_test(test_range_errors),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_cross_checks),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_json_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
