/* udp.c: see udp.h. */
#include "transport/udp.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/nofile.h"
#include "base/util.h"
#include "transport/knobs.h"

/* A non-blocking UDP socket of the server's family with the workload's socket options. */
int udp_io_check(const struct opts *o, char *err, size_t errlen)
{
	const struct io_ops *ops = io_find(o);
	const char *why;

	if (!ops) {
		snprintf(err, errlen, "--io %s is not built in (liburing was missing at build time)",
			 OPT_WORD(o, io));
		return -EINVAL;
	}
	if (ops->not_applicable && (why = ops->not_applicable(o))) {
		snprintf(err, errlen, "--io %s is not applicable here: %s", ops->name, why);
		return -EINVAL;
	}
	if (o->sqpoll && o->io != IO_URING) {
		snprintf(err, errlen, "--sqpoll is not applicable without --io uring");
		return -EINVAL;
	}
	if (o->io == IO_MSG && o->batch > 1) {
		snprintf(err, errlen, "--batch %ld is not applicable with --io msg (one datagram per "
			 "call): use --io mmsg or uring", o->batch);
		return -EINVAL;
	}
	return 0;
}

int udp_socket(int family, const struct opts *o)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1, e;
	int usec = (int)o->busy_poll;

	if (fd < 0)
		return -errno;
	if ((o->no_check && setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)) < 0) ||
	    (usec && setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &usec, sizeof(usec)) < 0) ||
	    (errno = -knobs_set(fd, family, o, NULL))) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

void put_tag(uint8_t *buf, size_t size, uint64_t tag)
{
	size_t n = size < 8 ? size : 8;

	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(tag >> (8 * i));
}

uint64_t get_tag(const uint8_t *buf, size_t size)
{
	size_t n = size < 8 ? size : 8;
	uint64_t tag = 0;

	for (size_t i = 0; i < n; i++)
		tag |= (uint64_t)buf[i] << (8 * i);
	return tag;
}

/* Messages with buffers of their own, allocated once. */
struct io_msg *msgs_alloc(int n, size_t cap)
{
	struct io_msg *m = xcalloc((size_t)n, sizeof(*m));

	for (int i = 0; i < n; i++) {
		m[i].buf = xmalloc_io(cap);
		m[i].cap = cap;
	}
	return m;
}

void msgs_free(struct io_msg *m, int n)
{
	for (int i = 0; m && i < n; i++)
		free(m[i].buf);
	free(m);
}

/* Bind a server socket to the agent's address and port (SO_REUSEPORT with --server-threads
 * > 1). 0 or -errno with err (a busy port names --port). */
static int bind_server_socket(struct server_ctx *s, int fd, int port, char *err, size_t errlen)
{
	struct sockaddr_storage a = s->local;
	int one = 1;

	if (s->o->server_threads > 1 &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0) {
		snprintf(err, errlen, "SO_REUSEPORT: %s", strerror(errno));
		return -errno;
	}
	((struct sockaddr_in *)&a)->sin_port = htons((uint16_t)port); /* same offset in v6 */
	if (bind(fd, (struct sockaddr *)&a, s->local_len) < 0) {
		int e = errno;

		if (e == EADDRINUSE)
			snprintf(err, errlen,
				 "UDP port %d is busy on the server: choose another with --port (0 picks a free one)",
				 port);
		else
			snprintf(err, errlen, "bind UDP port %d: %s", port, strerror(e));
		return -e;
	}
	return 0;
}


int udp_server_open(struct server_ctx *s,
		    int (*prepare)(struct udp_srv_thread *t, char *err, size_t errlen), char *err,
		    size_t errlen)
{
	struct udp_server *x = xcalloc_lines(1, sizeof(*x));
	int port = (int)s->o->port, ret;

	s->priv = x;
	for (int i = 0; i < s->o->server_threads && i < UDP_MAX_SERVER_THREADS; i++) {
		struct udp_srv_thread *t = &x->t[x->n];
		struct sockaddr_storage a;
		socklen_t alen = sizeof(a);

		*t = (struct udp_srv_thread){.s = s, .index = i,
					     .fd = udp_socket(s->local.ss_family, s->o)};
		if (t->fd < 0) {
			snprintf(err, errlen, "server socket: %s", strerror(-t->fd));
			return t->fd;
		}
		x->n++;
		if ((prepare && (ret = prepare(t, err, errlen))) ||
		    (ret = bind_server_socket(s, t->fd, port, err, errlen)))
			return ret;
		knobs_read(t->fd, &s->sock);
		getsockname(t->fd, (struct sockaddr *)&a, &alen);
		port = ntohs(((struct sockaddr_in *)&a)->sin_port); /* the next ones share it */
	}
	s->port = port;
	return 0;
}

