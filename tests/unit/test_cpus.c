/* --cpus: taskset lists, the two sides, and what is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "base/cpus.h"

static struct cpu_list a, b;

/* The list as "0 1 2 8". */
static const char *text(const struct cpu_list *l)
{
	static char buf[256];
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < l->n && n < sizeof(buf) - 8; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, i ? " %d" : "%d", l->cpu[i]);
	return buf;
}

static void test_lists(void **state)
{
	char err[200];

	(void)state;
	assert_int_equal(cpus_parse_list("0-3,8", 5, &a, err, sizeof(err)), 0);
	assert_string_equal(text(&a), "0 1 2 3 8");
	assert_int_equal(cpus_parse_list("0-7:3,1,1", 9, &a, err, sizeof(err)), 0);
	assert_string_equal(text(&a), "0 3 6 1");
	const char *bad[] = {"", "3-1", "a", "1,", "1-", "0-4:0", "1024", "1 2", "-1"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (!cpus_parse_list(bad[i], strlen(bad[i]), &a, err, sizeof(err)))
			fail_msg("'%s' taken as %s", bad[i], text(&a));
}

static void test_sides(void **state)
{
	char err[200];

	(void)state;
	assert_int_equal(cpus_parse("client=0-1,8,server=4-5", &a, &b, err, sizeof(err)), 0);
	assert_string_equal(text(&a), "0 1 8");
	assert_string_equal(text(&b), "4 5");
	assert_int_equal(cpus_parse("server=2,client=3", &a, &b, err, sizeof(err)), 0);
	assert_string_equal(text(&a), "3");
	assert_string_equal(text(&b), "2");
	assert_int_equal(cpus_parse("server=2", &a, &b, err, sizeof(err)), 0);
	assert_int_equal(a.n, 0);
	assert_int_equal(cpus_parse("client=1,client=2", &a, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'client=1,client=2' gives client= twice"));
	assert_int_equal(cpus_parse("server=1-2,client=0,server=3", &a, &b, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "gives server= twice"));
	assert_int_equal(cpus_parse("0-3", &a, &b, err, sizeof(err)), -EINVAL);
	assert_int_equal(cpus_parse("client=", &a, &b, err, sizeof(err)), -EINVAL);
	assert_int_equal(cpus_parse("client=1,servr=2", &a, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'servr=2' is not client=LIST,server=LIST"));
}

static void test_check(void **state)
{
	struct opts o;
	char err[256];

	(void)state;
	opts_defaults(&o, NULL);
	o.cpus = strdup("client=0");
	assert_int_equal(cpus_check(&o, err, sizeof(err)), 0); /* CPU 0 is always online */
	o.pin = true;
	assert_int_equal(cpus_check(&o, err, sizeof(err)), -EINVAL);
	o.pin = false;
	free(o.cpus);
	o.cpus = strdup("client=0,server=1023");
	assert_int_equal(cpus_check(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "online CPUs are"));
	opts_free(&o);
}

/* Busy threads each on a CPU of their own: no more than this process's CPUs, none two to a CPU
 * by --cpus or --pin; a side not named floats. */
static void test_each_own(void **state)
{
	struct opts o;
	cpu_set_t set;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	int usable = CPU_COUNT(&set);

	opts_defaults(&o, NULL);
	assert_int_equal(cpus_each_own(&o, 1, 1), usable >= 2);
	assert_false(cpus_each_own(&o, usable, 1));
	o.cpus = strdup("client=0,server=0");
	assert_false(cpus_each_own(&o, 1, 1)); /* a sender and its receiver on CPU 0 */
	assert_true(cpus_each_own(&o, 1, 0));
	free(o.cpus);
	o.cpus = strdup("client=0");
	assert_int_equal(cpus_each_own(&o, 1, 1), usable >= 2); /* the server floats */
	assert_false(cpus_each_own(&o, 2, 0)); /* both clients on CPU 0 */
	if (usable >= 2) {
		free(o.cpus);
		o.cpus = strdup("client=0,server=1");
		assert_true(cpus_each_own(&o, 1, 1));
		assert_false(cpus_each_own(&o, 1, 2)); /* both servers on CPU 1 */
		free(o.cpus);
		o.cpus = NULL;
		o.pin = true; /* clients from the first CPU, servers from the last */
		assert_true(cpus_each_own(&o, 1, 1));
		assert_false(cpus_each_own(&o, usable, 1));
	}
	opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_sides),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_each_own),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
