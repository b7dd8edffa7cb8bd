/* Units on sizes and times, the short-flag vocabulary, "did you mean": each with the number a
 * wrong parser would give (1000 for K, seconds for -t 10, a silent run for -R 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>

#include "base/opts.h"
#include "base/suggest.h"
#include "workload/workload.h"

#include "opts_harness.h"

static void test_sizes(void **state)
{
	(void)state;
	struct opts o;
	static const struct {
		const char *text;
		long bytes;
	} cases[] = {
		{"64", 64}, {"64K", 65536}, {"64k", 65536}, {"64KiB", 65536}, {"1.5K", 1536},
		{"2M", 2097152}, {"2MiB", 2097152}, {"1G", 1073741824}, {"1GiB", 1073741824},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse_wl(&wl_tcp_stream, &o, "--sndbuf", cases[i].text, NULL), 0);
		assert_int_equal(o.sndbuf, cases[i].bytes);
		opts_free(&o);
		if (cases[i].bytes > 64 << 20) /* tcp-stream's --size: at most 64 MiB */
			continue;
		assert_int_equal(parse_wl(&wl_tcp_stream, &o, "-m", cases[i].text, NULL), 0);
		assert_int_equal(o.size, cases[i].bytes);
		opts_free(&o);
	}
	/* sweep's values: the number in the option's unit, units where it takes them. */
	double v;

	assert_int_equal(opts_number(opt_find(opts_tcp_stream, "size", 4), "2K", &v, err,
				     sizeof(err)), 0);
	assert_true(v == 2048);
	assert_int_equal(opts_number(opt_find(opts_tcp_stream, "flows", 5), "3", &v, err,
				     sizeof(err)), 0);
	assert_true(v == 3);
	assert_int_equal(opts_number(opt_find(opts_tcp_stream, "flows", 5), "3K", &v, err,
				     sizeof(err)), -EINVAL);
	expect_error("--size 64Q: unknown unit Q; use K, M, G, KiB, MiB or GiB",
		     parse_wl(&wl_tcp_stream, &o, "-m", "64Q", NULL), &o);
	expect_error("--size 64KB: unknown unit KB", parse_wl(&wl_tcp_stream, &o, "-m", "64KB", NULL), &o);
	expect_error("--size 1.3K is not a whole number of bytes",
		     parse_wl(&wl_tcp_stream, &o, "-m", "1.3K", NULL), &o);
	expect_error("--size 65M (68,157,440 bytes) is out of range: use 1 to 67,108,864 bytes",
		     parse_wl(&wl_tcp_stream, &o, "-m", "65M", NULL), &o);
}

static void test_times(void **state)
{
	(void)state;
	struct opts o;

	/* Seconds (--duration), milliseconds (--timeout), microseconds (--busy-poll): a bare
	 * number keeps each one's unit. */
	assert_int_equal(parse_wl(&wl_tcp_rr, &o, "-l", "500ms", "--warmup", "2m", "--timeout",
				  "3s", "--busy-poll", "1ms", NULL), 0);
	assert_true(o.duration == 0.5);
	assert_true(o.warmup == 120);
	assert_int_equal(o.timeout, 3000);
	assert_int_equal(o.busy_poll, 1000);
	opts_free(&o);
	assert_int_equal(parse_wl(&wl_tcp_rr, &o, "-l", "7", "--timeout", "30", "--busy-poll", "50",
				  "--warmup", "250000us", NULL), 0);
	assert_true(o.duration == 7);
	assert_int_equal(o.timeout, 30);
	assert_int_equal(o.busy_poll, 50);
	assert_true(o.warmup == 0.25);
	opts_free(&o);
	expect_error("--duration 10x: unknown unit x; use us, ms, s, m or h",
		     parse_wl(&wl_tcp_rr, &o, "-l", "10x", NULL), &o);
	expect_error("--timeout 1500us is not a whole number of milliseconds",
		     parse_wl(&wl_tcp_rr, &o, "--timeout", "1500us", NULL), &o);
	expect_error("--duration 25h (90,000 seconds) is out of range: use 0.1 to 86,400 seconds",
		     parse_wl(&wl_tcp_rr, &o, "-l", "25h", NULL), &o);
}

