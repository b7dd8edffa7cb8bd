/* tcp_stream_conn.c: tcp-stream's two ends of a connection, the same on both sides: the
 * sender (the --send call, zero-copy completions counted over the window) and the receiver
 * (the --recv call); each follows the phase and reads TCP_INFO at the window's edges. */
#include <netinet/tcp.h>
#include <linux/sockios.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/util.h"
#include "transport/tcp.h"
#include "workload/tcp_stream.h"
#include "workload/workload.h"

#define ZC_DRAIN_NS (500 * 1000000ULL) /* at the end, wait this long for the last completions */


static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

/* The kernel is done with sends [lo, hi): count those of the window. copied: 1, 0, -1 (not
 * told), -2 (a send that moved nothing, which the window did not count either). */
static void zc_count(void *arg, uint64_t lo, uint64_t hi, int copied)
{
	struct stream_conn *k = arg;

	k->zc_told += hi - lo;
	if (!k->zc_window_open || copied == -2)
		return;
	uint64_t n = overlap(lo, hi, k->zc_lo, k->zc_window_closed ? k->zc_hi : UINT64_MAX);

	k->cnt.zc_done += n;
	k->cnt.zc_copied += copied > 0 ? n : 0;
	k->cnt.zc_unknown += copied < 0 ? n : 0;
}

/* The end of the window for this connection: the phase's end, or the connection's. */
static void window_close(struct stream_conn *k)
{
	if (!k->saw_measure || k->zc_window_closed)
		return;
	tcp_info_add(k->fd, &k->cnt, 1);
	tcp_info_sample(k->fd, &k->cnt, NULL, NULL);
	k->zc_hi = k->io.zc_id;
	k->zc_window_closed = true;
	k->cnt.syscalls = k->io.syscalls;
}

/* The window's edges as this side sees them: TCP_INFO, and the zerocopy ids. */
static int follow(struct stream_conn *k)
{
	int ph = k->t ? thread_phase(k->t) : atomic_load_explicit(k->phase, memory_order_acquire);

	if (k->t)
		thread_progress(k->t, k->cnt.tx_bytes + k->cnt.rx_bytes, k->cnt.tx_bytes + k->cnt.rx_bytes);

	if (ph == PH_MEASURE && !k->saw_measure) {
		k->saw_measure = true;
		tcp_info_add(k->fd, &k->cnt, -1);
		k->zc_lo = k->io.zc_id;
		k->zc_window_open = true;
		k->cnt.syscalls = 0;
		k->io.syscalls = 0;
	}
	if (ph == PH_STOP)
		window_close(k);
	return ph;
}

/* After a call that moved nothing: wait on, or give up (a timeout error) once nothing has
 * moved for --timeout. *since is when the stall began (0: now). */
static bool patient(struct stream_conn *k, uint64_t *since, int ph)
{
	if (!*since)
		*since = now_ns();
	if (now_ns() - *since < (uint64_t)k->o->timeout * 1000000)
		return true;
	count_err(&k->cnt, ERR_TIMEOUT, ph == PH_MEASURE);
	return false;
}

void run_sender(struct stream_conn *k)
{
	int ph;
	uint64_t since = 0;

	while ((ph = follow(k)) != PH_STOP) {
		ssize_t w = k->io.tx->send(&k->io, k->fd, k->buf, k->size);

		if (w > 0) {
			since = 0;
			if (ph == PH_MEASURE) {
				k->cnt.tx_bytes += (uint64_t)w;
				k->cnt.tx_packets++;
			}
			continue;
		}
		if (w == 0 || w == -EAGAIN || w == -EINTR) {
			if (patient(k, &since, ph))
				continue;
			break;
		}
		/* The peer went away: at the end of a test that is how it ends. */
		if (w != -EPIPE && w != -ECONNRESET)
			count_err(&k->cnt, ERR_SEND, ph == PH_MEASURE);
		break;
	}
	window_close(k);
	if (k->o->zerocopy) { /* the last completions, so every send of the window is told */
		uint64_t t0 = now_ns();

		while (k->zc_told < k->io.zc_id && now_ns() - t0 < ZC_DRAIN_NS)
			k->io.tx->settle(&k->io, k->fd, 10);
	}
	shutdown(k->fd, SHUT_WR);
}

