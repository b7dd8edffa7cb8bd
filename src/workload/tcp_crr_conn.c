/* tcp_crr_conn.c: what a connection of tcp-crr's server goes through (tcp_crr_srv.h): the
 * request read, the messages sent, the client's FIN awaited, each step as far as it goes
 * without waiting; parked in its thread's epoll set between, with a deadline of --timeout;
 * closed and counted. The threads that accept are tcp_crr_server.c's. */
#include <errno.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/util.h"
#include "transport/tcp.h"
#include "workload/tcp_crr_srv.h"

/* --server-fault: half the bytes then a clean close, or an abort (RST). */
static void serve_fault(struct crr_worker *w, const struct opts *o, int fd)
{
	size_t half = (size_t)(o->msgs * o->size / 2);

	if (o->server_fault == FAULT_RESET) {
		struct linger l = {.l_onoff = 1, .l_linger = 0};

		w->cnt.syscalls++;
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		half = 0;
	}
	while (half) {
		w->cnt.syscalls++;
		ssize_t n = send(fd, w->buf, half < (size_t)o->size ? half : (size_t)o->size,
				 MSG_NOSIGNAL);

		if (n <= 0)
			break;
		half -= (size_t)n;
	}
}

/* The request is in (or there is none), or every message is out: what comes next. */
static void crr_next_step(struct crr_worker *w, struct crr_conn *k)
{
	const struct opts *o = w->x->s->o;

	if (k->step == STEP_REQUEST && o->server_fault != FAULT_NONE) {
		serve_fault(w, o, k->fd);
		k->step = STEP_DONE;
	} else if (k->step == STEP_REQUEST) {
		k->step = STEP_SEND;
		k->left = (size_t)(o->msgs * o->size);
	} else {
		/* The side that closes first keeps TIME_WAIT: the server, unless the client closes. */
		k->step = o->close != CLOSE_SERVER ? STEP_DRAIN : STEP_DONE;
	}
}

