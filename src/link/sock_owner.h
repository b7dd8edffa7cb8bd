/* sock_owner.h: who owns the far end of a TCP connection when it is on this host. The kernel
 * lists every TCP socket of this network namespace in /proc/net/tcp and tcp6 with the user
 * that created it (an accepted socket: its listener's); a connection to a process of this
 * host has its far end there, local and remote swapped. Used where an answer must come from a
 * process we trust, not from whatever listens on a loopback port (vouch.c). */
#ifndef SB_SOCK_OWNER_H
#define SB_SOCK_OWNER_H

#include <sys/socket.h>
#include <sys/types.h>

/* The user owning the other end of connected TCP socket fd: 0 with *uid, -ENOENT when that end
 * is not in this namespace's tables (another host), or -errno. */
int sock_owner_uid(int fd, uid_t *uid);
/* The same from a table's text (/proc/net/tcp or tcp6, the tests'): the row whose local end
 * is far and remote end near (an IPv4 row matches an address in its v4-mapped form too).
 * 0 with *uid, or -ENOENT. Pure. */
int sock_owner_scan(const char *table, const struct sockaddr_storage *far,
		    const struct sockaddr_storage *near, uid_t *uid);

#endif
