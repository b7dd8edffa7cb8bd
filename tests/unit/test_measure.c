/* CPU and rate arithmetic, /proc/stat split and /proc/net/snmp parsing on fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <cmocka.h>

#include "measure/kstat.h"
#include "report/out.h"
#include "measure/rusage.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures/"
#endif

static void near(double got, double want)
{
	if (fabs(got - want) > 1e-9 * (fabs(want) + 1))
		fail_msg("got %.12g, want %.12g", got, want);
}

static void test_rates(void **state)
{
	(void)state;
	near(result_per_s(1000, 2.0), 500.0);
	near(result_per_s(1000, 0.0), 0.0);
	/* 0.5 s user + 1.5 s sys over 1,000,000 transactions = 2 us each. */
	near(result_cpu_us_per(0.5, 1.5, 1000000), 2.0);
	near(result_cpu_us_per(1.0, 1.0, 0), 0.0);
	near(result_diff_pct(102, 100), 2.0);
	near(result_diff_pct(98, 100), -2.0);
	near(result_diff_pct(0, 0), 0.0);
}

static void test_cpu_marks(void **state)
{
	(void)state;
	struct cpu_mark a = {.ns = 1000000000, .user_s = 1.25, .sys_s = 2.0};
	struct cpu_mark b = {.ns = 3500000000, .user_s = 1.5, .sys_s = 3.0};
	double u, s, w;

	cpu_mark_delta(&a, &b, &u, &s, &w);
	near(u, 0.25);
	near(s, 1.0);
	near(w, 2.5);
	/* A real mark: time moves forward, CPU never runs backwards. */
	cpu_mark_take(&a);
	for (volatile int i = 0; i < 1000000; i++)
		;
	cpu_mark_take(&b);
	cpu_mark_delta(&a, &b, &u, &s, &w);
	assert_true(w > 0 && u >= 0 && s >= 0);
}

static void test_cpu_split_fixture(void **state)
{
	(void)state;
	struct cpu_stat a, b;
	struct cpu_split c;

	assert_int_equal(kstat_cpu_read(FIXTURES "proc_stat_a", &a), 0);
	assert_int_equal(kstat_cpu_read(FIXTURES "proc_stat_b", &b), 0);
	assert_int_equal(a.t[CPU_SYSTEM], 2000);
	/* deltas: user 100 nice 100 system 600 idle 100 iowait 100 softirq 100 = 1100 */
	kstat_cpu_split(&a, &b, &c);
	near(c.user, 100.0 * 200 / 1100);
	near(c.system, 100.0 * 600 / 1100);
	near(c.idle, 100.0 * 200 / 1100);
	near(c.softirq, 100.0 * 100 / 1100);
	near(c.user + c.system + c.idle + c.softirq + c.irq + c.steal, 100.0);
	assert_int_equal(kstat_cpu_read(FIXTURES "missing", &a), -ENOENT);
	assert_int_equal(kstat_cpu_read(NULL, &a), 0); /* the real one parses */
}

static void test_snmp_fixture(void **state)
{
	(void)state;
	struct snmp a, b, d;

	assert_int_equal(kstat_snmp_read(FIXTURES "snmp_a", "Udp", &a), 0);
	assert_int_equal(kstat_snmp_read(FIXTURES "snmp_b", "Udp", &b), 0);
	assert_int_equal(a.n, 9);
	/* "Udp" must not match the UdpLite rows. */
	assert_int_equal(kstat_snmp_get(&a, "InDatagrams"), 100);
	kstat_snmp_delta(&a, &b, &d);
	assert_int_equal(kstat_snmp_get(&d, "InDatagrams"), 400000);
	assert_int_equal(kstat_snmp_get(&d, "OutDatagrams"), 400100);
	assert_int_equal(kstat_snmp_get(&d, "RcvbufErrors"), 55);
	assert_int_equal(kstat_snmp_get(&d, "Nope"), -1);
	assert_int_equal(kstat_snmp_read(FIXTURES "snmp_a", "Tcp", &a), -ENOENT);
	assert_int_equal(kstat_snmp_read(NULL, "Udp", &a), 0);
	assert_true(kstat_snmp_get(&a, "OutDatagrams") >= 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_cpu_marks),
		cmocka_unit_test(test_cpu_split_fixture),
		cmocka_unit_test(test_snmp_fixture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
