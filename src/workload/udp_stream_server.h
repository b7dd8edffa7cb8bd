/* udp_stream_server.h: udp-stream's server side (udp_stream_server.c), as its workload entry
 * names it. Not for use outside workload/. */
#ifndef SB_UDP_STREAM_SERVER_H
#define SB_UDP_STREAM_SERVER_H

#include <stddef.h>

struct server_ctx;

int udp_stream_server_open(struct server_ctx *s, char *err, size_t errlen);
void udp_stream_server_loop(struct server_ctx *s);

#endif
