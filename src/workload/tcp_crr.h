/* tcp_crr.h: tcp-crr's server side (tcp_crr_server.c), as its workload entry names it. Not
 * for use outside workload/. */
#ifndef SB_TCP_CRR_H
#define SB_TCP_CRR_H

#include <stdbool.h>

#include "base/opts.h"
#include "measure/side.h"

int crr_server_open(struct server_ctx *s, char *err, size_t errlen);
/* The most bytes of buffers the server side takes (serve --max-memory). */
double crr_server_bytes(const struct opts *o);
void crr_server_loop(struct server_ctx *s);

/* Connections in flight per client (server: in all) up to which a thread each serves them one
 * after the other; above, a few epoll threads drive them all (tcp_crr_many.c). */
#define CRR_MANY_ABOVE 64
/* The client above CRR_MANY_ABOVE: a few threads, an epoll loop each. 0 or -errno. */
struct client_ctx;
int crr_many_client(struct client_ctx *c);
/* How many threads it runs: the online CPUs, 1 to 8, at most --concurrency. */
int crr_many_threads(const struct opts *o);
/* A thread's pacing: the most of its nslot connections waiting for their first byte (in the
 * accept queue, most of them): its part of half the queue (the smaller of backlog and
 * somaxconn) among clients x threads, 1 to nslot. */
int crr_first_cap(long backlog, long somaxconn, long clients, int threads, int nslot);
/* Loopback source addresses for need connections in flight: 90% of ports each, 15 more for
 * the TIME_WAIT of --close client; 1 to 254. */
long crr_src_addrs_for(long need, long ports, bool close_client);

/* Its options (tcp_crr_check.c): the defaults it overrides, whether a config's window is a
 * count of connections, the checks across options, the report's description, and our counts
 * beside the kernel's. */
struct result;
struct kernel_pair;
extern const struct opt_override crr_overrides[];
bool crr_count_based(const struct opts *o);
int crr_check(struct opts *o, char *err, size_t errlen);
void crr_describe(const struct opts *o, char *buf, size_t len);
int crr_kernel_pairs(const struct result *r, struct kernel_pair *out);

#endif
