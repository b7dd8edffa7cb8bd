/* knobs.h: the socket knobs a user sets per test (--cc, --mss, --tos, --bind): checked before
 * the run, set on every socket they apply to, and read back from one socket of each side
 * (getsockopt, getsockname) into a struct knobs_seen, so the report says what was in force,
 * not what was asked. Sockets only: no reports. */
#ifndef SB_KNOBS_H
#define SB_KNOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "base/opts.h"
#include "measure/knobs_seen.h"

/* Before the run, on this host: --mss in range, --cc one the kernel takes (else the
 * available ones are named), --bind an address (of this host where the clients are local)
 * and an existing device; tcp: the workload is TCP. 0 or -EINVAL with why in err. */
int knobs_check(const struct opts *o, bool tcp, char *err, size_t errlen);
/* --cc, --mss, --tos on a socket of that family (0: ask the socket) (either side, listeners too); each call
 * counted in *calls. 0 or -errno. */
int knobs_set(int fd, int family, const struct opts *o, uint64_t *calls);
/* A client socket: --bind's device (SO_BINDTODEVICE), then its address. With local NULL it
 * binds fd itself (port 0, IP_BIND_ADDRESS_NO_PORT); else it writes the address into
 * *local for the caller's own bind(). Each call counted in *calls (may be NULL). 0 or
 * -errno. */
int knobs_client(int fd, const struct opts *o, struct sockaddr_storage *local, uint64_t *calls);
/* Read the knobs in force on fd into k, the first time only (of any thread): a TCP socket
 * once connected, a UDP one once bound. */
void knobs_read(int fd, struct knobs_seen *k);

#endif
