/* Options: defaults, every range error, unknown/missing values, cross checks, JSON round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include "base/opts.h"
#include "workload/workload.h"

static char err[256];

/* Parse a NULL-terminated list of words after the subcommand; run the workload's check too. */
static int vparse(const struct workload *wl, struct opts *o, va_list ap)
{
	char *argv[32] = {(char *)wl->name};
	int argc = 1;

	for (char *w; (w = va_arg(ap, char *));)
		argv[argc++] = w;
	opts_defaults(o, wl->overrides);
	err[0] = '\0';
	int ret = opts_parse(wl->opts, wl->overrides, &(struct opts_words){argc, argv}, o, err,
			     sizeof(err));

	if (ret == 0)
		ret = wl->check(o, err, sizeof(err));
	return ret;
}

static int parse(struct opts *o, ...)
{
	va_list ap;

	va_start(ap, o);
	int ret = vparse(&wl_udp_rr, o, ap);

	va_end(ap);
	return ret;
}

static int parse_wl(const struct workload *wl, struct opts *o, ...)
{
	va_list ap;

	va_start(ap, o);
	int ret = vparse(wl, o, ap);

	va_end(ap);
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

	expect_error("--size 0 is out of range: use 1 to 65,507 bytes", parse(&o, "--size", "0", NULL), &o);
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
	expect_error("unknown unit Q", parse(&o, "--size", "10Q", NULL), &o);
	expect_error("not a whole number", parse(&o, "--window", "1.5", NULL), &o);
	expect_error("--duration 'soon' is not a time", parse(&o, "--duration", "soon", NULL), &o);
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
	/* one byte: 7 bits of slot leave 1 of generation; 8 would leave none */
	expect_error("needs --size 2", parse(&o, "--size", "1", "--window", "129", NULL), &o);
	assert_int_equal(parse(&o, "--size", "1", "--window", "128", NULL), 0);
	opts_free(&o);
}

static void test_help(void **state)
{
	(void)state;
	struct opts o;
	char *argv[] = {"udp-rr", "--help"};
	struct opts_words w = {2, argv};
	FILE *f = fopen("/dev/null", "w");

	opts_defaults(&o, NULL);
	assert_int_equal(opts_parse(wl_udp_rr.opts, NULL, &w, &o, err, sizeof(err)), 1);
	opts_usage(wl_udp_rr.opts, NULL, "udp-rr", "x", f);
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

	opts_defaults(&b, NULL);
	assert_int_equal(opts_from_json(wl_udp_rr.opts, wl_udp_rr.overrides, j, &b, err, sizeof(err)), 0);
	assert_int_equal(b.clients, 3);
	assert_int_equal(b.size, 1400);
	assert_true(b.no_check);
	assert_true(b.duration == 2.25);
	assert_string_equal(b.server, "x");
	cJSON_Delete(j);
	opts_free(&b);

	/* Out of range, wrong type, unknown key: refused as on the command line. */
	opts_defaults(&b, NULL);
	j = cJSON_Parse("{\"size\":70000}");
	expect_error("--size 70000 is out of range", opts_from_json(wl_udp_rr.opts, wl_udp_rr.overrides, j, &b, err, sizeof(err)), &b);
	cJSON_Delete(j);
	opts_defaults(&b, NULL);
	j = cJSON_Parse("{\"size\":\"big\"}");
	expect_error("wrong type", opts_from_json(wl_udp_rr.opts, wl_udp_rr.overrides, j, &b, err, sizeof(err)), &b);
	cJSON_Delete(j);
	opts_defaults(&b, NULL);
	j = cJSON_Parse("{\"rm -rf\":1}");
	expect_error("unknown config key", opts_from_json(wl_udp_rr.opts, wl_udp_rr.overrides, j, &b, err, sizeof(err)), &b);
	cJSON_Delete(j);
	opts_free(&a);
}

static void test_tcp_crr_defaults_are_scenario_a(void **state)
{
	(void)state;
	struct opts o;

	assert_int_equal(parse_wl(&wl_tcp_crr, &o, NULL), 0);
	assert_int_equal(o.conns, 100000);
	assert_int_equal(o.msgs, 2);
	assert_int_equal(o.size, 10000);
	assert_int_equal(o.request, 0);
	assert_int_equal(o.clients, 1);
	assert_int_equal(o.concurrency, 1);
	assert_int_equal(o.recv, RECV_RECV);
	assert_int_equal(o.close, CLOSE_SERVER);
	assert_int_equal(o.src_addrs, 1);
	assert_true(wl_tcp_crr.count_based(&o));
	opts_free(&o);
	/* --duration alone: a time-based window. */
	assert_int_equal(parse_wl(&wl_tcp_crr, &o, "--duration", "3", NULL), 0);
	assert_int_equal(o.conns, 0);
	assert_false(wl_tcp_crr.count_based(&o));
	opts_free(&o);
	assert_int_equal(parse_wl(&wl_tcp_crr, &o, "--duration", "3", "--conns", "50", NULL), 0);
	assert_int_equal(o.conns, 50);
	opts_free(&o);
	/* Closing from the client spreads over source addresses on loopback. */
	assert_int_equal(parse_wl(&wl_tcp_crr, &o, "--close", "client", NULL), 0);
	assert_int_equal(o.src_addrs, 16);
	opts_free(&o);
	assert_int_equal(parse_wl(&wl_tcp_crr, &o, "--size", "70000", "--recv", "waitall", "--nodelay",
				  "--quickack", "--rcvbuf", "65536", "--close", "reset", NULL),
			 0);
	assert_int_equal(o.size, 70000); /* no UDP limit here */
	assert_true(o.nodelay && o.quickack);
	opts_free(&o);
}

