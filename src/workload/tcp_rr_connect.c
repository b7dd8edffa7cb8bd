/* tcp_rr_connect.c: open a client process's many connections in parallel (tcp_rr_many.h).
 *
 * One blocking connect after another takes a round trip each (and a listener's backlog of
 * time when the server is slow to accept); so every socket is non-blocking, connects are
 * started up to a paced number in flight (a share of the listen backlog, so the server's
 * accept queue does not overflow and drop SYNs into a one-second retry), and their ends are
 * taken from one epoll set. A flow that fails is counted and named, never left out.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/util.h"
#include "transport/tcp.h"
#include "workload/flow_plan.h"
#include "workload/tcp_rr_many.h"
#include "workload/workload.h"

struct conn_tally {
	int failed, first, first_err;
	char *pending; /* connects still in flight (this phase only) */
};

static void note_fail(struct conn_tally *t, int *fds, int i, int err)
{
	if (fds[i] >= 0)
		close(fds[i]);
	fds[i] = -1;
	if (!t->failed++ || i < t->first) {
		t->first = i;
		t->first_err = err;
	}
}

/* Bind to the flow's loopback source address when the test spreads over several. */
static int bind_src(struct client_ctx *c, int fd, long g)
{
	const struct opts *o = c->o;
	int one = 1;

	if (o->src_addrs <= 1 || c->server.ss_family != AF_INET)
		return 0;
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(0x7f000001u + (uint32_t)(g % o->src_addrs))};

	/* The port is chosen at connect(), per destination: each address has its whole range. */
	if (setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -errno;
	return 0;
}

/* Start flow i's connect: 1 in flight (added to ep), 0 done at once, or -errno. */
static int start_one(struct client_ctx *c, int ep, int *fds, int i)
{
	long g = (long)c->index * c->o->flows + i; /* this flow among the test's */
	int r;

	fds[i] = socket(c->server.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fds[i] < 0)
		return -errno;
	if ((r = tcp_sockopts(fds[i], c->o)) || (r = bind_src(c, fds[i], g)))
		return r;
	if (connect(fds[i], (struct sockaddr *)&c->server, c->server_len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	struct epoll_event ev = {.events = EPOLLOUT, .data.u32 = (uint32_t)i};

	if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) < 0)
		return -errno;
	return 1;
}

/* Take the connects that ended; returns how many, or -1 when none did within the wait. */
static int reap(int ep, int *fds, struct conn_tally *t, int wait_ms)
{
	struct epoll_event ev[256];
	int n;

	do
		n = epoll_wait(ep, ev, 256, wait_ms);
	while (n < 0 && errno == EINTR);
	for (int k = 0; k < n; k++) {
		int i = (int)ev[k].data.u32, err = 0;
		socklen_t len = sizeof(err);

		t->pending[i] = 0;
		epoll_ctl(ep, EPOLL_CTL_DEL, fds[i], NULL);
		if (getsockopt(fds[i], SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		if (err)
			note_fail(t, fds, i, err);
	}
	return n > 0 ? n : -1;
}

static void fail_message(struct client_ctx *c, const struct conn_tally *t, int n, char *msg,
			 size_t msglen)
{
	const char *name = strerrorname_np(t->first_err);

	snprintf(msg, msglen, "connect: %d of %d flows failed: %s (first: flow %ld)", t->failed, n,
		 name ? name : strerror(t->first_err), (long)c->index * c->o->flows + t->first + 1);
}

int tcp_rr_connect_all(struct client_ctx *c, int *fds, int n, char *msg, size_t msglen)
{
	int burst = flow_plan_connect_inflight(flow_plan_backlog((long)c->o->clients * c->o->flows,
								 c->o->clients),
					       c->o->clients, n);
	int ep = epoll_create1(EPOLL_CLOEXEC), next = 0, inflight = 0;
	uint64_t quiet_since = now_ns(), limit = (uint64_t)c->o->timeout * 1000000;
	struct conn_tally t = {.first = n, .pending = xcalloc((size_t)n, 1)};

	for (int i = 0; i < n; i++)
		fds[i] = -1;
	if (ep < 0)
		return -errno;
	while (next < n || inflight > 0) {
		while (inflight < burst && next < n) {
			int r = start_one(c, ep, fds, next);

			if (r < 0)
				note_fail(&t, fds, next, -r);
			t.pending[next] = r > 0;
			inflight += r > 0;
			next++;
		}
		int got = inflight ? reap(ep, fds, &t, 100) : 0;

		if (got > 0) {
			inflight -= got;
			quiet_since = now_ns();
		} else if (inflight && now_ns() - quiet_since > limit) {
			for (int i = 0; i < next; i++) /* the ones still in flight: timed out */
				if (t.pending[i])
					note_fail(&t, fds, i, ETIMEDOUT);
			inflight = 0;
		}
	}
	close(ep);
	free(t.pending);
	if (!t.failed)
		return 0;
	fail_message(c, &t, n, msg, msglen);
	return -t.first_err;
}
