/* tcp_crr.h: tcp-crr's server side (tcp_crr_server.c), as its workload entry names it. Not
 * for use outside workload/. */
#ifndef SB_TCP_CRR_H
#define SB_TCP_CRR_H

#include "base/opts.h"
#include "measure/side.h"

int crr_server_open(struct server_ctx *s, char *err, size_t errlen);
/* The most bytes of buffers the server side takes (serve --max-memory). */
double crr_server_bytes(const struct opts *o);
void crr_server_loop(struct server_ctx *s);

#endif