static void test_vocabulary(void **state)
{
	(void)state;
	struct opts o;

	/* -t: iperf3's duration with a unit; bare, the old --timeout (ms): an error naming both. */
	assert_int_equal(parse_wl(&wl_tcp_stream, &o, "-t", "10s", NULL), 0);
	assert_true(o.duration == 10);
	assert_int_equal(o.timeout, 5000);
	opts_free(&o);
	expect_error("-t 10: -t is the duration now", parse_wl(&wl_tcp_stream, &o, "-t", "10", NULL), &o);
	assert_non_null(strstr(err, "--timeout 10"));
	/* -R: iperf3's --reverse; -R 2 (the old --runs 2) an error, also as -R2. */
	assert_int_equal(parse_wl(&wl_tcp_stream, &o, "-R", NULL), 0);
	assert_true(o.reverse);
	assert_int_equal(o.runs, 1);
	opts_free(&o);
	assert_int_equal(parse_wl(&wl_udp_stream, &o, "-R", "-l", "1", NULL), 0);
	assert_true(o.reverse);
	opts_free(&o);
	expect_error("-R 2: the number of runs is --runs 2", parse_wl(&wl_tcp_stream, &o, "-R", "2", NULL), &o);
	expect_error("-R 3: the number of runs is --runs 3", parse_wl(&wl_tcp_stream, &o, "-R3", NULL), &o);
	expect_error("-R is --reverse", parse_wl(&wl_tcp_rr, &o, "-R", NULL), &o);
	expect_error("-Rj: -R (--reverse) takes no value", parse_wl(&wl_tcp_stream, &o, "-Rj", NULL), &o);
	assert_int_equal(parse_wl(&wl_tcp_stream, &o, "-jR", NULL), 0);
	assert_true(o.reverse && o.json);
	opts_free(&o);
	/* Long-only now, each naming its long spelling. */
	expect_error("--server HOST", parse_wl(&wl_tcp_stream, &o, "-s", "host", NULL), &o);
	expect_error("--warmup S", parse_wl(&wl_tcp_stream, &o, "-w", "64K", NULL), &o);
	expect_error("--peers N", parse_wl(&wl_udp_rr, &o, "-P", "4", NULL), &o);
	expect_error("--flows N", parse_wl(&wl_tcp_stream, &o, "-P", "4", NULL), &o);
	expect_error("--batch N", parse_wl(&wl_udp_rr, &o, "-b", "8", NULL), &o);
	expect_error("--server-threads N", parse_wl(&wl_udp_rr, &o, "-T", "2", NULL), &o);
	expect_error("--concurrency N", parse_wl(&wl_tcp_crr, &o, "-C", "2", NULL), &o);
	expect_error("iperf3's -c HOST is --server HOST",
		     parse_wl(&wl_tcp_stream, &o, "-c", "10.0.0.1", NULL), &o);
	/* Not applicable: udp-stream waits for no answer. */
	expect_error("unknown option '--timeout'", parse_wl(&wl_udp_stream, &o, "--timeout", "5", NULL), &o);
}

static void test_tcp_rr_size(void **state)
{
	(void)state;
	struct opts o;

	assert_int_equal(parse_wl(&wl_tcp_rr, &o, "-m", "64K", NULL), 0);
	assert_int_equal(o.request, 65536);
	assert_int_equal(o.response, 65536);
	opts_free(&o);
	assert_int_equal(parse_wl(&wl_tcp_rr, &o, "-m", "100", "-r", "7", NULL), 0);
	assert_int_equal(o.request, 100);
	assert_int_equal(o.response, 7);
	opts_free(&o);
	assert_int_equal(parse_wl(&wl_tcp_rr, &o, "-q", "30", NULL), 0);
	assert_int_equal(o.request, 30);
	assert_int_equal(o.response, 1);
	assert_int_equal(o.size, 30); /* the config's size: the request's */
	opts_free(&o);
}

