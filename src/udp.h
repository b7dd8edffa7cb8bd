/* udp.h: what the UDP workloads share: sockets with the workload's options, the server's
 * bound socket(s), CPU pinning, message arrays, and the little-endian tag in a payload. */
#ifndef SB_UDP_H
#define SB_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io.h"
#include "workload.h"

/* A non-blocking UDP socket of that family with --no-check and --busy-poll. fd or -errno. */
int udp_socket(int family, const struct opts *o);
/* Bind a server socket to the agent's address and port (SO_REUSEPORT with --server-threads
 * > 1). 0 or -errno with err (a busy port names --port). */
int bind_server_socket(struct server_ctx *s, int fd, int port, char *err, size_t errlen);
/* --pin: pin the calling thread to the n-th CPU counting from the first (clients) or from the
 * last (server threads). The CPU, or -1. */
int pin_self(int n, bool from_last);
/* n messages with buffers of cap bytes each, allocated once; and freeing them. */
struct io_msg *msgs_alloc(int n, size_t cap);
void msgs_free(struct io_msg *m, int n);
/* A tag in the first min(size, 8) bytes of a payload, little-endian. */
void put_tag(uint8_t *buf, size_t size, uint64_t tag);
uint64_t get_tag(const uint8_t *buf, size_t size);

#endif
