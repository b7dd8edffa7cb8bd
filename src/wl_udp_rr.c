/* wl_udp_rr.c: UDP request/response with many requests outstanding (SCENARIOS.md B).
 *
 * Each client keeps --window requests in flight over its sockets (a burst at the start, then
 * one new request per answer), with sendmsg()/recvmsg() on unconnected, non-blocking sockets,
 * and poll() only when no socket has anything to read. The server answers each request with a
 * packet of the same size to whichever peer sent it. A request carries a tag (slot and
 * generation) so that an answer is matched to its request, a request unanswered after
 * --timeout is counted lost and replaced (the window never shrinks), and an answer that comes
 * after that is counted late rather than as a transaction.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "out.h"
#include "util.h"
#include "workload.h"

#define SLOT_BITS 20
#define SLOT_MASK ((1u << SLOT_BITS) - 1)
#define RX_BUF 65536
#define RX_BURST 64	/* reads per socket before visiting the next one */
#define POLL_MAX_MS 10	/* so a phase change is seen within this even when idle */

struct slot {
	uint64_t sent_ns;
	uint32_t gen;
	uint32_t sock;
	bool busy, unsent;
};

struct udp_client {
	const struct opts *o;
	struct client_report *rep;
	int nsock;
	int *fds;
	int *sock_slots; /* requests in flight on each socket */
	struct pollfd *pfd;
	struct slot *slots;
	uint32_t window;
	size_t size;
	uint8_t *tx, *rx;
	struct iovec txv, rxv;
	struct msghdr txm, rxm;
	struct sockaddr_storage from;
	uint64_t timeout_ns, next_scan;
	bool block; /* --wait block: recvmsg() sleeps (up to the scan interval) instead of poll() */
	bool measuring, retry_pending;
};

static int udp_rr_check(struct opts *o, char *err, size_t errlen)
{
	if (!o->peers)
		o->peers = o->clients;
	if (o->peers < o->clients) {
		snprintf(err, errlen, "--peers %ld is fewer than --clients %ld: each client needs a socket",
			 o->peers, o->clients);
		return -EINVAL;
	}
	if (o->peers > o->clients * o->window) {
		snprintf(err, errlen,
			 "--peers %ld is more than --clients x --window (%ld): every peer needs a request in flight",
			 o->peers, o->clients * o->window);
		return -EINVAL;
	}
	if (!strcmp(o->wait, "block") && o->peers != o->clients) {
		snprintf(err, errlen,
			 "--wait block needs one socket per client (--peers %ld > --clients %ld): use --wait poll",
			 o->peers, o->clients);
		return -EINVAL;
	}
	/* The tag lives in the first min(size, 8) bytes; one byte tells only 256 slots apart. */
	if (o->size == 1 && o->window > 256) {
		snprintf(err, errlen, "--window %ld needs --size 2 or more (a 1-byte request tags 256 slots)",
			 o->window);
		return -EINVAL;
	}
	return 0;
}

static void put_tag(uint8_t *buf, size_t size, uint64_t tag)
{
	size_t n = size < 8 ? size : 8;

	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(tag >> (8 * i));
}

static uint64_t get_tag(const uint8_t *buf, size_t size)
{
	size_t n = size < 8 ? size : 8;
	uint64_t tag = 0;

	for (size_t i = 0; i < n; i++)
		tag |= (uint64_t)buf[i] << (8 * i);
	return tag;
}