static void test_did_you_mean(void **state)
{
	(void)state;
	struct opts o;
	const char *words[] = {"udp-rr", "tcp-rr", "tcp-crr", "tcp-stream", NULL, "sweep"};

	assert_int_equal(suggest_distance("size", "size"), 0);
	assert_int_equal(suggest_distance("szie", "size"), 1); /* a swap is one edit */
	assert_int_equal(suggest_distance("flows", "flow"), 1);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_string_equal(suggest_nearest("tcp-strem", words, 6), "tcp-stream");
	assert_string_equal(suggest_nearest("tcp-crrr", words, 6), "tcp-crr");
	assert_string_equal(suggest_nearest("swep", words, 6), "sweep");
	assert_null(suggest_nearest("zzz", words, 6));
	assert_null(suggest_nearest("ab", words, 6));
	expect_error("unknown option '--szie'; did you mean '--size'?",
		     parse_wl(&wl_tcp_stream, &o, "--szie", "5", NULL), &o);
	expect_error("unknown option '--flwos'; did you mean '--flows'?",
		     parse_wl(&wl_tcp_rr, &o, "--flwos=2", NULL), &o);
	/* Not a flag of udp-stream at all: no suggestion of one it lacks. */
	expect_error("unknown option '--timeut' (see", parse_wl(&wl_udp_stream, &o, "--timeut", "3", NULL), &o);
}

struct own {
	double budget;
	long runs;
};

/* A command's own flags take units where they name one (explore and knee's --budget). */
static void test_own_flag_units(void **state)
{
	(void)state;
	static const struct opt_def defs[] = {
		{OWN_FLAG(DBL, struct own, budget, "budget", 5, 86400, "S", "")},
		{OWN_FLAG(INT, struct own, runs, "runs", 1, 100, "N", "")},
		{0},
	};
	struct own w = {0};
	char *argv[] = {"--budget", "2m", "--runs", "3", "udp-rr"}, *rest[5];
	int nrest;

	nrest = opts_take(defs, &w, &(struct opts_words){5, argv}, rest, err, sizeof(err));
	assert_true(w.budget == 120);
	assert_int_equal(w.runs, 3);
	assert_int_equal(nrest, 1);
	char *bad[] = {"--budget", "2x"};

	assert_int_equal(opts_take(defs, &w, &(struct opts_words){2, bad}, rest, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "--budget 2x: unknown unit x"));
}

/* -l is netperf's seconds and takes --duration's units: "1m" a minute, not 1 or 1 MiB. */
static void test_l_units(void **state)
{
	(void)state;
	struct opts o;

	assert_int_equal(parse_wl(&wl_udp_rr, &o, "-l", "1m", NULL), 0);
	assert_true(o.duration == 60);
	opts_free(&o);
	assert_int_equal(parse_wl(&wl_tcp_stream, &o, "-l", "2", NULL), 0);
	assert_true(o.duration == 2);
	opts_free(&o);
}

/* Only decimal digits (a fraction, a unit): strtod's hexadecimal, exponents, infinities and
 * leading blanks are errors, never 16 or 1000 bytes. */
