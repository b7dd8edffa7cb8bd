/* tcp-crr's pure pieces for many connections: the pacing of a client thread to the accept
 * queue, and the source addresses chosen from the need. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "workload/tcp_crr.h"

static void test_first_cap(void **state)
{
	(void)state;
	/* somaxconn 4096 caps a backlog of 20000: half of it over 1 client x 2 threads */
	assert_int_equal(crr_first_cap(20000, 4096, 1, 2, 10000), 1024);
	/* the backlog when it is the smaller */
	assert_int_equal(crr_first_cap(1024, 4096, 1, 2, 10000), 256);
	/* over clients too: 4 x 8 share 2048 */
	assert_int_equal(crr_first_cap(65535, 4096, 4, 8, 3125), 64);
	/* never more than the thread's slots, never 0 */
	assert_int_equal(crr_first_cap(65535, 65535, 1, 1, 100), 100);
	assert_int_equal(crr_first_cap(16, 4096, 8, 8, 5000), 1);
}

static void test_src_addrs(void **state)
{
	(void)state;
	/* 28,232 ports (the default range): 25,408 usable an address */
	assert_int_equal(crr_src_addrs_for(1, 28232, false), 1);
	assert_int_equal(crr_src_addrs_for(20000, 28232, false), 1);
	assert_int_equal(crr_src_addrs_for(25408, 28232, false), 1);
	assert_int_equal(crr_src_addrs_for(25409, 28232, false), 2);
	assert_int_equal(crr_src_addrs_for(100000, 28232, false), 4);
	/* --close client: today's 16 while one address holds those in flight, more beyond */
	assert_int_equal(crr_src_addrs_for(1, 28232, true), 16);
	assert_int_equal(crr_src_addrs_for(100000, 28232, true), 19);
	/* a tiny range: capped at 254 (127.0.0.1..254) */
	assert_int_equal(crr_src_addrs_for(100000, 100, false), 254);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_cap),
		cmocka_unit_test(test_src_addrs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