/* Send until want bytes are taken (UINT64_MAX: while the phase is ph and, with a deadline,
 * until it), counting in the window. false when the connection failed. */
static bool send_upto(struct stream_conn *k, int ph, uint64_t want, uint64_t deadline)
{
	uint64_t since = 0;

	while (want && follow(k) == ph && (!deadline || now_ns() < deadline)) {
		size_t len = want < k->size ? (size_t)want : k->size;
		ssize_t w = k->io.tx->send(&k->io, k->fd, k->buf, len);

		if (w > 0) {
			since = 0;
			want -= want == UINT64_MAX ? 0 : (uint64_t)w;
			if (ph == PH_MEASURE) {
				k->cnt.tx_bytes += (uint64_t)w;
				k->cnt.tx_packets++;
			}
		} else if (w != 0 && w != -EAGAIN && w != -EINTR) {
			count_err(&k->cnt, ERR_SEND, ph == PH_MEASURE);
			return false;
		} else if (!patient(k, &since, ph)) {
			return false;
		}
	}
	return true;
}

/* Wait (1 ms naps, up to --timeout) until the kernel has every byte sent acknowledged. */
static void drain_sendq(struct stream_conn *k)
{
	struct timespec ms1 = {0, 1000000};
	uint64_t t0 = now_ns();
	int q = 0;

	while (k->io.syscalls++, ioctl(k->fd, SIOCOUTQ, &q) == 0 && q > 0 &&
	       now_ns() - t0 < (uint64_t)k->o->timeout * 1000000)
		nanosleep(&ms1, NULL);
}

void run_sender_bytes(struct stream_conn *k, struct client_thread *t)
{
	struct timespec ms1 = {0, 1000000};
	bool ok = send_upto(k, PH_WARMUP, UINT64_MAX, now_ns() + (uint64_t)(k->o->warmup * 1e9));

	if (ok)
		drain_sendq(k);
	thread_warm_done(t);
	if (ok && thread_wait_phase(t, PH_MEASURE) == PH_MEASURE) {
		follow(k); /* the window opens for this connection: TCP_INFO, the syscall count */
		if (send_upto(k, PH_MEASURE, (uint64_t)t->share, 0))
			drain_sendq(k);
	}
	window_close(k);
	thread_done(t);
	while (follow(k) != PH_STOP)
		nanosleep(&ms1, NULL);
	shutdown(k->fd, SHUT_WR);
}

