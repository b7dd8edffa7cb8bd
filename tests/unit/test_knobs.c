/* Socket knobs: set on a socket and read back (no traffic: unconnected sockets), the checks
 * before a run, and the read-back's JSON round trip and merge. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include "base/opts.h"
#include "transport/knobs.h"

static void test_set_read_tcp(void **state)
{
	(void)state;
	struct opts o;
	struct knobs_seen k = {0};
	uint64_t calls = 0;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	opts_defaults(&o, NULL);
	o.cc = strdup("reno");
	o.tos = 16;
	o.mss = 1200;
	assert_true(fd >= 0);
	assert_int_equal(knobs_set(fd, 0, &o, &calls), 0);
	assert_int_equal(calls, 4); /* cc, mss, SO_DOMAIN, tos: each counted */
	knobs_read(fd, &k);
	assert_true(k.seen && k.tcp);
	assert_string_equal(k.cc, "reno");
	assert_int_equal(k.tos, 16);
	assert_int_equal(k.mss, 1200); /* unconnected: the user's MSS */
	/* Once only: a second socket does not overwrite what the first said. */
	int fd2 = socket(AF_INET, SOCK_STREAM, 0);

	knobs_read(fd2, &k);
	assert_string_equal(k.cc, "reno");
	close(fd2);
	close(fd);
	opts_free(&o);
}

static void test_bind_udp(void **state)
{
	(void)state;
	struct opts o;
	struct knobs_seen k = {0};
	struct sockaddr_storage any = {.ss_family = AF_INET};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	opts_defaults(&o, NULL);
	o.bind = strdup("127.0.0.9");
	o.tos = 184;
	assert_int_equal(knobs_set(fd, AF_INET, &o, NULL), 0);
	assert_int_equal(knobs_client(fd, &o, &any, NULL), 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&any, sizeof(struct sockaddr_in)), 0);
	knobs_read(fd, &k);
	assert_true(k.seen && !k.tcp);
	assert_string_equal(k.local, "127.0.0.9");
	assert_int_equal(k.tos, 184);
	assert_string_equal(k.dev, "");
	close(fd);
	/* An IPv6 address for an IPv4 socket is refused. */
	struct sockaddr_storage any6 = {.ss_family = AF_INET6};

	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	assert_int_equal(knobs_client(fd, &o, &any6, NULL), -EAFNOSUPPORT);
	close(fd);
	opts_free(&o);
}

static void check(const char *cc, long mss, const char *bind, int want, const char *needle)
{
	struct opts o;
	char err[256] = "";

	opts_defaults(&o, NULL);
	o.cc = cc ? strdup(cc) : NULL;
	o.mss = mss;
	o.bind = bind ? strdup(bind) : NULL;
	assert_int_equal(knobs_check(&o, true, err, sizeof(err)), want);
	if (needle && !strstr(err, needle))
		fail_msg("'%s' lacks '%s'", err, needle);
	opts_free(&o);
}

static void test_checks(void **state)
{
	(void)state;
	check(NULL, 0, NULL, 0, NULL);
	check("reno", 88, "127.0.0.1", 0, NULL);
	check(NULL, 87, NULL, -EINVAL, "88 to 32767");
	check("no-such-cc", 0, NULL, -EINVAL, "reno"); /* the available ones are named */
	check(NULL, 0, "not-an-address", -EINVAL, "ADDR%DEVICE");
	check(NULL, 0, "127.0.0.1%no-such-dev0", -EINVAL, "no device");
	check(NULL, 0, "%lo", 0, NULL);
	check(NULL, 0, "198.18.255.254", -EINVAL, "not an address of this host");
}

static void test_json(void **state)
{
	(void)state;
	struct knobs_seen a = {.seen = true, .tcp = true, .cc = "bbr", .mss = 988, .tos = 16,
			       .local = "127.0.0.7", .dev = "lo"};
	struct knobs_seen b, none = {0};
	cJSON *j = knobs_seen_to_json(&a);

	assert_int_equal(knobs_seen_from_json(j, &b), 0);
	assert_true(b.seen && b.tcp && b.mss == 988 && b.tos == 16);
	assert_string_equal(b.cc, "bbr");
	assert_string_equal(b.local, "127.0.0.7");
	assert_string_equal(b.dev, "lo");
	cJSON_Delete(j);
	j = knobs_seen_to_json(&none);
	assert_true(cJSON_IsNull(j));
	assert_int_equal(knobs_seen_from_json(j, &b), 0);
	assert_false(b.seen);
	cJSON_Delete(j);
	j = cJSON_Parse("{\"cc\":\"a-name-far-too-long-for-it\"}");
	assert_int_equal(knobs_seen_from_json(j, &b), -EINVAL);
	cJSON_Delete(j);
	/* Merge: the first side that saw something speaks. */
	b = none;
	knobs_seen_merge(&b, &none);
	assert_false(b.seen);
	knobs_seen_merge(&b, &a);
	a.tos = 4;
	knobs_seen_merge(&b, &a);
	assert_int_equal(b.tos, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_read_tcp),
		cmocka_unit_test(test_bind_udp),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
