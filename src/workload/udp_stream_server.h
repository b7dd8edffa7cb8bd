/* udp_stream_server.h: udp-stream's server side (udp_stream_server.c) and its report's part
 * (udp_stream_report.c), as its workload entry names them. Not for use outside workload/. */
#ifndef SB_UDP_STREAM_SERVER_H
#define SB_UDP_STREAM_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct server_ctx;

int udp_stream_server_open(struct server_ctx *s, char *err, size_t errlen);
void udp_stream_server_loop(struct server_ctx *s);

/* The report's part (udp_stream_report.c). */
struct result;
struct headline;
struct kernel_pair;
struct opts;
double udp_stream_live_units(const struct opts *o, uint64_t transactions, uint64_t bytes);
double udp_stream_units(const struct result *r);
int udp_stream_kernel_pairs(const struct result *r, struct kernel_pair *out);
void udp_stream_headline(const struct result *r, struct headline *h);
/* A paced run: did its senders keep --rate (why not, in why)? Unpaced: true. */
bool udp_stream_holding(const struct result *r, char *why, size_t len);

#endif
