/* tcp_rr_open.h: tcp-rr's open-loop client (--rate): requests on a schedule on each
 * connection, whatever the answers do (openloop.h). */
#ifndef SB_TCP_RR_OPEN_H
#define SB_TCP_RR_OPEN_H

#include <stddef.h>

#include "base/opts.h"
#include "measure/side.h"

/* Requests in flight per connection under --rate, at most (answers come back in order, so
 * their times wait in a ring of this many): one due when it is full is dropped by the
 * generator. */
#define TCP_OL_INFLIGHT 4096

/* Open flow i's connection to the server with the workload's socket options into *fd (-1
 * until then). 0, or -errno with the reason in c->rep->msg. */
int tcp_rr_connect_flow(struct client_ctx *c, int *fd, int i);
/* One client process under --rate: its --flows connections, each with a thread that sends on
 * its schedule and one that takes the answers. 0 or -errno (the reason in c->rep->msg). */
int tcp_rr_open_client(struct client_ctx *c);
/* The checks of --rate and --arrivals on tcp-rr. 0 or -EINVAL with err. */
int tcp_rr_open_check(const struct opts *o, char *err, size_t errlen);

#endif
