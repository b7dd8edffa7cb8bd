/* udp_rr_open.h: udp-rr's open-loop client (--rate): requests on a schedule, whatever the
 * answers do (openloop.h); the parts both loops share; and its server side. */
#ifndef SB_UDP_RR_OPEN_H
#define SB_UDP_RR_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/opts.h"
#include "measure/side.h"
#include "transport/io.h"

/* One client process's loop under --rate: its share of the rate, until PH_STOP, into c->rep
 * (lat: from each request's scheduled send; lat2: from its actual send). 0 or -errno. */
int udp_rr_open_client(struct client_ctx *c);
/* A client's io context as both loops set it up (depth: requests in flight at most), before
 * udp_rr_open_io: io->fds allocated, -1 each. */
void udp_rr_io_init(struct io_ctx *io, struct client_ctx *c, int depth);
/* Pin the process (--pin), open the client's sockets (io->fds allocated, -1 each) and the back
 * end: 0, or -errno with the reason in c->rep->msg. */
int udp_rr_open_io(const struct io_ops *ops, struct io_ctx *io, struct client_ctx *c);
/* Close the back end (ops NULL: none opened) and the sockets; free io->fds. */
void udp_rr_close_io(const struct io_ops *ops, struct io_ctx *io);
/* n request messages of size bytes to the server (msgs_free frees them). */
struct io_msg *udp_rr_requests(struct client_ctx *c, int n, size_t size);
/* Put slot's request of generation gen in m (its tag; window: the slots there may be), to go
 * out on socket sock. */
void udp_rr_put_request(struct io_msg *m, size_t size, uint32_t window, uint32_t slot,
			uint32_t gen, uint32_t sock);
/* Send the n requests of tx in one call, counting those sent (measuring) and a send error for
 * each of the rest (a full socket buffer: the caller sends them again). How many went. */
int udp_rr_send_queued(const struct io_ops *ops, struct io_ctx *io, struct io_msg *tx, int n,
		       struct side_counters *c, bool measuring);
/* What both loops keep of the drain (PH_DRAIN: nothing new is sent, the window's requests are
 * answered or counted lost). */
struct udp_rr_drain {
	bool draining, drained; /* PH_DRAIN seen; drain_done said (nothing of the window left) */
	uint32_t in_window;	/* requests of the window in flight */
};
/* Follow the drain at phase ph: from PH_DRAIN on, tell the coordinator once when nothing of
 * the window is in flight. True at PH_STOP after a drain: what is still in flight was lost. */
bool udp_rr_drain_follow(struct udp_rr_drain *d, int ph, struct client_ctx *c);
/* The server side (udp_rr_server.c): its sockets, and its loop until PH_STOP. */
int udp_rr_server_open(struct server_ctx *s, char *err, size_t errlen);
void udp_rr_server_loop(struct server_ctx *s);
/* Local ports: --src-addrs (0: as many loopback source addresses as the peers need, 9 in 10
 * of each one's ip_local_port_range) and enough ports for --peers. 0 or -EINVAL with err. */
int udp_rr_ports_check(struct opts *o, char *err, size_t errlen);
/* The checks of --rate and --arrivals on udp-rr. 0 or -EINVAL with err. */
int udp_rr_open_check(const struct opts *o, char *err, size_t errlen);

#endif
