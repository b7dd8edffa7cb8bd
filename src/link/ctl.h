/* ctl.h: the control protocol between a coordinator and a `serve` agent.
 *
 * Every message is a frame: a 12-byte header (magic, version, type, payload length, all in
 * network byte order) and a payload of at most CTL_MAX_PAYLOAD bytes of JSON text. Magic,
 * version, type and length are checked on every receive, before the payload is read.
 * Sequence: HELLO -> ACK (with a challenge when the agent has a secret: AUTH -> ACK),
 * SETUP -> READY | ERROR, BEGIN -> ACK, (PING -> ACK)*, END -> RESULT, BYE. ERROR may answer
 * anything; NOTICE may come from the agent at any time in the window. An agent running the
 * client side (--clients-on) answers SETUP with READY once its clients' sockets are open,
 * then sends STATE (its clients' progress) every STATE_MS until END. Before its clients send a
 * byte, that agent asks the server agent (HELLO, AUTH, VOUCH -> ACK | ERROR, see vouch.h)
 * whether the target is a test it runs.
 * The codec (ctl_encode_hdr, ctl_decode_hdr, ctl_parse_frame) is pure, so it is unit tested
 * and fuzzed; ctl_send/ctl_recv add the socket I/O with timeouts.
 * The codec reads and writes a socket it is given and knows nothing of tests.
 */
#ifndef SB_CTL_H
#define SB_CTL_H

#include <stddef.h>
#include <stdint.h>

#define CTL_MAGIC 0x534b424eu /* "SKBN" */
#define CTL_VERSION 2 /* 2: CLOSE */
#define CTL_HDR_LEN 12
/* 256 KiB: a client agent's RESULT carries two latency histograms whole (2 x HIST_TEXT_MAX,
 * 240 KB at most, checked where it is sent); the agent takes far less from a controller that
 * has not set up a test (PENDING_PAYLOAD in serve.c). */
#define CTL_MAX_PAYLOAD 262144

enum ctl_type {
	CTL_MSG_HELLO = 1,
	CTL_MSG_ACK,
	CTL_MSG_ERROR,
	CTL_MSG_SETUP,
	CTL_MSG_READY,
	CTL_MSG_BEGIN,
	CTL_MSG_END,
	CTL_MSG_RESULT,
	CTL_MSG_BYE,
	CTL_MSG_AUTH,
	CTL_MSG_PING,	/* controller, during the window: are you there? answered by ACK */
	CTL_MSG_NOTICE, /* agent, during the window: something that ends the test (JSON "error") */
	CTL_MSG_STATE,	/* client agent, from READY to END: its clients' progress (JSON) */
	CTL_MSG_VOUCH,	/* client agent to server agent, in place of SETUP: is this your test? */
	CTL_MSG_CLOSE,	/* controller, at the window's close before a drain: count no more, answer on */
	CTL_MSG_MAX_ = CTL_MSG_CLOSE,
};

struct ctl_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t len;
};

/* A frame as received: its type and its payload (NUL-terminated). */
struct ctl_frame {
	unsigned type;
	const char *payload;
};

/* Name of a message type ("HELLO"), "?" if unknown. */
const char *ctl_type_name(unsigned type);
/* Write the header of a frame into out. 0, or -EMSGSIZE / -EINVAL for a bad len / type. */
int ctl_encode_hdr(uint8_t out[CTL_HDR_LEN], unsigned type, size_t len);
/* Decode and validate a header from n bytes. 0; -ENODATA if n is short; -EBADMSG bad magic;
 * -EPROTONOSUPPORT other version; -EINVAL unknown type; -EMSGSIZE payload over the limit. */
int ctl_decode_hdr(const uint8_t *buf, size_t n, struct ctl_hdr *h);
/* Parse one whole frame at buf: on success the payload is at buf + CTL_HDR_LEN and the
 * return value is the frame's total length; -ENODATA if the payload is truncated; else as
 * ctl_decode_hdr. */
int ctl_parse_frame(const uint8_t *buf, size_t n, struct ctl_hdr *h);

/* A frame read as its bytes come, from a socket nobody may block on (the agent's pending
 * controllers): the header first, then a payload of at most `max` bytes. */
struct ctl_reader {
	uint8_t hdr[CTL_HDR_LEN];
	size_t got; /* bytes of the frame so far, header included */
	size_t max; /* the largest payload taken */
	struct ctl_hdr h;
	char *payload; /* h.len + 1 bytes, NUL-terminated once whole; allocated after the header */
};

/* Start (or start over) with payloads of at most max bytes; frees a payload. */
void ctl_reader_init(struct ctl_reader *r, size_t max);
void ctl_reader_free(struct ctl_reader *r);
/* How many bytes the frame still needs (read no more, so the next frame stays in the socket). */
size_t ctl_reader_want(const struct ctl_reader *r);
/* Take n bytes (n <= ctl_reader_want). 1: the frame is whole (type r->h.type, payload
 * r->payload of r->h.len bytes); 0: more is needed; a ctl_decode_hdr error, or -EMSGSIZE past
 * max. */
int ctl_reader_feed(struct ctl_reader *r, const uint8_t *buf, size_t n);

/* Send one frame. 0 or -errno. */
int ctl_send(int fd, unsigned type, const char *payload, size_t len);
/* A control connection sends each message as it is written (TCP_NODELAY): one written right
 * after another (CLOSE then END) is not held back for the first's ACK, which the peer's
 * delayed ACK makes 40 ms a run. Both ends set it. */
void ctl_nodelay(int fd);
/* Receive one frame into buf (cap bytes, NUL-terminated), waiting at most timeout_ms.
 * Returns the payload length and sets *type; -ETIMEDOUT, -EPIPE (peer closed), or a
 * ctl_decode_hdr error. A frame with a bad header leaves the stream unusable. */
int ctl_recv(int fd, unsigned *type, char *buf, size_t cap, int timeout_ms);
/* Receive and require a given type: an ERROR frame gives -EREMOTEIO with its payload in buf,
 * another type -EPROTO. */
int ctl_expect(int fd, unsigned type, char *buf, size_t cap, int timeout_ms);

#endif