/* Open a UDP socket of the server's family, non-blocking, with the workload's options. */
static int udp_socket(int family, const struct opts *o)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;

	if (fd < 0)
		return -errno;
	if (o->no_check && setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* Make a socket blocking, with a receive timeout so the caller still runs its checks. */
static int block_socket(int fd, uint64_t rcvtimeo_ns)
{
	struct timeval tv = {.tv_sec = (time_t)(rcvtimeo_ns / NSEC_PER_SEC),
			     .tv_usec = (suseconds_t)(rcvtimeo_ns % NSEC_PER_SEC / 1000)};

	if (fcntl(fd, F_SETFL, 0) < 0)
		return -1;
	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

static void send_req(struct udp_client *u, uint32_t i, uint64_t now)
{
	struct slot *s = &u->slots[i];

	s->gen++;
	s->sent_ns = now;
	s->busy = true;
	put_tag(u->tx, u->size, u->size >= 8 ? ((uint64_t)s->gen << SLOT_BITS) | i : i);
	if (sendmsg(u->fds[s->sock], &u->txm, 0) < 0) {
		/* Socket buffer full or a transient error: retried by the scan, not counted lost. */
		s->unsent = true;
		u->retry_pending = true;
		count_err(&u->rep->c, ERR_SEND, u->measuring);
		return;
	}
	s->unsent = false;
	u->rep->c.tx_packets += u->measuring;
}

static void on_answer(struct udp_client *u, size_t n, uint64_t now)
{
	u->rep->c.rx_packets += u->measuring;
	if (n != u->size) {
		count_err(&u->rep->c, ERR_RECV, u->measuring);
		return;
	}
	uint64_t tag = get_tag(u->rx, u->size);
	uint32_t i = u->size >= 8 ? (uint32_t)(tag & SLOT_MASK) : (uint32_t)tag;
	struct slot *s = &u->slots[i];

	if (i >= u->window || !s->busy || (u->size >= 8 && (uint32_t)(tag >> SLOT_BITS) != s->gen)) {
		u->rep->c.late += u->measuring;
		return;
	}
	if (u->measuring) {
		hist_record(&u->rep->lat, now - s->sent_ns);
		u->rep->c.transactions++;
	}
	send_req(u, i, now);
}

/* Replace requests unanswered for longer than --timeout, retry unsent ones. */
/* How often unanswered requests are looked for: a quarter of --timeout, at most 10 ms. */
static uint64_t scan_every(const struct udp_client *u)
{
	return u->timeout_ns / 4 < 10000000 ? u->timeout_ns / 4 : 10000000;
}

static void scan_slots(struct udp_client *u, uint64_t now)
{
	uint64_t every = scan_every(u);

	u->retry_pending = false;
	for (uint32_t i = 0; i < u->window; i++) {
		struct slot *s = &u->slots[i];

		if (s->unsent) {
			send_req(u, i, now);
		} else if (s->busy && now - s->sent_ns >= u->timeout_ns) {
			u->rep->c.lost += u->measuring;
			send_req(u, i, now);
		}
	}
	u->next_scan = now + (u->retry_pending ? 1000000 : every);
}

/* Read every socket until it would block, or has given as many answers as it has requests in
 * flight (no more can be waiting, bar late ones: poll() will show those), or RX_BURST. Returns
 * true when the caller should poll next rather than ask each socket again. With one request
 * in flight this makes a transaction poll + recvmsg + sendmsg, without a recvmsg that fails. */
static bool read_answers(struct udp_client *u, uint64_t *now, int *got)
{
	bool drained = true;

	*got = 0;

	for (int k = 0; k < u->nsock; k++) {
		int j, limit = u->sock_slots[k] < RX_BURST ? u->sock_slots[k] : RX_BURST;

		if (u->block)
			limit = 1; /* a blocking read returns at once while answers wait */

		for (j = 0; j < limit; j++) {
			u->rxm.msg_namelen = sizeof(u->from);
			ssize_t n = recvmsg(u->fds[k], &u->rxm, 0);

			if (n < 0) {
				if (errno == EINTR)
					continue;
				if (errno != EAGAIN)
					count_err(&u->rep->c, ERR_RECV, u->measuring);
				break;
			}
			*now = now_ns();
			on_answer(u, (size_t)n, *now);
			(*got)++;
		}
		drained &= j < RX_BURST;
	}
	return drained && !u->block;
}

static void wait_readable_socks(struct udp_client *u, uint64_t now)
{
	uint64_t left = u->next_scan > now ? u->next_scan - now : 0;
	int ms = (int)(left / 1000000) + 1;

	if (ms > POLL_MAX_MS)
		ms = POLL_MAX_MS;
	poll(u->pfd, (nfds_t)u->nsock, ms);
}

/* Follow the coordinator's phase; false once the run is over. */
static bool follow_phase(struct udp_client *u, struct client_ctx *c)
{
	int ph = client_follow_phase(c);

	u->measuring = ph == PH_MEASURE;
	return ph != PH_STOP;
}

static int client_open(struct udp_client *u, const struct client_ctx *c)
{
	const struct opts *o = c->o;

	u->o = o;
	u->rep = c->rep;
	u->nsock = c->nsock;
	u->window = (uint32_t)o->window;
	u->size = (size_t)o->size;
	u->timeout_ns = (uint64_t)o->timeout * 1000000;
	u->block = !strcmp(o->wait, "block");
	u->fds = xcalloc((size_t)u->nsock, sizeof(*u->fds));
	u->pfd = xcalloc((size_t)u->nsock, sizeof(*u->pfd));
	u->slots = xcalloc(u->window, sizeof(*u->slots));
	u->tx = xcalloc(1, u->size);
	u->rx = xmalloc(RX_BUF);
	for (int k = 0; k < u->nsock; k++) {
		int fd = udp_socket(c->server.ss_family, o);

		if (fd < 0) {
			snprintf(u->rep->msg, sizeof(u->rep->msg), "client socket %d of %d: %s", k + 1,
				 u->nsock, strerror(-fd));
			return fd;
		}
		u->fds[k] = fd;
		if (u->block && block_socket(fd, scan_every(u)) < 0) {
			snprintf(u->rep->msg, sizeof(u->rep->msg), "client socket options: %s",
				 strerror(errno));
			return -errno;
		}
		u->pfd[k] = (struct pollfd){.fd = fd, .events = POLLIN};
	}
	u->sock_slots = xcalloc((size_t)u->nsock, sizeof(*u->sock_slots));
	for (uint32_t i = 0; i < u->window; i++) {
		u->slots[i].sock = i % (uint32_t)u->nsock;
		u->sock_slots[u->slots[i].sock]++;
	}
	u->txv = (struct iovec){.iov_base = u->tx, .iov_len = u->size};
	u->txm = (struct msghdr){.msg_name = (void *)&c->server, .msg_namelen = c->server_len,
				 .msg_iov = &u->txv, .msg_iovlen = 1};
	u->rxv = (struct iovec){.iov_base = u->rx, .iov_len = RX_BUF};
	u->rxm = (struct msghdr){.msg_name = &u->from, .msg_iov = &u->rxv, .msg_iovlen = 1};
	return 0;
}

static void client_close(struct udp_client *u)
{
	for (int k = 0; k < u->nsock; k++)
		if (u->fds[k] > 0)
			close(u->fds[k]);
	free(u->fds);
	free(u->sock_slots);
	free(u->pfd);
	free(u->slots);
	free(u->tx);
	free(u->rx);
}

static int udp_rr_client(struct client_ctx *c)
{
	struct udp_client u = {0};
	int ret = client_open(&u, c);

	atomic_fetch_add(&c->sh->ready, 1);
	if (ret) {
		client_close(&u);
		return ret;
	}
	client_wait_phase(c, PH_WARMUP);

	uint64_t now = now_ns();

	/* Sockets are opened before the burst so the kernel sees every peer from the start. */
	for (uint32_t i = 0; i < u.window; i++)
		send_req(&u, i, now);
	u.next_scan = now + 1000000;
	while (follow_phase(&u, c)) {
		int got;
		bool drained = read_answers(&u, &now, &got);

		if (!got)
			now = now_ns(); /* else the clock was read at the last answer */
		if (now >= u.next_scan)
			scan_slots(&u, now);
		else if (drained)
			wait_readable_socks(&u, now);
	}
	client_close(&u);
	return 0;
}

/* The server: one unconnected socket answering every peer. It blocks in recvmsg() as the
 * report's server did; a receive timeout lets it see the end of the test without a poll() per
 * request. */
#define SERVER_RCVTIMEO_MS 50

struct udp_server {
	int fd;
	uint8_t *buf;
};

static int udp_rr_server_open(struct server_ctx *s, char *err, size_t errlen)
{
	struct udp_server *u = xcalloc(1, sizeof(*u));
	struct sockaddr_storage a = s->local;
	socklen_t alen = s->local_len;
	int fd = udp_socket(a.ss_family, s->o);

	s->priv = u;
	u->fd = -1;
	if (fd < 0) {
		snprintf(err, errlen, "server socket: %s", strerror(-fd));
		return fd;
	}
	u->fd = fd;
	if (block_socket(fd, SERVER_RCVTIMEO_MS * 1000000ULL) < 0) {
		snprintf(err, errlen, "server socket options: %s", strerror(errno));
		return -errno;
	}
	((struct sockaddr_in *)&a)->sin_port = htons((uint16_t)s->o->port); /* same offset in v6 */
	if (bind(fd, (struct sockaddr *)&a, alen) < 0) {
		int e = errno;

		if (e == EADDRINUSE)
			snprintf(err, errlen,
				 "UDP port %ld is busy on the server: choose another with --port (0 picks a free one)",
				 s->o->port);
		else
			snprintf(err, errlen, "bind UDP port %ld: %s", s->o->port, strerror(e));
		return -e;
	}
	if (getsockname(fd, (struct sockaddr *)&a, &alen) < 0)
		return -errno;
	s->port = ntohs(((struct sockaddr_in *)&a)->sin_port);
	u->buf = xmalloc(RX_BUF);
	return 0;
}

static void udp_rr_server_loop(struct server_ctx *s)
{
	struct udp_server *u = s->priv;
	struct sockaddr_storage from;
	struct iovec v = {.iov_base = u->buf, .iov_len = RX_BUF};
	struct msghdr m = {.msg_name = &from, .msg_iov = &v, .msg_iovlen = 1};
	struct side_counters *c = &s->c;

	for (;;) {
		int ph = atomic_load_explicit(&s->phase, memory_order_acquire);

		if (ph == PH_STOP)
			break;
		bool measuring = ph == PH_MEASURE;

		m.msg_namelen = sizeof(from);
		v.iov_len = RX_BUF;
		ssize_t n = recvmsg(u->fd, &m, 0);

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				count_err(c, ERR_RECV, measuring);
			continue;
		}
		c->rx_packets += measuring;
		v.iov_len = (size_t)n; /* the answer is exactly as large as the request */
		if (sendmsg(u->fd, &m, 0) < 0) {
			count_err(c, ERR_SEND, measuring);
			continue;
		}
		c->tx_packets += measuring;
		c->transactions += measuring;
	}
}

static void udp_rr_server_close(struct server_ctx *s)
{
	struct udp_server *u = s->priv;

	if (!u)
		return;
	if (u->fd >= 0)
		close(u->fd);
	free(u->buf);
	free(u);
	s->priv = NULL;
}

static void udp_rr_describe(const struct opts *o, char *buf, size_t len)
{
	snprintf(buf, len,
		 "%ld client%s x %ld outstanding, %ld-byte packets, %ld peer%s, unconnected "
		 "sendmsg/recvmsg, wait: %s, checksums %s",
		 o->clients, o->clients > 1 ? "s" : "", o->window, o->size, o->peers,
		 o->peers > 1 ? "s" : "", o->wait, o->no_check ? "off" : "on");
}

/* Every datagram in and out of this machine's UDP stack: the clients', and the server's when
 * it runs here (loopback counts both ends). */
static int udp_rr_kernel_pairs(const struct result *r, struct kernel_pair *out)
{
	uint64_t in = r->client.c.rx_packets, sent = r->client.c.tx_packets;

	if (r->server_local && r->server.present) {
		in += r->server.c.rx_packets;
		sent += r->server.c.tx_packets;
	}
	out[0] = (struct kernel_pair){"InDatagrams", in};
	out[1] = (struct kernel_pair){"OutDatagrams", sent};
	return 2;
}

/* 65,507: the largest UDP payload over IPv4. */
static const struct opt_override udp_rr_overrides[] = {
	{.field = "size", .def = "100", .min = 1, .max = 65507},
	{0},
};

const struct workload wl_udp_rr = {
	.name = "udp-rr",
	.summary = "UDP request/response, many requests outstanding, unconnected sockets "
		   "(defaults: the classic report, 2 clients x 100 outstanding, 100-byte packets).",
	.opts = opts_udp_rr,
	.overrides = udp_rr_overrides,
	.snmp_proto = "Udp",
	.unit = "transaction",
	.latency_label = "round trip",
	.check = udp_rr_check,
	.describe = udp_rr_describe,
	.kernel_pairs = udp_rr_kernel_pairs,
	.server_open = udp_rr_server_open,
	.server_loop = udp_rr_server_loop,
	.server_close = udp_rr_server_close,
	.client = udp_rr_client,
};
