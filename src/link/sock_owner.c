/* sock_owner.c: see sock_owner.h. */
#include "link/sock_owner.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

/* 150 bytes a row: room for 400,000 sockets. */
#define TABLE_MAX (64u << 20)

struct end {
	uint8_t ip[16]; /* IPv6, an IPv4 address v4-mapped */
	unsigned port;
};

static void end_of(const struct sockaddr_storage *a, struct end *e)
{
	memset(e, 0, sizeof(*e));
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)a;

		e->ip[10] = e->ip[11] = 0xff;
		memcpy(e->ip + 12, &s->sin_addr, 4);
		e->port = ntohs(s->sin_port);
	} else if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)a;

		memcpy(e->ip, &s->sin6_addr, 16);
		e->port = ntohs(s->sin6_port);
	}
}

/* "HEX:PORT" as the kernel prints an end: each 32-bit word of the address in this host's
 * byte order (8 digits for IPv4, 32 for IPv6), the port in hex. */
static bool parse_end(const char *s, struct end *e)
{
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : 0;
	char word[9] = "", *endp;

	if (n != 8 && n != 32)
		return false;
	memset(e, 0, sizeof(*e));
	if (n == 8)
		e->ip[10] = e->ip[11] = 0xff;
	for (size_t i = 0; i < n / 8; i++) {
		memcpy(word, s + 8 * i, 8);
		uint32_t w = (uint32_t)strtoul(word, &endp, 16);

		if (*endp)
			return false;
		memcpy(e->ip + (n == 8 ? 12 : 4 * i), &w, 4);
	}
	unsigned long port = strtoul(colon + 1, &endp, 16);

	e->port = (unsigned)port;
	return endp != colon + 1 && port <= 65535;
}

int sock_owner_scan(const char *table, const struct sockaddr_storage *far,
		    const struct sockaddr_storage *near, uid_t *uid)
{
	struct end want_l, want_r, l, r;
	const char *line = table;

	end_of(far, &want_l);
	end_of(near, &want_r);
	while (line && *line) {
		char ls[64], rs[64];
		unsigned long u;

		/* sl local rem st tx:rx tr:when retrnsmt uid ... (the header row does not parse) */
		if (sscanf(line, " %*[0-9]: %63s %63s %*x %*s %*s %*s %lu", ls, rs, &u) == 3 &&
		    parse_end(ls, &l) && parse_end(rs, &r) && !memcmp(&l, &want_l, sizeof(l)) &&
		    !memcmp(&r, &want_r, sizeof(r))) {
			*uid = (uid_t)u;
			return 0;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return -ENOENT;
}

int sock_owner_uid(int fd, uid_t *uid)
{
	struct sockaddr_storage far, near;
	socklen_t fl = sizeof(far), nl = sizeof(near);
	static const char *const tables[] = {"/proc/net/tcp", "/proc/net/tcp6"};

	if (getpeername(fd, (struct sockaddr *)&far, &fl) < 0 ||
	    getsockname(fd, (struct sockaddr *)&near, &nl) < 0)
		return -errno;
	for (size_t i = 0; i < 2; i++) {
		int ret = 0;
		char *text = slurp(tables[i], TABLE_MAX, &ret);

		if (ret == -ENOENT) /* no IPv6 in this kernel */
			continue;
		if (!text)
			return ret;
		ret = sock_owner_scan(text, &far, &near, uid);
		free(text);
		if (ret == 0)
			return 0;
	}
	return -ENOENT;
}
