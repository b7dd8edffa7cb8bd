/* The open-file limit: raised as far as the need, never lowered, refused with the numbers when
 * the hard limit (or fs.nr_open for root) is short; and the real limit of this process. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/nofile.h"

/* nofile_plan from a soft and a hard limit, into the limits to set. */
static int plan(rlim_t soft, rlim_t hard, unsigned long long want, int root,
		unsigned long long nr_open, struct rlimit *set)
{
	struct rlimit cur = {.rlim_cur = soft, .rlim_max = hard};

	return nofile_plan(&cur, want, root, nr_open, set);
}

static void test_plan(void **state)
{
	struct rlimit l;

	(void)state;
	/* enough already: nothing changes, nothing lowered */
	assert_int_equal(plan(50000, 60000, 20064, 0, 1048576, &l), 0);
	assert_int_equal(l.rlim_cur, 50000);
	assert_int_equal(l.rlim_max, 60000);
	/* the soft limit raised under the hard one */
	assert_int_equal(plan(1024, 524288, 20064, 0, 1048576, &l), 0);
	assert_int_equal(l.rlim_cur, 20064);
	assert_int_equal(l.rlim_max, 524288);
	/* hard too low, not root: refused, nothing set */
	assert_int_equal(plan(1024, 4096, 20064, 0, 1048576, &l), -EMFILE);
	assert_int_equal(l.rlim_cur, 1024);
	assert_int_equal(l.rlim_max, 4096);
	/* root raises the hard limit too, up to nr_open */
	assert_int_equal(plan(1024, 4096, 20064, 1, 1048576, &l), 0);
	assert_int_equal(l.rlim_cur, 20064);
	assert_int_equal(l.rlim_max, 20064);
	/* past nr_open even root is refused */
	assert_int_equal(plan(1024, 4096, 2000000, 1, 1048576, &l), -EMFILE);
}

/* Eight descriptors; a thread keeps three of them, given out of order (one right above stdio,
 * one the highest), in a table of its own: in it the other five are closed, in the process's
 * table all eight stay open. */
struct own_arg {
	int fd[8], keep[3], ret;
	bool open_in[8], stdio_in[3];
};

static void *own_thread(void *p)
{
	struct own_arg *a = p;

	a->ret = nofile_own_table(a->keep, 3);
	for (int i = 0; i < 8; i++)
		a->open_in[i] = fcntl(a->fd[i], F_GETFD) >= 0;
	for (int i = 0; i < 3; i++)
		a->stdio_in[i] = fcntl(i, F_GETFD) >= 0;
	return NULL;
}

static void test_own_table(void **state)
{
	struct own_arg a = {0};
	pthread_t t;

	(void)state;
	for (int i = 0; i < 8; i += 2)
		assert_int_equal(pipe(&a.fd[i]), 0);
	/* the lowest (3 when stdio alone is open before), the highest, one between */
	int lo = 0, hi = 0;

	for (int i = 1; i < 8; i++) {
		lo = a.fd[i] < a.fd[lo] ? i : lo;
		hi = a.fd[i] > a.fd[hi] ? i : hi;
	}
	int mid = lo != 1 && hi != 1 ? 1 : lo != 2 && hi != 2 ? 2 : 3;

	a.keep[0] = a.fd[hi];
	a.keep[1] = a.fd[lo];
	a.keep[2] = a.fd[mid];
	assert_int_equal(pthread_create(&t, NULL, own_thread, &a), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(a.ret, 0);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(a.open_in[i], i == lo || i == hi || i == mid);
		assert_true(fcntl(a.fd[i], F_GETFD) >= 0); /* still open here */
		close(a.fd[i]);
	}
	/* stdio stays in the thread's table as it is here: its messages still go out */
	for (int i = 0; i < 3; i++)
		assert_int_equal(a.stdio_in[i], fcntl(i, F_GETFD) >= 0);
}

static void test_real(void **state)
{
	struct rlimit before, after, low;
	char err[512] = "";

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &before), 0);
	/* a need the soft limit already covers changes nothing */
	assert_int_equal(nofile_ensure(10, "--flows 10", err, sizeof(err)), 0);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &after), 0);
	assert_int_equal(after.rlim_cur, before.rlim_cur);
	/* with the hard limit lowered to 512 (irreversible for a non-root process: last test),
	 * a need of 2000 is refused with the numbers and the fix, unless root raises it */
	low.rlim_cur = low.rlim_max = 512;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	int r = nofile_ensure(2000, "--flows 2000", err, sizeof(err));
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &after), 0);
	if (r == 0) { /* root: raised both */
		assert_true(after.rlim_cur >= 2000 + NOFILE_SPARE);
	} else {
		assert_int_equal(r, -EMFILE);
		assert_non_null(strstr(err, "--flows 2000 needs 2064 open files"));
		assert_non_null(strstr(err, "ulimit -n 2064"));
		assert_int_equal(after.rlim_cur, 512);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_own_table),
		cmocka_unit_test(test_real),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
