/* udp_stream_flow.c: udp-stream's two ends of a flow, the same on either side: the sender
 * (datagrams with a header, paced at --rate or at full speed, through an io back end) and the
 * receiver (which counts loss, reordering and duplicates from the headers). */
#include <errno.h>
#include <math.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "workload/udp_stream.h"

/* A socket buffer of that size, past the sysctl's cap where we may (root). 0 or -errno. */
static int set_buf(int fd, int force, int plain, long bytes)
{
	int v = (int)bytes;

	if (!bytes || setsockopt(fd, SOL_SOCKET, force, &v, sizeof(v)) == 0)
		return 0;
	return setsockopt(fd, SOL_SOCKET, plain, &v, sizeof(v)) < 0 ? -errno : 0;
}

/* ---- the header ---- */

void put_hdr(uint8_t *p, uint32_t flow, uint64_t seq, uint32_t magic, uint64_t token)
{
	seq_hdr_put(p, &(struct seq_hdr){.seq = seq, .flow = flow, .magic = magic, .token = token});
}


void sender_init(struct sender *x, const struct opts *o, int ntarget)
{
	size_t cap = (size_t)o->size * (size_t)(o->gso ? o->gso : 1);

	*x = (struct sender){.ops = x->ops, .io = x->io, .cnt = x->cnt, .win = x->win,
			     .size = (size_t)o->size, .token = x->token,
			     .segs = o->gso ? (int)o->gso : 1, .batch = (int)o->batch};
	x->tg = xcalloc((size_t)ntarget, sizeof(*x->tg));
	x->m = msgs_alloc(x->batch, cap);
	for (int i = 0; i < x->batch; i++) {
		memset(x->m[i].buf, 'x', cap);
		x->m[i].len = cap;
	}
}

void sender_free(struct sender *x)
{
	free(x->tg);
	msgs_free(x->m, x->batch);
}

/* Pace at pps packets per second from now on (0: full speed). */
void sender_rate(struct sender *x, double pps)
{
	x->per_ns = pps / 1e9;
	x->t0 = now_ns();
	x->paced = 0;
}

/* Fill messages up to n (each for the next flow, with its next sequence numbers). */
static void prepare(struct sender *x, int n)
{
	uint32_t magic = x->win->measuring ? HDR_MAGIC_WIN : HDR_MAGIC;

	for (; x->ready < n; x->ready++) {
		struct io_msg *m = &x->m[x->ready];
		struct target *g = &x->tg[x->next];

		x->next = (x->next + 1) % x->ntg;
		m->sock = g->sock;
		memcpy(&m->addr, &g->addr, g->addrlen);
		m->addrlen = g->addrlen;
		for (int s = 0; s < x->segs; s++)
			put_hdr((uint8_t *)m->buf + (size_t)s * x->size, g->flow, g->seq++, magic,
				x->token);
	}
}

/* Packets due now under --rate (or a full batch without it). */
static int due(struct sender *x)
{
	if (!x->per_ns)
		return x->batch;
	double owed = (double)(now_ns() - x->t0) * x->per_ns - (double)x->paced;
	int msgs = (int)(owed / x->segs);

	return msgs < x->batch ? msgs : x->batch;
}