static void test_tcp_crr_errors(void **state)
{
	(void)state;
	struct opts o;

	expect_error("--recv recvfrom is not one of recv|read|recvmsg|readv|waitall",
		     parse_wl(&wl_tcp_crr, &o, "--recv", "recvfrom", NULL), &o);
	expect_error("--close later is not one of server|client|reset",
		     parse_wl(&wl_tcp_crr, &o, "--close", "later", NULL), &o);
	expect_error("--concurrency 0 is out of range", parse_wl(&wl_tcp_crr, &o, "--concurrency", "0", NULL), &o);
	expect_error("--msgs 0 is out of range", parse_wl(&wl_tcp_crr, &o, "--msgs", "0", NULL), &o);
	expect_error("--size 0 is out of range", parse_wl(&wl_tcp_crr, &o, "--size", "0", NULL), &o);
	expect_error("--conns -1 is out of range", parse_wl(&wl_tcp_crr, &o, "--conns", "-1", NULL), &o);
	expect_error("--src-addrs 255 is out of range", parse_wl(&wl_tcp_crr, &o, "--src-addrs", "255", NULL), &o);
	expect_error("--src-addrs needs a loopback server",
		     parse_wl(&wl_tcp_crr, &o, "--src-addrs", "4", "--server", "198.18.0.2", NULL), &o);
	expect_error("--backlog 0 is out of range", parse_wl(&wl_tcp_crr, &o, "--backlog", "0", NULL), &o);
	expect_error("--read-size -5 is out of range", parse_wl(&wl_tcp_crr, &o, "--read-size", "-5", NULL), &o);
	expect_error("--server-fault maybe is not one of", parse_wl(&wl_tcp_crr, &o, "--server-fault", "maybe", NULL), &o);
	expect_error("unknown option '--window'", parse_wl(&wl_tcp_crr, &o, "--window", "3", NULL), &o);
	expect_error("unknown option '--no-check'", parse_wl(&wl_tcp_crr, &o, "--no-check", NULL), &o);
}

static void test_tcp_rr(void **state)
{
	(void)state;
	struct opts o;

	assert_int_equal(parse_wl(&wl_tcp_rr, &o, NULL), 0);
	assert_int_equal(o.flows, 1);
	assert_int_equal(o.window, 1);
	assert_int_equal(o.request, 1);
	assert_int_equal(o.response, 1);
	opts_free(&o);
	expect_error("--request 0: tcp-rr needs requests", parse_wl(&wl_tcp_rr, &o, "--request", "0", NULL), &o);
	expect_error("--response 0 is out of range", parse_wl(&wl_tcp_rr, &o, "--response", "0", NULL), &o);
	expect_error("--flows 0 is out of range", parse_wl(&wl_tcp_rr, &o, "--flows", "0", NULL), &o);
	expect_error("at most 100000 connections",
		     parse_wl(&wl_tcp_rr, &o, "--clients", "8", "--flows", "20000", NULL), &o);
	expect_error("--flows 100001 is out of range",
		     parse_wl(&wl_tcp_rr, &o, "--flows", "100001", NULL), &o);
	expect_error("use --recv recv, read",
		     parse_wl(&wl_tcp_rr, &o, "--flows", "65", "--recv", "epoll", NULL), &o);
	expect_error("at most 1024 flows a client with --rate",
		     parse_wl(&wl_tcp_rr, &o, "--flows", "1025", "--rate", "1000", NULL), &o);
	expect_error("loopback IPv4 only",
		     parse_wl(&wl_tcp_rr, &o, "--src-addrs", "4", "--ipv6", NULL), &o);
	/* a local run spreads over the source addresses its connections need */
	assert_int_equal(parse_wl(&wl_tcp_rr, &o, "--flows", "64", NULL), 0);
	assert_int_equal(o.src_addrs, 1);
	opts_free(&o);
	assert_int_equal(parse_wl(&wl_tcp_rr, &o, "--flows", "64", "--src-addrs", "3", NULL), 0);
	assert_int_equal(o.src_addrs, 3);
	opts_free(&o);
	expect_error("unknown option '--conns'", parse_wl(&wl_tcp_rr, &o, "--conns", "5", NULL), &o);
}

/* Every workload's overrides name real options with valid defaults (else opts_defaults aborts),
 * and its usage prints. */
