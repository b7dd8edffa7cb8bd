/* The environment's differences (env_diff), and the --sysctl parser and allow-list (the journal:
 * test_journal.c). */
#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "link/sysctl.h"
#include "measure/env.h"

struct seen {
	int n;
	char path[8][64], a[8][64], b[8][64];
};

static void take(const char *path, const char *va, const char *vb, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8) {
		snprintf(s->path[s->n], 64, "%s", path);
		snprintf(s->a[s->n], 64, "%s", va);
		snprintf(s->b[s->n], 64, "%s", vb);
	}
	s->n++;
}

static void test_diff(void **state)
{
	(void)state;
	cJSON *a = cJSON_Parse("{\"kernel\":{\"release\":\"6.1\",\"cmdline\":\"x\"},\"cpu\":{\"online\":2,"
			       "\"turbo\":null},\"sysctl\":{\"k\":\"1\"}}");
	cJSON *b = cJSON_Parse("{\"kernel\":{\"release\":\"6.6\",\"cmdline\":\"x\"},\"cpu\":{\"online\":2,"
			       "\"turbo\":true},\"sysctl\":{\"k\":\"1\",\"new\":\"4 5\"}}");
	struct seen s = {0};

	assert_int_equal(env_diff(a, a, take, &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(env_diff(a, b, take, &s), 3);
	assert_string_equal(s.path[0], "kernel.release");
	assert_string_equal(s.a[0], "6.1");
	assert_string_equal(s.b[0], "6.6");
	assert_string_equal(s.path[1], "cpu.turbo");
	assert_string_equal(s.a[1], "null");
	assert_string_equal(s.b[1], "true");
	assert_string_equal(s.path[2], "sysctl.new");
	assert_string_equal(s.a[2], "(none)");
	assert_string_equal(s.b[2], "4 5");
	cJSON_Delete(a);
	cJSON_Delete(b);
}

static void test_collect(void **state)
{
	(void)state;
	cJSON *e = env_collect(NULL, 0);
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(e, "sysctl");
	int n = 0;

	/* Every key is there, null or not, in the order of the list. */
	for (int i = 0; env_sysctls[i]; i++, n++)
		assert_non_null(cJSON_GetObjectItemCaseSensitive(sc, env_sysctls[i]));
	assert_int_equal(cJSON_GetArraySize(sc), n);
	const cJSON *ifc = cJSON_GetObjectItemCaseSensitive(e, "interface");

	assert_string_equal(cJSON_GetObjectItemCaseSensitive(ifc, "name")->valuestring, "lo");
	cJSON_Delete(e);
}

static void test_parse(void **state)
{
	struct sysctl_set s;
	char err[300];

	(void)state;
	assert_int_equal(sysctl_parse(NULL, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(sysctl_parse("net.core.somaxconn=1024\nnet.ipv4.tcp_rmem=4096 8192 16384", &s,
				      err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.key[1], "net.ipv4.tcp_rmem");
	assert_string_equal(s.val[1], "4096 8192 16384");
	assert_false(s.applied);
	assert_int_equal(sysctl_parse("net.core.somaxconn", &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "KEY=VALUE"));
	assert_int_equal(sysctl_parse("../../etc/passwd=x", &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a sysctl name"));
	assert_int_equal(sysctl_parse("net.core.nope=1", &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no such setting"));
	assert_int_equal(sysctl_parse("net.core.somaxconn=1\nnet.core.somaxconn=2", &s, err,
				      sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "twice"));
	/* An interface's steering: that file of each rx queue (lo has one). */
	assert_int_equal(sysctl_parse("net.dev.lo.rps_cpus=1", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.key[0], "net.dev.lo.rps_cpus");
	assert_string_equal(s.path[0], "/sys/class/net/lo/queues/rx-0/rps_cpus");
	assert_int_equal(sysctl_parse("net.dev.nosuch0.rps_cpus=1", &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no interface nosuch0"));
	assert_int_equal(sysctl_parse("net.dev.lo.mtu=1", &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(sysctl_parse("net.dev..rps_cpus=1", &s, err, sizeof(err)), -EINVAL);
}

static void test_allowed(void **state)
{
	struct sysctl_set s;
	char err[300];

	(void)state;
	assert_int_equal(sysctl_parse("net.core.somaxconn=1024\nnet.core.busy_read=50", &s, err,
				      sizeof(err)), 0);
	assert_true(sysctl_allowed(&s, "net.core.busy_read,net.core.somaxconn", err, sizeof(err)));
	assert_false(sysctl_allowed(&s, "net.core.somaxconn", err, sizeof(err)));
	assert_non_null(strstr(err, "--allow-sysctl net.core.busy_read"));
	/* A prefix is not the key. */
	assert_false(sysctl_allowed(&s, "net.core.somaxconn,net.core.busy_rea", err, sizeof(err)));
	assert_false(sysctl_allowed(&s, NULL, err, sizeof(err)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_allowed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