/* Sleep until the next message is due, or max_ns at most. */
static void pace_wait(struct sender *x, uint64_t max_ns)
{
	double at = (double)x->t0 + ((double)x->paced + x->segs) / x->per_ns;
	double cap = (double)(now_ns() + max_ns);
	struct timespec ts;

	at = at < cap ? at : cap;
	ts = (struct timespec){.tv_sec = (time_t)(at / 1e9), .tv_nsec = (long)fmod(at, 1e9)};
	x->io->syscalls++;
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static void send_some(struct sender *x, int n)
{
	prepare(x, n);
	/* Every datagram of the call leaves now: one clock read a call (the unsent of the last
	 * call are stamped again). */
	uint64_t t = now_ns();

	for (int i = 0; i < n; i++)
		for (int s = 0; s < x->segs; s++)
			seq_hdr_stamp((uint8_t *)x->m[i].buf + (size_t)s * x->size, t);
	int sent = x->ops->send(x->io, x->m, n);

	if (sent < 0) {
		count_err(x->cnt, ERR_SEND, x->win->measuring);
		sent = 0;
	}
	if (x->win->measuring) {
		x->cnt->tx_packets += (uint64_t)sent * (uint64_t)x->segs;
		x->cnt->tx_bytes += (uint64_t)sent * (uint64_t)x->segs * x->size;
	}
	x->paced += (uint64_t)sent * (uint64_t)x->segs;
	/* The unsent keep their sequence numbers and go first next time (those prepared past n
	 * by a larger call before too: a call cut short, sender_step_upto, loses none). */
	for (int i = sent; i < x->ready; i++) {
		struct io_msg t = x->m[i - sent];

		x->m[i - sent] = x->m[i];
		x->m[i] = t;
	}
	x->ready -= sent;
	if (sent < n) { /* the socket's buffer is full: wait until it drains */
		struct pollfd p = {.fd = x->io->fds[x->m[0].sock], .events = POLLOUT};

		x->io->syscalls++;
		poll(&p, 1, 10);
	}
}

/* Send what is due, or sleep until it is (max_ns at most). */
void sender_step(struct sender *x, uint64_t max_ns)
{
	sender_step_upto(x, x->batch, max_ns);
}

void sender_step_upto(struct sender *x, int most, uint64_t max_ns)
{
	int n = due(x);

	n = n < most ? n : most;
	if (n > 0)
		send_some(x, n);
	else
		pace_wait(x, max_ns);
}


/* Datagrams received in the receiver's window make the rate; loss, reordering and duplicates
 * are counted over those the sender sent in its own window (its header says so), whose edges
 * lie closer to the kernel's reads of RcvbufErrors than the receiver's, one control message
 * wider at each end. */
int receiver_take(struct receiver *r, const struct io_msg *m, bool measuring)
{
	size_t size = (size_t)r->o->size;
	uint64_t now = 0; /* one clock read a message: its datagrams arrived in one call */
	int took = 0;

	if (m->trunc || m->len % size) {
		count_err(r->cnt, ERR_RECV, measuring);
		return 0;
	}
	for (size_t off = 0; off < m->len; off += size) {
		struct seq_hdr h;

		seq_hdr_get((const uint8_t *)m->buf + off, size, &h);
		/* Not the test's (no token, no such flow, a number it could not have sent): counted
		 * apart, never as received or lost. */
		if (h.token != r->token || (h.magic != HDR_MAGIC && h.magic != HDR_MAGIC_WIN) ||
		    h.flow >= (uint32_t)r->o->peers || !seq_plausible(&r->flows[h.flow], h.seq)) {
			count_err(r->cnt, ERR_FOREIGN, true);
			continue;
		}
		struct seq_flow *f = &r->flows[h.flow];

		if (h.magic == HDR_MAGIC_WIN &&
		    (!r->draining || seq_missing(f, h.seq))) {
			took++;
			seq_take(f, h.seq);
			if (!now)
				now = now_ns();
			jitter_take(&f->jit, h.sent_ns, now);
		}
		if (measuring) {
			r->cnt->rx_packets++;
			r->cnt->rx_bytes += size;
		}
	}
	r->cnt->transactions += measuring;
	return took;
}

bool receiver_done(const struct receiver *r, uint64_t since, uint64_t filled)
{
	uint64_t now = now_ns();

	if (now - since >= DRAIN_MAX_MS * 1000000ULL || now - filled >= DRAIN_QUIET_MS * 1000000ULL)
		return true;
	for (long i = 0; i < r->o->peers; i++)
		if (r->flows[i].reordered && seq_lost(&r->flows[i]))
			return false;
	return true;
}

/* Loss: what the gaps between the first and last of each flow leave out. */
void receiver_end(struct receiver *r)
{
	for (long i = 0; i < r->o->peers; i++) {
		r->cnt->lost += seq_lost(&r->flows[i]);
		r->cnt->reordered += r->flows[i].reordered;
		r->cnt->dups += r->flows[i].dups;
		r->cnt->seq_unsure += r->flows[i].unsure;
		if (r->flows[i].jit.n >= 2) {
			r->cnt->jitter_ns += (uint64_t)r->flows[i].jit.j;
			r->cnt->jitter_flows++;
		}
	}
}

/* Receive-side socket options: the buffer, GRO. 0 or -errno with err. */
int receiver_sockopts(int fd, const struct opts *o, char *err, size_t errlen)
{
	int one = 1;

	if (set_buf(fd, SO_RCVBUFFORCE, SO_RCVBUF, o->rcvbuf)) {
		snprintf(err, errlen, "SO_RCVBUF %ld: %s", o->rcvbuf, strerror(errno));
		return -errno;
	}
	if (o->gro && setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) < 0) {
		snprintf(err, errlen, "UDP_GRO: %s (the receiver's kernel needs 5.0 or later)",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

/* Send-side socket options: GSO, the buffer. 0 or -errno with err. */
int sender_sockopts(int fd, const struct opts *o, char *err, size_t errlen)
{
	int seg = (int)o->size;

	if ((o->gso && setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg)) < 0) ||
	    set_buf(fd, SO_SNDBUFFORCE, SO_SNDBUF, o->sndbuf)) {
		snprintf(err, errlen, "%s: %s", o->gso ? "UDP_SEGMENT or SO_SNDBUF" : "SO_SNDBUF",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

