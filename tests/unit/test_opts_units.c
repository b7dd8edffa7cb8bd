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

#include "base/opts.h"
#include "base/suggest.h"
#include "workload/workload.h"

static char err[256];

static int parse_wl(const struct workload *wl, struct opts *o, ...)
{
	char *argv[32] = {(char *)wl->name};
	int argc = 1;
	va_list ap;

	va_start(ap, o);
	for (char *w; (w = va_arg(ap, char *));)
		argv[argc++] = w;
	va_end(ap);
	opts_defaults(o, wl->overrides);
	err[0] = '\0';
	int ret = opts_parse(wl->opts, wl->overrides, argc, argv, o, err, sizeof(err));

	if (ret == 0)
		ret = wl->check(o, err, sizeof(err));
	return ret;
}

static void expect_error(const char *needle, int ret, struct opts *o)
{
	assert_int_equal(ret, -EINVAL);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not mention '%s'", err, needle);
	opts_free(o);
}

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
	expect_error("--size 65M is out of range", parse_wl(&wl_tcp_stream, &o, "-m", "65M", NULL), &o);
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
	expect_error("--duration 25h is out of range",
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
		OWN_FLAG_UNIT(DBL, struct own, budget, "budget", 5, 86400, "S"),
		OWN_FLAG(INT, struct own, runs, "runs", 1, 100),
		{0},
	};
	struct own w = {0};
	char *argv[] = {"--budget", "2m", "--runs", "3", "udp-rr"}, *rest[5];
	int nrest;

	assert_int_equal(opts_take(defs, &w, 5, argv, rest, &nrest, err, sizeof(err)), 0);
	assert_true(w.budget == 120);
	assert_int_equal(w.runs, 3);
	assert_int_equal(nrest, 1);
	char *bad[] = {"--budget", "2x"};

	assert_int_equal(opts_take(defs, &w, 2, bad, rest, &nrest, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--budget 2x: unknown unit x"));
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
