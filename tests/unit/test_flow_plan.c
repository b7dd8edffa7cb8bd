/* The plan of a many-flow run: threads, loopback source addresses from the port range, the
 * connects in flight (a share of the backlog), the backlog from the flows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "workload/flow_plan.h"

static void test_threads(void **state)
{
	(void)state;
	assert_int_equal(flow_plan_threads(100000, 2), 2);
	assert_int_equal(flow_plan_threads(1, 8), 1); /* never more threads than flows */
	assert_int_equal(flow_plan_threads(100, 0), 1); /* a CPU count that could not be read */
}

static void test_src_addrs(void **state)
{
	long ports = flow_plan_ports(32768, 60999);

	(void)state;
	assert_int_equal(ports, 28232);
	assert_int_equal(flow_plan_ports(5, 1), 1); /* a range upside down: at least one */
	/* a quarter of the range per address: 7,058 */
	assert_int_equal(flow_plan_src_addrs(1, ports), 1);
	assert_int_equal(flow_plan_src_addrs(7058, ports), 1);
	assert_int_equal(flow_plan_src_addrs(7059, ports), 2);
	assert_int_equal(flow_plan_src_addrs(20000, ports), 3);
	assert_int_equal(flow_plan_src_addrs(100000, ports), 15);
	/* a narrow range takes more addresses: 1,000 ports, 250 an address */
	assert_int_equal(flow_plan_src_addrs(20000, flow_plan_ports(1000, 1999)), 80);
	assert_int_equal(flow_plan_src_addrs(3, 1), 3); /* one port: an address a connection */
}

static void test_pacing(void **state)
{
	(void)state;
	/* the backlog: two bursts of every client with room, or the total when smaller */
	assert_int_equal(flow_plan_backlog(100, 1), 228);
	assert_int_equal(flow_plan_backlog(100000, 1), 2 * FLOW_PLAN_CONNECT_BURST + 128);
	assert_int_equal(flow_plan_backlog(100000, 4), 8 * FLOW_PLAN_CONNECT_BURST + 128);
	/* in flight: the client's share of the backlog, at most a burst and its own flows */
	assert_int_equal(flow_plan_connect_inflight(4096, 1, 100000), FLOW_PLAN_CONNECT_BURST);
	assert_int_equal(flow_plan_connect_inflight(1000, 4, 100000), 250);
	assert_int_equal(flow_plan_connect_inflight(4096, 1, 70), 70);
	assert_int_equal(flow_plan_connect_inflight(2, 8, 100), 1); /* never none */
	/* each client's burst fits in the backlog sized for them */
	for (long cl = 1; cl <= 64; cl *= 2) {
		long b = flow_plan_backlog(100000, cl);

		assert_true(cl * flow_plan_connect_inflight(b, cl, 100000 / cl) <= b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_src_addrs),
		cmocka_unit_test(test_pacing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