void run_receiver(struct stream_conn *k)
{
	int ph;
	uint64_t since = 0;

	while ((ph = follow(k)) != PH_STOP) {
		if (k->o->quickack) {
			int one = 1;

			k->io.syscalls++;
			setsockopt(k->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
		}
		ssize_t got = k->io.rx->recv(&k->io, k->fd, k->buf, k->chunk);

		if (got > 0) {
			since = 0;
			if (ph == PH_MEASURE) {
				k->cnt.rx_bytes += (uint64_t)got;
				k->cnt.rx_packets++;
			}
			continue;
		}
		if (got == 0)
			break; /* the sender is done */
		if (got == -EAGAIN || got == -EINTR) {
			if (patient(k, &since, ph))
				continue;
			break;
		}
		if (got != -ECONNRESET)
			count_err(&k->cnt, ERR_RECV, ph == PH_MEASURE);
		break;
	}
	window_close(k);
}

/* Threads that never sleep while the test runs with every receiver trying again: a sender and
 * a receiver a connection. */
static long busy_threads(const struct opts *o)
{
	return 2 * o->clients * o->flows * (o->bidir ? 2 : 1);
}

bool stream_spin_by_cpus(const struct opts *o)
{
	return o->wait == WAIT_AUTO && (o->recv == RECV_RECV || o->recv == RECV_RECVMSG) &&
	       !o->rcvlowat;
}

const char *stream_spin_why(const struct opts *o)
{
	if (o->recv != RECV_RECV && o->recv != RECV_RECVMSG)
		return "only --recv recv and recvmsg take a non-blocking try: it sleeps in its call "
		       "at once";
	if (o->rcvlowat)
		return "--rcvlowat says when a receive wakes: it sleeps in its call at once";
	if (busy_threads(o) > cpus_usable())
		return "more senders and receivers (two a connection) than CPUs: a retry would take "
		       "a CPU a sender needs, so it sleeps in its call at once";
	if (!cpus_each_own(o, busy_threads(o) / 2, busy_threads(o) / 2))
		return "--cpus or --pin puts two senders or receivers on one CPU: a retry would "
		       "take the CPU a sender needs, so it sleeps in its call at once";
	return NULL;
}

uint64_t stream_spin_ns(const struct opts *o)
{
	if (o->wait == WAIT_BUSY)
		return TCP_NEVER_SLEEP;
	return o->wait == WAIT_AUTO && !stream_spin_why(o) ? STREAM_SPIN_NS : 0;
}

_Static_assert(STREAM_SPIN_NS == 50000, "the text below says 50 us");

const char *stream_wait_reason(const struct opts *o)
{
	const char *why = stream_spin_why(o);

	if (o->wait != WAIT_AUTO)
		return "as --wait gave it";
	return why ? why
		   : "every sender and receiver has a CPU of its own: a receive that finds nothing "
		     "tries again for 50 us before it sleeps (a 64 KB segment comes every ~20 us at "
		     "25 Gbit/s), so the sender's CPU seldom pays for waking it; each empty try is "
		     "a call, counted";
}

/* Buffers and the send call's files. 0 or -errno. */
int conn_setup(struct stream_conn *k, const struct opts *o, _Atomic int *phase,
		      struct server_ctx *srv)
{
	k->o = o;
	k->phase = phase;
	k->size = (size_t)o->size;
	k->chunk = o->read_size ? (size_t)o->read_size : k->size;
	k->io = (struct tcp_io){.rx = tcp_recv_of(o->recv), .tx = tcp_send_of(o->send),
				.phase = phase, .memfd = -1, .pipe = {-1, -1},
				.zerocopy = k->sender && o->zerocopy, .zc_fn = zc_count, .zc_arg = k,
				.spin_ns = k->sender ? 0 : stream_spin_ns(o)};
	if (!k->sender) { /* what this host chose, for the config (tcp_stream_choices) */
		k->cnt.recv_spin_ns = k->io.spin_ns < SIDE_NEVER_SLEEPS ? k->io.spin_ns
									: SIDE_NEVER_SLEEPS;
		k->cnt.recv_spin_told = 1;
	}
	k->buflen = (k->size > k->chunk ? k->size : k->chunk) +
		    (k->sender && k->io.tx->file ? k->size : 0);
	k->srv = srv;
	k->buf = srv ? srv_alloc(srv, k->buflen) : xmalloc_io(k->buflen);
	if (!k->buf) /* past --max-memory */
		return -ENOMEM;
	for (size_t i = 0; i < k->size; i++)
		k->buf[i] = (char)('a' + i % 26);
	return k->sender ? k->io.tx->open(&k->io, k->fd, k->buf, k->size) : 0;
}

void conn_free(struct stream_conn *k)
{
	if (k->fd >= 0)
		close(k->fd);
	if (k->io.tx)
		tcp_io_close(&k->io);
	if (k->srv)
		srv_free(k->srv, k->buf, k->buflen);
	else
		free(k->buf);
	k->buf = NULL;
	k->fd = -1;
}

