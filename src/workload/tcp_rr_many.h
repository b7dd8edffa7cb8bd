/* tcp_rr_many.h: tcp-rr with many flows in a process (more than FLOW_PLAN_THREADED_MAX): a few
 * threads, each driving its flows with epoll on non-blocking sockets, its histogram and
 * counters its own, merged once at the end; a flow keeps only its socket, the send times of
 * its requests in flight and how far its current message is. The connections are opened
 * before the window, in parallel and paced (tcp_rr_connect.c). */
#ifndef SB_TCP_RR_MANY_H
#define SB_TCP_RR_MANY_H

#include <stddef.h>

#include "base/opts.h"
#include "measure/side.h"

/* Open n connections of this client process in parallel, non-blocking, at most a paced number
 * in flight, from --src-addrs loopback source addresses (flow i of the test from 127.0.0.1 +
 * i mod N): fds[i] (left non-blocking), -1 for a flow that failed. 0, or the first failure's
 * -errno with "connect: F of N flows failed: ECONNREFUSED (first: flow K)" in msg. */
int tcp_rr_connect_all(struct client_ctx *c, int *fds, int n, char *msg, size_t msglen);
/* The client process's side of tcp-rr with many flows (closed loop). 0 or -errno (the reason
 * in c->rep->msg). */
int tcp_rr_many_client(struct client_ctx *c);
/* The server side with many connections: epoll threads; the accepted connection's state
 * reached through its epoll data. Same contract as struct workload's server hooks. */
int tcp_rr_many_server_open(struct server_ctx *s, char *err, size_t errlen);
void tcp_rr_many_server_loop(struct server_ctx *s);
/* The user-space bytes the many-flow server takes for this config, at most. */
double tcp_rr_many_server_bytes(const struct opts *o);

#endif