static void test_every_workload_table(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/null", "w");

	for (int i = 0; workloads[i]; i++) {
		struct opts o;

		opts_defaults(&o, workloads[i]->overrides);
		assert_int_equal(workloads[i]->check(&o, err, sizeof(err)), 0);
		opts_usage(workloads[i]->opts, workloads[i]->overrides, workloads[i]->name, "", f);
		opts_free(&o);
	}
	fclose(f);
}

/* Each enum option's C values name its metavar's words in order, and are parsed once. */
static void test_enum_words(void **state)
{
	(void)state;
	struct opts o;

	assert_string_equal(opts_word(OPT_ID_close, CLOSE_RESET), "reset");
	assert_string_equal(opts_word(OPT_ID_close, CLOSE_CLIENT), "client");
	assert_string_equal(opts_word(OPT_ID_recv, RECV_URING), "uring");
	assert_string_equal(opts_word(OPT_ID_recv, RECV_WAITALL), "waitall");
	assert_string_equal(opts_word(OPT_ID_send, SEND_SPLICE), "splice");
	assert_string_equal(opts_word(OPT_ID_wait, WAIT_BLOCK), "block");
	assert_string_equal(opts_word(OPT_ID_io, IO_MMSG), "mmsg");
	assert_string_equal(opts_word(OPT_ID_server_fault, FAULT_SHORT), "short");
	assert_string_equal(opts_word(OPT_ID_profile_event, PROFILE_EVENT_CYCLES), "cycles");
	assert_string_equal(opts_word(OPT_ID_close, 7), "?");
	assert_string_equal(opts_word(OPT_ID_size, 0), "?"); /* not an enum */
	assert_int_equal(parse_wl(&wl_tcp_crr, &o, "--close", "reset", "--recv", "epoll", NULL), 0);
	assert_int_equal(o.close, CLOSE_RESET);
	assert_int_equal(o.recv, RECV_EPOLL);
	opts_free(&o);
	assert_int_equal(parse_wl(&wl_tcp_stream, &o, "--send", "sendfile", NULL), 0);
	assert_int_equal(o.send, SEND_SENDFILE);
	opts_free(&o);
}

/* A command's own flags come out of argv with the table's checks; the rest stays in order. */
struct own {
	long runs;
	double budget;
	uint64_t seed;
	bool json;
	char *csv;
};

static void test_own_flags(void **state)
{
	(void)state;
	static const struct opt_def defs[] = {
		{OWN_FLAG(INT, struct own, runs, "runs", 2, 32, "N", "")},
		{OWN_FLAG(DBL, struct own, budget, "budget", 5, 100, "", "")},
		{OWN_FLAG(U64, struct own, seed, "seed", 1, 0, "N", "")},
		{OWN_FLAG(BOOL, struct own, json, "json", 0, 1, "", "")},
		{OWN_FLAG(STR, struct own, csv, "csv", 0, 0, "FILE", "")},
		{0},
	};
	char *argv[] = {"udp-rr", "--runs", "4", "--window", "1", "--json", "--seed=18446744073709551615",
			"--csv", "f.csv", "--runsx", "--budget", "7.5"};
	char *rest[12], err[200];
	struct own o = {0};
	int n;

	n = opts_take(defs, &o, &(struct opts_words){12, argv}, rest, err, sizeof(err));
	assert_int_equal(o.runs, 4);
	assert_true(o.budget == 7.5);
	assert_true(o.seed == UINT64_MAX);
	assert_true(o.json);
	assert_string_equal(o.csv, "f.csv");
	assert_int_equal(n, 4);
	assert_string_equal(rest[0], "udp-rr");
	assert_string_equal(rest[1], "--window");
	assert_string_equal(rest[2], "1");
	assert_string_equal(rest[3], "--runsx");
	free(o.csv);
	char *bad1[] = {"--runs", "40"}, *bad2[] = {"--seed", "0"}, *bad3[] = {"--budget"};
	char *bad4[] = {"--seed", "-3"}, *bad5[] = {"--runs", "x"};

	assert_int_equal(opts_take(defs, &o, &(struct opts_words){2, bad1}, rest, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--runs 40 is out of range: use 2 to 32");
	assert_int_equal(opts_take(defs, &o, &(struct opts_words){2, bad2}, rest, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--seed 0: give a whole number of 1 or more");
	assert_int_equal(opts_take(defs, &o, &(struct opts_words){1, bad3}, rest, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--budget needs a value");
	assert_int_equal(opts_take(defs, &o, &(struct opts_words){2, bad4}, rest, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(opts_take(defs, &o, &(struct opts_words){2, bad5}, rest, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--runs 'x' is not a whole number");
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
		cmocka_unit_test(test_tcp_crr_defaults_are_scenario_a),
		cmocka_unit_test(test_tcp_crr_errors),
		cmocka_unit_test(test_tcp_rr),
		cmocka_unit_test(test_every_workload_table),
		cmocka_unit_test(test_enum_words),
		cmocka_unit_test(test_own_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