/* Take one step's calls as far as they go without waiting. */
static void crr_advance(struct crr_worker *w, struct crr_conn *k)
{
	const struct opts *o = w->x->s->o;
	size_t msg = (size_t)o->size;

	while (k->step < STEP_DONE) {
		ssize_t n;

		if (!k->left && k->step != STEP_DRAIN) {
			crr_next_step(w, k);
			continue;
		}
		w->cnt.syscalls += k->measuring;
		if (k->step == STEP_SEND) {
			/* One message per call, as a blocking server writes them. */
			size_t off = (size_t)(o->msgs * o->size) - k->left, in = msg - off % msg;

			n = send(k->fd, w->buf, in < k->left ? in : k->left, MSG_DONTWAIT | MSG_NOSIGNAL);
		} else {
			size_t ask = k->step == STEP_REQUEST && k->left < w->buflen ? k->left : w->buflen;

			n = recv(k->fd, w->buf, ask, MSG_DONTWAIT);
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return; /* park */
		if (n < 0 && k->step == STEP_DRAIN) {
			k->step = STEP_DONE; /* a reset instead of a FIN (--close reset) ends it too */
			return;
		}
		if (n < 0 || (n == 0 && k->step == STEP_REQUEST)) {
			k->why = n == 0 ? ERR_SHORT : k->step == STEP_SEND && errno != EPIPE &&
							       errno != ECONNRESET ? ERR_SEND
											 : tcp_err_kind(errno);
			k->step = STEP_FAIL;
			return;
		}
		if (k->step == STEP_DRAIN) {
			k->step = n == 0 ? STEP_DONE : STEP_DRAIN;
			continue;
		}
		if (k->step == STEP_SEND)
			k->tx_calls++;
		else
			k->rx_calls++;
		k->left -= (size_t)n;
		k->deadline = now_ns() + (uint64_t)o->timeout * 1000000;
	}
}

/* A connection is done (or failed): close it and count it. k is a copy: once closed, its
 * descriptor (and its slot in the table) may be another thread's. One in CRR_TCP_INFO_EVERY
 * of the thread's completed connections of the window has its TCP_INFO read first, as the
 * client's are (the getsockopt counted with its calls). */
static void crr_finish(struct crr_worker *w, struct crr_conn k)
{
	const struct opts *o = w->x->s->o;
	struct side_counters *c = &w->cnt;
	uint64_t calls = 0;

	if (k.step != STEP_FAIL && k.measuring && c->transactions % CRR_TCP_INFO_EVERY == 0)
		tcp_info_sample(k.fd, c, &w->ti, &calls);
	close(k.fd);
	c->syscalls += k.measuring + calls;
	if (k.step == STEP_FAIL) {
		count_err(c, k.why, k.measuring);
		return;
	}
	if (!k.measuring)
		return;
	c->transactions++;
	c->tx_bytes += o->server_fault != FAULT_NONE ? 0 : (uint64_t)(o->msgs * o->size);
	c->rx_bytes += (uint64_t)o->request;
	c->tx_packets += k.tx_calls;
	c->rx_packets += k.rx_calls;
}

/* Park a connection until its socket is ready, or refuse it when it has no slot. */
static void crr_park(struct crr_worker *w, struct crr_conn *k)
{
	struct epoll_event ev = {.events = k->step == STEP_SEND ? EPOLLOUT : EPOLLIN,
				 .data.fd = k->fd};

	w->cnt.syscalls += k->measuring;
	if (k->fd >= w->tabn || epoll_ctl(w->ep, EPOLL_CTL_ADD, k->fd, &ev) < 0) {
		close(k->fd);
		w->cnt.refused++;
		return;
	}
	k->pos = w->nparked;
	w->parked[w->nparked++] = k->fd;
	w->tab[k->fd] = *k;
}

/* Out of the owner's list (before the close that frees its descriptor). */
void crr_unpark(struct crr_worker *w, struct crr_conn *k)
{
	int last = w->parked[--w->nparked];

	w->parked[k->pos] = last;
	w->tab[last].pos = k->pos;
}

/* A parked connection's socket is ready: go on; done, failed, or parked again (for the other
 * direction, if it changed). */
void crr_resume(struct crr_worker *w, int fd)
{
	struct crr_conn *k = &w->tab[fd];
	enum crr_step was = k->step;

	crr_advance(w, k);
	if (k->step >= STEP_DONE) {
		crr_unpark(w, k);
		crr_finish(w, *k); /* closing it takes it out of the epoll set */
	} else if ((was == STEP_SEND) != (k->step == STEP_SEND)) {
		struct epoll_event ev = {.events = k->step == STEP_SEND ? EPOLLOUT : EPOLLIN,
					 .data.fd = k->fd};

		w->cnt.syscalls += k->measuring;
		epoll_ctl(w->ep, EPOLL_CTL_MOD, k->fd, &ev);
	}
}

void crr_serve_new(struct crr_worker *w, int fd, bool measuring)
{
	const struct opts *o = w->x->s->o;
	struct crr_conn k = {.fd = fd, .measuring = measuring, .why = ERR_RECV,
			     .step = STEP_REQUEST, .left = (size_t)o->request,
			     .deadline = now_ns() + (uint64_t)o->timeout * 1000000};
	uint64_t calls = 0;

	w->cnt.connects += measuring;
	w->cnt.syscalls += measuring; /* the accept */
	if (tcp_sockopts_counted(fd, o, &calls)) {
		k.step = STEP_FAIL;
		k.why = ERR_RECV;
	}
	w->cnt.syscalls += measuring ? calls : 0;
	crr_advance(w, &k);
	if (k.step >= STEP_DONE)
		crr_finish(w, k);
	else
		crr_park(w, &k);
}

/* Parked connections past their deadline: timed out. A scan at most every tenth of
 * --timeout (and 50 ms), so many parked connections cost no scan per wake. */
void crr_expire(struct crr_worker *w)
{
	uint64_t now = now_ns(), every = (uint64_t)w->x->s->o->timeout * 100000;

	if (now < w->next_scan)
		return;
	w->next_scan = now + (every < 50000000 ? every : 50000000);
	for (int i = w->nparked - 1; i >= 0; i--) {
		struct crr_conn *k = &w->tab[w->parked[i]];

		if (k->deadline > now)
			continue;
		k->step = STEP_FAIL;
		k->why = ERR_TIMEOUT;
		crr_unpark(w, k);
		crr_finish(w, *k);
	}
}
