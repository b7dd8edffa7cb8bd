/* udp_stream.h: what wl_udp_stream.c (the workload and its client), udp_stream_server.c (its
 * server side) and udp_stream_flow.c (a flow's sender and receiver, below both) share. Not for
 * use outside workload/. */
#ifndef SB_UDP_STREAM_H
#define SB_UDP_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "measure/seq.h"
#include "measure/side.h"
#include "transport/io.h"
#include "transport/udp.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

#define HDR_LEN SEQ_HDR_LEN
#define HDR_MAGIC 0x534b4253u	  /* "SBKS": sent outside the sender's window */
#define HDR_MAGIC_WIN 0x574b4253u /* "SBKW": sent inside it */
#define HDR_MAGIC_HELLO 0x484b4253u /* "SBKH": --reverse, a client's flow says where it is */
#define HELLO_EVERY_NS (10 * 1000000ULL) /* a flow that has heard nothing says hello again */
#define HELLO_LOOPS 1024 /* a sending server looks for late hellos every so many sends */
#define MAX_UDP 65507	      /* the largest UDP payload over IPv4 */
#define GRO_CAP 65536	      /* room for a coalesced read */
/* A path that reorders holds some of the sender's window datagrams behind later ones, and the
 * window closes over a control connection that does not wait for them. When a flow has been
 * seen to reorder, the receiver keeps taking, after its window, those that fill a gap below
 * the highest number it had seen (they count as neither received in the window nor lost)
 * until no flow has a gap, none filled one for DRAIN_QUIET_MS, or DRAIN_MAX_MS passed. On a
 * path that keeps order a gap is a loss for good, and there is nothing to wait for. */
#define DRAIN_QUIET_MS 20
#define DRAIN_MAX_MS 200

/* A flow a sender feeds: its socket, its number, its next sequence number, where to. */
struct target {
	int sock;
	uint32_t flow;
	uint64_t seq;
	struct sockaddr_storage addr;
	socklen_t addrlen;
};

/* ---- the sender: the clients, or the server with --reverse ---- */


struct sender {
	const struct io_ops *ops;
	struct io_ctx *io;
	struct side_counters *cnt; /* where the window's sends are counted */
	const struct udp_window *win;
	struct io_msg *m;
	int batch, segs, ready; /* messages per call, datagrams per message, prepared */
	size_t size;
	struct target *tg;
	int ntg, next;
	double per_ns;		/* --rate: this sender's packets per nanosecond (0: full speed) */
	uint64_t token;		/* the test's, in every header */
	uint64_t t0, paced;	/* pacing: its start, and the packets sent since */
};

/* ---- the receiver: the server, or the clients with --reverse ---- */

struct receiver {
	const struct opts *o;
	uint64_t token; /* the test's: a datagram without it is foreign */
	struct side_counters *cnt;
	struct seq_flow *flows; /* one per flow of the test (--peers) */
	bool draining;		/* after the window: only datagrams that fill a gap are taken */
};

void put_hdr(uint8_t *p, uint32_t flow, uint64_t seq, uint32_t magic, uint64_t token);
/* Ready x, whose ops, io, cnt, win and token the caller set, to send o's datagrams (--size,
 * --gso, --batch) to at most ntarget flows; the rest of x starts at 0. */
void sender_init(struct sender *x, const struct opts *o, int ntarget);
void sender_free(struct sender *x);
void sender_rate(struct sender *x, double pps);
/* Send what is due (a call of --batch messages at full speed), or sleep until it is, max_ns at
 * most; _upto: at most `most` messages in the call. */
void sender_step(struct sender *x, uint64_t max_ns);
void sender_step_upto(struct sender *x, int most, uint64_t max_ns);
/* Count one message's datagrams; how many of the sender's window it took (when draining:
 * how many gaps it filled). */
int receiver_take(struct receiver *r, const struct io_msg *m, bool measuring);
void receiver_end(struct receiver *r);
/* After the window: may the receiver stop? When no flow that reordered has a gap, or the
 * drain has run its course (see DRAIN_*): `since` is when the window closed, `filled` when a
 * datagram last filled a gap. */
bool receiver_done(const struct receiver *r, uint64_t since, uint64_t filled);
int receiver_sockopts(int fd, const struct opts *o, char *err, size_t errlen);
int sender_sockopts(int fd, const struct opts *o, char *err, size_t errlen);

#endif
