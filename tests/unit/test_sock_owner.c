/* test_sock_owner.c: finding the owner of a connection's far end in the kernel's TCP tables
 * (link/sock_owner.c): the row with the ends swapped, IPv4 rows in their v4-mapped form, no
 * match for a near twin; and on a real loopback connection, this process's own user. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>
#include "link/sock_owner.h"

static void v4(struct sockaddr_storage *a, const char *ip, int port)
{
	struct sockaddr_in *s = (struct sockaddr_in *)a;

	memset(a, 0, sizeof(*a));
	s->sin_family = AF_INET;
	s->sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, ip, &s->sin_addr);
}

static void v6(struct sockaddr_storage *a, const char *ip, int port)
{
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)a;

	memset(a, 0, sizeof(*a));
	s->sin6_family = AF_INET6;
	s->sin6_port = htons((uint16_t)port);
	inet_pton(AF_INET6, ip, &s->sin6_addr);
}

/* An end as the kernel prints it: each 32-bit word in this host's order. */
static void hex_end(char *out, size_t cap, const struct sockaddr_storage *a)
{
	uint32_t w[4];
	int n = 0;

	if (a->ss_family == AF_INET) {
		memcpy(w, &((const struct sockaddr_in *)a)->sin_addr, 4);
		snprintf(out, cap, "%08X:%04X", w[0], ntohs(((const struct sockaddr_in *)a)->sin_port));
		return;
	}
	memcpy(w, &((const struct sockaddr_in6 *)a)->sin6_addr, 16);
	for (int i = 0; i < 4; i++)
		n += snprintf(out + n, cap - (size_t)n, "%08X", w[i]);
	snprintf(out + n, cap - (size_t)n, ":%04X", ntohs(((const struct sockaddr_in6 *)a)->sin6_port));
}

static void test_scan(void **state)
{
	(void)state;
	struct sockaddr_storage agent, us, other, agent6, us6, mapped_agent, mapped_us;
	char a[80], u[80], o[80], a6[80], u6[80], table[1200];
	uid_t uid = 12345;

	v4(&agent, "127.0.0.1", 12866);
	v4(&us, "127.0.0.1", 40000);
	v4(&other, "127.0.0.1", 40001);
	v6(&agent6, "::1", 12866);
	v6(&us6, "::1", 40000);
	v6(&mapped_agent, "::ffff:127.0.0.1", 12866);
	v6(&mapped_us, "::ffff:127.0.0.1", 40000);
	hex_end(a, sizeof(a), &agent);
	hex_end(u, sizeof(u), &us);
	hex_end(o, sizeof(o), &other);
	hex_end(a6, sizeof(a6), &agent6);
	hex_end(u6, sizeof(u6), &us6);
	/* Our own end (uid 0), a twin connection from another port (uid 7), the far end (65534). */
	snprintf(table, sizeof(table),
		 "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
		 "timeout inode\n"
		 "   0: %s %s 01 00000000:00000000 00:00000000 00000000     0        0 1 1 0\n"
		 "   1: %s %s 01 00000000:00000000 00:00000000 00000000     7        0 2 1 0\n"
		 "   2: %s %s 01 00000000:00000000 00:00000000 00000000 65534        0 3 1 0\n",
		 u, a, a, o, a, u);
	assert_int_equal(sock_owner_scan(table, &agent, &us, &uid), 0);
	assert_int_equal(uid, 65534);
	/* Seen from the agent's side, the far end is ours. */
	assert_int_equal(sock_owner_scan(table, &us, &agent, &uid), 0);
	assert_int_equal(uid, 0);
	assert_int_equal(sock_owner_scan(table, &agent, &other, &uid), 0);
	assert_int_equal(uid, 7);
	/* An IPv4 row answers for a v4-mapped IPv6 address. */
	assert_int_equal(sock_owner_scan(table, &mapped_agent, &mapped_us, &uid), 0);
	assert_int_equal(uid, 65534);
	/* No row for ::1, nor for a connection from another port. */
	struct sockaddr_storage third;

	v4(&third, "127.0.0.1", 40002);
	assert_int_equal(sock_owner_scan(table, &agent6, &us6, &uid), -ENOENT);
	assert_int_equal(sock_owner_scan(table, &agent, &third, &uid), -ENOENT);
	snprintf(table, sizeof(table),
		 "   0: %s %s 01 00000000:00000000 00:00000000 00000000  1000        0 1 1 0\n", a6,
		 u6);
	assert_int_equal(sock_owner_scan(table, &agent6, &us6, &uid), 0);
	assert_int_equal(uid, 1000);
	assert_int_equal(sock_owner_scan("garbage\n1: x y\n", &agent6, &us6, &uid), -ENOENT);
}

/* A real connection on loopback: its far end is this process's, so this user's. */
static void test_live(void **state)
{
	(void)state;
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0);
	uid_t uid = 12345;

	v4(&a, "127.0.0.1", 0);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(struct sockaddr_in)), 0);
	assert_int_equal(listen(l, 4), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
	assert_int_equal(connect(c, (struct sockaddr *)&a, len), 0);
	assert_int_equal(sock_owner_uid(c, &uid), 0);
	assert_int_equal(uid, geteuid());
	/* Not connected: no far end. */
	int d = socket(AF_INET, SOCK_STREAM, 0);

	assert_int_equal(sock_owner_uid(d, &uid), -ENOTCONN);
	close(d);
	close(c);
	close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
