/* udp_rr_open.h: udp-rr's open-loop client (--rate): requests on a schedule, whatever the
 * answers do (openloop.h). */
#ifndef SB_UDP_RR_OPEN_H
#define SB_UDP_RR_OPEN_H

#include <stddef.h>

#include "base/opts.h"
#include "measure/side.h"
#include "transport/io.h"

/* One client process's loop under --rate: its share of the rate, until PH_STOP, into c->rep
 * (lat: from each request's scheduled send; lat2: from its actual send). 0 or -errno. */
int udp_rr_open_client(struct client_ctx *c);
/* A client's UDP sockets into io->fds (io->nsock of them), bound, and connected with
 * --connected; both loops open theirs so. 0 or -errno. */
int udp_rr_open_sockets(struct io_ctx *io, struct client_ctx *c);
/* The checks of --rate and --arrivals on udp-rr. 0 or -EINVAL with err. */
int udp_rr_open_check(const struct opts *o, char *err, size_t errlen);

#endif
