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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