static void test_strict_numbers(void **state)
{
	(void)state;
	struct opts o;
	static const char *const sizes[] = {"0x10", "1e3", "1E+3", " 5", "+5", "inf", "nan", ".5K", ""};
	static const char *const times[] = {"0x1", "1e1", "1e-1s", " 2", "inf", ".5"};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		expect_error("is not a size: give decimal digits",
			     parse_wl(&wl_tcp_stream, &o, "-m", sizes[i], NULL), &o);
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		expect_error("is not a time: give decimal digits",
			     parse_wl(&wl_tcp_rr, &o, "-l", times[i], NULL), &o);
	expect_error("--size 5.K: unknown unit .K", parse_wl(&wl_tcp_stream, &o, "-m", "5.K", NULL),
		     &o);
	assert_int_equal(parse_wl(&wl_tcp_stream, &o, "-m", "1.5K", "-l", "0.25", NULL), 0);
	assert_int_equal(o.size, 1536);
	assert_true(o.duration == 0.25);
	opts_free(&o);
	/* A config's numbers are parsed by the same code: a small one printed as 1e-05 must pass. */
	struct opts b;
	cJSON *j = cJSON_Parse("{\"warmup\": 0.00001}");

	opts_defaults(&b, wl_tcp_rr.overrides);
	assert_int_equal(opts_from_json(wl_tcp_rr.opts, wl_tcp_rr.overrides, j, &b, err,
					sizeof(err)), 0);
	assert_true(fabs(b.warmup - 1e-5) < 1e-12);
	opts_free(&b);
	cJSON_Delete(j);
}

/* A range names its unit (or what is counted) with separators, and a value given with a unit
 * in bytes too. */
static void test_range_units(void **state)
{
	(void)state;
	struct opts o;

	expect_error("--size 0 is out of range: use 1 to 65,507 bytes",
		     parse_wl(&wl_udp_rr, &o, "-m", "0", NULL), &o);
	expect_error("--size 64K (65,536 bytes) is out of range: use 1 to 65,507 bytes",
		     parse_wl(&wl_udp_rr, &o, "-m", "64K", NULL), &o);
	expect_error("--duration 0 is out of range: use 0.1 to 86,400 seconds",
		     parse_wl(&wl_udp_rr, &o, "--duration", "0", NULL), &o);
	expect_error("--window 0 is out of range: use 1 to 65,536 (requests outstanding per "
		     "client)", parse_wl(&wl_udp_rr, &o, "--window", "0", NULL), &o);
	expect_error("--timeout 0 is out of range: use 1 to 600,000 milliseconds",
		     parse_wl(&wl_tcp_rr, &o, "--timeout", "0", NULL), &o);
	expect_error("--busy-poll 2s (2,000,000 microseconds) is out of range: use 0 to 1,000,000 "
		     "microseconds", parse_wl(&wl_tcp_rr, &o, "--busy-poll", "2s", NULL), &o);
}

/* A flag given a value says so (--reverse=2 was meant as --runs 2); a long value is cut with
 * "..." and the reason still follows it whole. */
static void test_flag_value_and_long_values(void **state)
{
	(void)state;
	struct opts o;
	char big[300];

	expect_error("--reverse takes no value: give --reverse alone; did you mean --runs 2?",
		     parse_wl(&wl_tcp_stream, &o, "--reverse=2", NULL), &o);
	expect_error("--json takes no value: give --json alone (it was given 'yes')",
		     parse_wl(&wl_udp_rr, &o, "--json=yes", NULL), &o);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	expect_error("--wait xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... is not one of "
		     "auto|poll|epoll|busy|block", parse_wl(&wl_udp_rr, &o, "--wait", big, NULL), &o);
	big[0] = '1';
	expect_error("; use K, M, G, KiB, MiB or GiB (1024-based, as iperf3), or a bare number of "
		     "bytes", parse_wl(&wl_udp_rr, &o, "--size", big, NULL), &o);
	assert_non_null(strstr(err, "--size 1xxx"));
	assert_non_null(strstr(err, "x...: unknown unit xxx"));
	assert_true(strlen(err) < 250);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_vocabulary),
		cmocka_unit_test(test_tcp_rr_size),
		cmocka_unit_test(test_did_you_mean),
		cmocka_unit_test(test_own_flag_units),
		cmocka_unit_test(test_l_units),
		cmocka_unit_test(test_strict_numbers),
		cmocka_unit_test(test_range_units),
		cmocka_unit_test(test_flag_value_and_long_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
