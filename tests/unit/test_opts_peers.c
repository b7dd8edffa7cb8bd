/* The peers' vocabulary (opts_peers.c) and udp-stream's bit rate: each peer's habit is an error
 * naming our spelling, with the value the user gave, and never taken as one of our options; a
 * bit rate's k/M/G are 1000-based (a 1024-based parser gives 104,857,600 for 100M) and the
 * datagram rate is bitrate / (size x 8). */
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
#include "base/opts_priv.h"
#include "workload/workload.h"

#include "opts_harness.h"

/* Each peer's short flag names our spelling, and which one depends on the workload's options
 * (-C: --cc in TCP, --concurrency's retired letter in tcp-crr, none in UDP). */
static void test_peer_shorts(void **state)
{
	struct opts o;

	(void)state;
	expect_error("-j/--json", parse_wl(&wl_tcp_stream, &o, "-J", NULL), &o);
	expect_error("sockbench udp-stream", parse_wl(&wl_tcp_rr, &o, "-u", NULL), &o);
	expect_error("--cc cubic here", parse_wl(&wl_tcp_stream, &o, "-C", "cubic", NULL), &o);
	expect_error("--concurrency N", parse_wl(&wl_tcp_crr, &o, "-C", "2", NULL), &o);
	expect_error("UDP has none", parse_wl(&wl_udp_rr, &o, "-C", "cubic", NULL), &o);
	expect_error("--bitrate 100M here", parse_wl(&wl_udp_stream, &o, "-b", "100M", NULL), &o);
	expect_error("--batch N", parse_wl(&wl_udp_rr, &o, "-b", "8", NULL), &o);
	expect_error("--mss 1400 here", parse_wl(&wl_tcp_rr, &o, "-M", "1400", NULL), &o);
	expect_error("--nodelay here", parse_wl(&wl_tcp_rr, &o, "-N", NULL), &o);
	expect_error("--pin", parse_wl(&wl_tcp_rr, &o, "-A", "2", NULL), &o);
	expect_error("-v/--verbose", parse_wl(&wl_tcp_rr, &o, "-V", NULL), &o);
	expect_error("--server 192.0.2.1", parse_wl(&wl_tcp_rr, &o, "-H", "192.0.2.1", NULL), &o);
	expect_error("--clients 4", parse_wl(&wl_tcp_rr, &o, "-T", "4", NULL), &o);
	expect_error("--server-threads 4", parse_wl(&wl_udp_rr, &o, "-T", "4", NULL), &o);
}

/* Our own letters with a peer's value: -t TCP_RR, -r 64,64, -l 1400 (not a 23-minute run). */
static void test_peer_values(void **state)
{
	struct opts o;

	(void)state;
	expect_error("sockbench tcp-rr", parse_wl(&wl_udp_rr, &o, "-t", "TCP_RR", NULL), &o);
	expect_error("--request 64 --response 32", parse_wl(&wl_tcp_rr, &o, "-r", "64,32", NULL), &o);
	expect_error("-l 1400 is 23 minutes; write -l 1400s",
		     parse_wl(&wl_tcp_stream, &o, "-l", "1400", NULL), &o);
	assert_int_equal(parse_wl(&wl_tcp_stream, &o, "-l", "1400s", NULL), 0);
	assert_true(o.duration == 1400);
	opts_free(&o);
	assert_int_equal(parse_wl(&wl_tcp_stream, &o, "-l", "600", NULL), 0);
	opts_free(&o);
}

/* Long options and test names: sockperf's --mps, --full-rtt; neper's programs. */
static void test_peer_longs_and_tests(void **state)
{
	struct opts o;
	char msg[256];
	const char *who;

	(void)state;
	expect_error("--rate 1000 here", parse_wl(&wl_udp_rr, &o, "--mps", "1000", NULL), &o);
	expect_error("--rate 500 here", parse_wl(&wl_udp_rr, &o, "--mps=500", NULL), &o);
	expect_error("whole round trip", parse_wl(&wl_udp_rr, &o, "--full-rtt", NULL), &o);
	expect_error("did you mean", parse_wl(&wl_tcp_rr, &o, "--flwos", "2", NULL), &o);
	assert_string_equal(opts_peer_test("TCP_RR", &who), "tcp-rr");
	assert_string_equal(opts_peer_test("udp_stream", NULL), "udp-stream");
	assert_null(opts_peer_test("tcp-rr", NULL));
	assert_true(opts_peer_command("ping-pong", msg, sizeof(msg)));
	assert_non_null(strstr(msg, "sockbench udp-rr"));
	assert_false(opts_peer_command("pingpong", msg, sizeof(msg)));
}

/* --bitrate: 1000-based units, the datagram rate from the size, both in the config. */
static void test_bitrate(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(parse_wl(&wl_udp_stream, &o, "--bitrate", "100M", NULL), 0);
	assert_int_equal(o.bitrate, 100000000);
	assert_int_equal(o.rate, 8492); /* 1e8 / (1472 x 8) */
	opts_free(&o);
	assert_int_equal(parse_wl(&wl_udp_stream, &o, "--bitrate", "1.5G", "-m", "1000", NULL), 0);
	assert_int_equal(o.bitrate, 1500000000);
	assert_int_equal(o.rate, 187500);
	opts_free(&o);
	assert_int_equal(parse_wl(&wl_udp_stream, &o, "--bitrate", "800k", "-m", "100", NULL), 0);
	assert_int_equal(o.rate, 1000);
	opts_free(&o);
	expect_error("unknown unit Q", parse_wl(&wl_udp_stream, &o, "--bitrate", "100Q", NULL), &o);
	expect_error("not a bit rate", parse_wl(&wl_udp_stream, &o, "--bitrate", "1e9", NULL), &o);
	expect_error("--bitrate and --rate together",
		     parse_wl(&wl_udp_stream, &o, "--bitrate", "1M", "--rate", "5", NULL), &o);
	expect_error("datagrams per second", parse_wl(&wl_udp_stream, &o, "--bitrate", "1k", NULL), &o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peer_shorts),
		cmocka_unit_test(test_peer_values),
		cmocka_unit_test(test_peer_longs_and_tests),
		cmocka_unit_test(test_bitrate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
