/* tcp_crr_check.c: tcp-crr's options: its defaults, the checks across them (the ports and
 * source addresses its connections need, the epoll clients' limits), its description and the
 * kernel counters its counts stand beside (tcp_crr.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/nofile.h"
#include "base/util.h"
#include "measure/result.h"
#include "transport/tcp.h"
#include "workload/flow_plan.h"
#include "workload/openloop.h"
#include "workload/tcp_crr.h"
#include "workload/workload.h"

const struct opt_override crr_overrides[] = {
	{.field = "duration", .shown = "none: count-based, --conns; 5 with --rate",
	 .help = "seconds in the measured window: given, the window is time-based (-t 10s too, as "
		 "iperf3's -t)"},
	{.field = "clients", .def = "1", .help = NULL},
	{.field = "size", .def = "10000", .help = "bytes in each message the server sends"},
	{.field = "request", .def = "0", .help = "bytes the client sends first (0: the server writes on accept)"},
	{.field = "rate", .help = "open loop: connections per second over all clients, each started "
				  "on its schedule by one of --concurrency threads (0: closed loop)"},
	{.field = "timeout", .def = "5000", .help = "a connection making no progress this long is an error (timeout)"},
	{0},
};

bool crr_count_based(const struct opts *o)
{
	return o->conns > 0;
}

static bool server_is_loopback(const struct opts *o)
{
	return !o->server || !strncmp(o->server, "127.", 4) || !strncmp(o->server, "localhost", 9);
}

/* Source addresses on loopback for the need: the connections in flight on 90% of one address's
 * ports each, and with --close client 15 more for the TIME_WAIT it leaves (today's 16 when one
 * address holds the connections in flight). */
long crr_src_addrs_for(long need, long ports, bool close_client)
{
	long usable = ports * 9 / 10;
	long n = (need + usable - 1) / (usable > 0 ? usable : 1);

	n += close_client ? 15 : 0;
	return n < 1 ? 1 : n > 254 ? 254 : n;
}

static long crr_src_addrs(const struct opts *o)
{
	return crr_src_addrs_for(o->clients * o->concurrency, flow_plan_local_ports(), o->close == CLOSE_CLIENT);
}

/* Above CRR_MANY_ABOVE in flight: the options the epoll client does not take, and the open
 * files (a short limit is a usage error here, before anything starts). */
static int crr_check_many(struct opts *o, char *err, size_t errlen)
{
	char what[64];

	if (o->concurrency > CRR_MANY_ABOVE && (o->rate || o->recv != RECV_RECV || o->quickack)) {
		snprintf(err, errlen, "--concurrency above %d runs from epoll threads with recv(): "
			 "--rate, --recv %s and --quickack take at most --concurrency %d",
			 CRR_MANY_ABOVE, o->recv != RECV_RECV ? OPT_WORD(o, recv) : "other than recv",
			 CRR_MANY_ABOVE);
		return -EINVAL;
	}
	/* Each client process holds its --concurrency; a local server all of them, over as
	 * many descriptor tables as the limit asks (tcp_crr_server.c). */
	snprintf(what, sizeof(what), "--concurrency %ld", o->concurrency);
	if (nofile_ensure(o->concurrency, what, err, errlen)) {
		nofile_suggest_clients(o->concurrency, o->clients, "concurrency", err, errlen);
		return -EINVAL;
	}
	snprintf(what, sizeof(what), "--concurrency %ld x --clients", o->concurrency);
	return !o->server && o->clients > 1 &&
	       !nofile_tables(o->clients * o->concurrency, what, err, errlen) ? -EINVAL : 0;
}

int crr_check(struct opts *o, char *err, size_t errlen)
{
	/* --conns 0 alone ran a time-based window of 5 s without a word. With --duration or
	 * --rate the window is time-based as they say (and an agent's config, which sets every
	 * key, carries a time-based run's conns as 0 beside its duration). */
	if (OPT_IS_SET(o, conns) && !o->conns && !OPT_IS_SET(o, duration) && !o->rate) {
		snprintf(err, errlen, "--conns 0: --conns must be at least 1, or omit it for a "
			 "time-based run (--duration S)");
		return -EINVAL;
	}
	/* --duration or --rate without --conns: a time-based window. (By value after this: an
	 * agent's options come from the controller's config, which sets every key.) */
	if ((OPT_IS_SET(o, duration) || o->rate) && !OPT_IS_SET(o, conns))
		o->conns = 0;
	const char *why = ol_check(o, "--concurrency connections in flight per client", 100);

	if (why || (o->rate && o->conns)) {
		snprintf(err, errlen, "%s", why ? why : "--conns with --rate: an open-loop run is "
			 "time-based (--duration)");
		return -EINVAL;
	}
	if (o->rate)
		o->conns = 0;
	if (tcp_recv_check(o, err, errlen))
		return -EINVAL;
	if (o->src_addrs > 1 && !server_is_loopback(o)) {
		snprintf(err, errlen, "--src-addrs needs a loopback server (127.0.0.0/8)");
		return -EINVAL;
	}
	if (!o->src_addrs)
		o->src_addrs = server_is_loopback(o) && !o->bind ? crr_src_addrs(o) : 1;
	if (!OPT_IS_SET(o, backlog) && o->clients * o->concurrency > o->backlog)
		o->backlog = o->clients * o->concurrency > 65535 ? 65535 : o->clients * o->concurrency;
	if ((double)o->msgs * (double)o->size > 1e12) {
		snprintf(err, errlen, "--msgs x --size is over 1 TB per connection");
		return -EINVAL;
	}
	return crr_check_many(o, err, errlen);
}

void crr_describe(const struct opts *o, char *buf, size_t len)
{
	char what[64];

	if (o->rate)
		snprintf(what, sizeof(what), "open loop at %ld connections/s (%s) for %.1f s", o->rate,
			 OPT_WORD(o, arrivals), o->duration);
	else if (o->conns)
		snprintf(what, sizeof(what), "%ld connections after %ld of warm-up", o->conns,
			 o->warmup_conns);
	else
		snprintf(what, sizeof(what), "connections for %.1f s", o->duration);
	snprintf(buf, len,
		 "%s, %ld client%s x %ld in flight%s; server sends %ld x %ld bytes%s; client %s, "
		 "close: %s; %ld source address%s, backlog %ld",
		 what, o->clients, o->clients > 1 ? "s" : "", o->concurrency,
		 o->concurrency > CRR_MANY_ABOVE ? " (epoll threads)" : "", o->msgs, o->size,
		 o->request ? " after a request" : "", OPT_WORD(o, recv), OPT_WORD(o, close),
		 o->src_addrs, o->src_addrs > 1 ? "es" : "", o->backlog);
}

/* ActiveOpens counts each connect() that sent a SYN; PassiveOpens each connection the server
 * side established (its count is ours when the server runs here): the ones it accepted in its
 * window, less those that were already waiting in its accept queue when the window opened,
 * plus those waiting there when it closed (established in the window, not yet taken). */
int crr_kernel_pairs(const struct result *r, struct kernel_pair *out)
{
	const struct side_counters *c = &r->client.c, *v = &r->server.c;
	uint64_t in = v->connects + v->accept_queue_close;
	int n = 0;

	out[n++] = (struct kernel_pair){"ActiveOpens", c->connects + c->err[ERR_CONNECT]};
	if (r->server_local && r->server.present)
		out[n++] = (struct kernel_pair){
			"PassiveOpens", in - (v->accept_queue_open < in ? v->accept_queue_open : in)};
	return n;
}

/* Client side. */
