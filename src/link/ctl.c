/* ctl.c: see ctl.h. */
#include "link/ctl.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/util.h"

static const char *const type_names[] = {
	[CTL_MSG_HELLO] = "HELLO", [CTL_MSG_ACK] = "ACK",	  [CTL_MSG_ERROR] = "ERROR",
	[CTL_MSG_SETUP] = "SETUP", [CTL_MSG_READY] = "READY",	  [CTL_MSG_BEGIN] = "BEGIN",
	[CTL_MSG_END] = "END",	   [CTL_MSG_RESULT] = "RESULT", [CTL_MSG_BYE] = "BYE",
	[CTL_MSG_AUTH] = "AUTH",   [CTL_MSG_PING] = "PING",	  [CTL_MSG_NOTICE] = "NOTICE",
	[CTL_MSG_STATE] = "STATE", [CTL_MSG_VOUCH] = "VOUCH",
	[CTL_MSG_CLOSE] = "CLOSE",
};

const char *ctl_type_name(unsigned type)
{
	if (type == 0 || type > CTL_MSG_MAX_)
		return "?";
	return type_names[type];
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	v = htons(v);
	memcpy(p, &v, 2);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return ntohs(v);
}

int ctl_encode_hdr(uint8_t out[CTL_HDR_LEN], unsigned type, size_t len)
{
	if (type == 0 || type > CTL_MSG_MAX_)
		return -EINVAL;
	if (len > CTL_MAX_PAYLOAD)
		return -EMSGSIZE;
	put32(out, CTL_MAGIC);
	put16(out + 4, CTL_VERSION);
	put16(out + 6, (uint16_t)type);
	put32(out + 8, (uint32_t)len);
	return 0;
}

int ctl_decode_hdr(const uint8_t *buf, size_t n, struct ctl_hdr *h)
{
	if (n < CTL_HDR_LEN)
		return -ENODATA;
	h->magic = get32(buf);
	h->version = get16(buf + 4);
	h->type = get16(buf + 6);
	h->len = get32(buf + 8);
	if (h->magic != CTL_MAGIC)
		return -EBADMSG;
	if (h->version != CTL_VERSION)
		return -EPROTONOSUPPORT;
	if (h->type == 0 || h->type > CTL_MSG_MAX_)
		return -EINVAL;
	if (h->len > CTL_MAX_PAYLOAD)
		return -EMSGSIZE;
	return 0;
}

int ctl_parse_frame(const uint8_t *buf, size_t n, struct ctl_hdr *h)
{
	int ret = ctl_decode_hdr(buf, n, h);

	if (ret)
		return ret;
	if (n - CTL_HDR_LEN < h->len)
		return -ENODATA;
	return (int)(CTL_HDR_LEN + h->len);
}

void ctl_reader_init(struct ctl_reader *r, size_t max)
{
	free(r->payload);
	*r = (struct ctl_reader){.max = max < CTL_MAX_PAYLOAD ? max : CTL_MAX_PAYLOAD};
}

void ctl_reader_free(struct ctl_reader *r)
{
	free(r->payload);
	r->payload = NULL;
}

size_t ctl_reader_want(const struct ctl_reader *r)
{
	if (r->got < CTL_HDR_LEN)
		return CTL_HDR_LEN - r->got;
	return CTL_HDR_LEN + r->h.len - r->got;
}

int ctl_reader_feed(struct ctl_reader *r, const uint8_t *buf, size_t n)
{
	size_t want = ctl_reader_want(r);

	if (n > want)
		n = want;
	if (r->got < CTL_HDR_LEN) {
		memcpy(r->hdr + r->got, buf, n);
		r->got += n;
		if (r->got < CTL_HDR_LEN)
			return 0;
		int ret = ctl_decode_hdr(r->hdr, CTL_HDR_LEN, &r->h);

		if (ret)
			return ret;
		if (r->h.len > r->max)
			return -EMSGSIZE;
		r->payload = malloc(r->h.len + 1);
		if (!r->payload)
			return -ENOMEM;
	} else {
		memcpy(r->payload + (r->got - CTL_HDR_LEN), buf, n);
		r->got += n;
	}
	if (r->got < CTL_HDR_LEN + r->h.len)
		return 0;
	r->payload[r->h.len] = '\0';
	return 1;
}

void ctl_nodelay(int fd)
{
	int on = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
}

int ctl_send(int fd, unsigned type, const char *payload, size_t len)
{
	uint8_t hdr[CTL_HDR_LEN];
	int ret = ctl_encode_hdr(hdr, type, len);

	if (ret)
		return ret;
	/* One write per frame where possible, so a frame is never split by a crash between. */
	struct iovec iov[2] = {{hdr, sizeof(hdr)}, {(void *)payload, len}};
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = len ? 2 : 1};
	ssize_t w;

	do {
		w = sendmsg(fd, &m, MSG_NOSIGNAL);
	} while (w < 0 && errno == EINTR);
	if (w < 0)
		return -errno;
	if ((size_t)w == sizeof(hdr) + len)
		return 0;
	/* Short write: finish with plain writes. */
	if ((size_t)w < sizeof(hdr)) {
		ret = write_full(fd, hdr + w, sizeof(hdr) - (size_t)w);
		if (ret)
			return ret;
		w = sizeof(hdr);
	}
	return write_full(fd, payload + ((size_t)w - sizeof(hdr)), len - ((size_t)w - sizeof(hdr)));
}

int ctl_recv(int fd, unsigned *type, char *buf, size_t cap, int timeout_ms)
{
	uint8_t raw[CTL_HDR_LEN];
	struct ctl_hdr h;
	int ret = read_full(fd, raw, sizeof(raw), timeout_ms);

	if (ret)
		return ret;
	ret = ctl_decode_hdr(raw, sizeof(raw), &h);
	if (ret)
		return ret;
	if (h.len + 1 > cap)
		return -EMSGSIZE;
	/* The payload follows its header at once; a short timeout catches a truncated frame. */
	ret = read_full(fd, buf, h.len, timeout_ms < 0 ? 5000 : timeout_ms);
	if (ret)
		return ret;
	buf[h.len] = '\0';
	*type = h.type;
	return (int)h.len;
}

int ctl_expect(int fd, unsigned type, char *buf, size_t cap, int timeout_ms)
{
	unsigned got = 0;
	int ret = ctl_recv(fd, &got, buf, cap, timeout_ms);

	if (ret < 0)
		return ret;
	if (got == CTL_MSG_ERROR)
		return -EREMOTEIO;
	if (got != type)
		return -EPROTO;
	return ret;
}