struct run_arg {
	struct udp_srv_thread *t;
	size_t cap;
	int batch, depth;
	bool sends;
	uint32_t spin_ns;
	void (*serve)(struct udp_srv_thread *t, const struct io_ops *ops, struct io_ctx *io);
};

static void *server_thread(void *arg)
{
	struct run_arg *a = arg;
	struct udp_srv_thread *t = a->t;
	const struct opts *o = t->s->o;
	const struct io_ops *ops = io_find(o);
	enum io_wait w = io_wait_of(o, !a->sends);
	struct io_ctx io = {.o = o, .nsock = 1, .fds = &t->fd,
			    .wait = a->sends && w == IO_WAIT_BLOCK ? IO_WAIT_POLL : w,
			    .spin_ns = a->sends ? 0 : a->spin_ns,
			    .batch = a->batch, .depth = a->depth, .cap = a->cap};
	char err[200];

	{
		int cpu = cpus_pin(o, t->index, true);

		if (cpu >= 0)
			setsockopt(t->fd, SOL_SOCKET, SO_INCOMING_CPU, &cpu, sizeof(cpu));
	}
	/* Its socket in a table of its own: each call on it then takes no file reference (70 ns
	 * a transaction in the agent's threaded process, scenario B's server). */
	nofile_own_table(&t->fd, 1);
	if (ops->open(&io, err, sizeof(err)) == 0)
		a->serve(t, ops, &io);
	else
		count_err(&t->c, ERR_RECV, true);
	ops->close(&io);
	return NULL;
}

void udp_server_run(struct server_ctx *s, size_t cap, int batch, int depth, bool sends,
		    void (*serve)(struct udp_srv_thread *t, const struct io_ops *ops,
				  struct io_ctx *io))
{
	struct udp_server *x = s->priv;
	struct run_arg a[UDP_MAX_SERVER_THREADS];
	int started = 0;

	for (; started < x->n; started++) {
		a[started] = (struct run_arg){.t = &x->t[started], .cap = cap, .batch = batch,
					      .depth = depth, .sends = sends, .serve = serve,
					      .spin_ns = x->spin_ns};
		if (pthread_create(&x->t[started].tid, NULL, server_thread, &a[started]))
			break;
	}
	for (int i = 0; i < started; i++) {
		pthread_join(x->t[i].tid, NULL);
		side_counters_add(&s->c, &x->t[i].c);
	}
}

void udp_server_close(struct server_ctx *s)
{
	struct udp_server *x = s->priv;

	if (!x)
		return;
	for (int i = 0; i < x->n; i++) {
		if (x->t[i].fd >= 0)
			close(x->t[i].fd);
		free(x->t[i].priv);
	}
	free(x);
	s->priv = NULL;
}

int udp_window_follow(struct udp_window *w, int ph, const struct io_ctx *io,
		      struct side_counters *c)
{
	bool was = w->measuring;
	uint64_t failed = io->send_failed - w->failed;

	w->failed = io->send_failed;
	w->measuring = ph == PH_MEASURE;
	if (w->measuring && !was)
		w->base = io->syscalls;
	if (w->measuring) {
		c->recv_spin_ns = io->wait == IO_WAIT_BLOCK ? io->spin_ns : 0;
		c->syscalls = io->syscalls - w->base;
		failed = failed < c->tx_packets ? failed : c->tx_packets;
		c->tx_packets -= failed;
		c->err[ERR_SEND] += failed;
		c->errors += failed;
	}
	return ph;
}

int udp_server_phase(struct udp_srv_thread *t, const struct io_ctx *io)
{
	return udp_window_follow(&t->win, atomic_load_explicit(&t->s->phase, memory_order_acquire),
				 io, &t->c);
}

int udp_server_recv(struct udp_srv_thread *t, const struct io_ops *ops, struct io_ctx *io,
		    struct io_msg *m, int n)
{
	int got = ops->recv(io, m, n);

	if (got > 0)
		return got;
	if (got < 0)
		count_err(&t->c, ERR_RECV, t->win.measuring);
	ops->wait(io, UDP_SERVER_WAIT_MS);
	return 0;
}
