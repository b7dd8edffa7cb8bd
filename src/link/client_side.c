/* client_side.c: a test's client side in the agent, for a controller that fans its clients
 * out over several hosts (--clients-on). The SETUP names the server's data address and token,
 * the server agent's control port and this host's share; the agent sends nothing before the
 * server agent vouches for the target (vouch.h), then forks the client processes
 * (workload/group.h), answers READY once their sockets are open and lets them warm up, then
 * sends STATE every STATE_MS (their progress, for the controller's counts and stall watch),
 * opens the window on BEGIN and closes it on CLOSE (a workload that drains: its clients
 * then drain, and the agent answers ACK once nothing of the window is in flight, or at
 * --timeout) or END, reading this host's kernel counters at both edges, and answers END with
 * RESULT: the clients' CPU, counters and latency histograms (as
 * text, merged by the controller bucket by bucket) and the kernel's counts beside them.
 * It uses the session's helpers (session.c), the handshake's checks and vouch.c, never the
 * server side (server_side.c); serve.c picks one of the two for each test.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "link/client_side.h"
#include "link/ctl.h"
#include "link/handshake.h"
#include "link/session.h"
#include "link/vouch.h"
#include "measure/kstat.h"
#include "measure/tcp_info_sum.h"
#include "workload/group.h"

#define READY_MS 10000 /* the clients opening their sockets */

/* The server's data address and the test's token, as the controller's SETUP names them. */
static int take_target(const struct vouch_target *t, struct client_group *g, char *err,
		       size_t errlen)
{
	struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV}, *ai = NULL;
	char ps[16];

	snprintf(ps, sizeof(ps), "%d", t->port);
	if (getaddrinfo(t->addr, ps, &hints, &ai) || !ai) {
		snprintf(err, errlen, "target.addr %s is not a numeric address", t->addr);
		return -EINVAL;
	}
	memcpy(&g->server, ai->ai_addr, ai->ai_addrlen);
	g->server_len = ai->ai_addrlen;
	g->token = t->token;
	freeaddrinfo(ai);
	return 0;
}

/* This host's counters of the workload's protocol, and the IP layer's bytes (IpExt), which
 * the streams set beside theirs, as the coordinator reads its own (run.c). */
static bool read_kernel(const struct client_group *g, struct snmp *k)
{
	bool v6 = g->server.ss_family == AF_INET6;
	struct snmp ip;

	if (kstat_proto_read(g->wl->snmp_proto, v6, k))
		return false;
	if (!kstat_ip_read(v6, &ip)) {
		for (int i = 0; i < ip.n && k->n < SNMP_MAX; i++) {
			if (strcmp(ip.name[i], "InOctets") && strcmp(ip.name[i], "OutOctets"))
				continue;
			memcpy(k->name[k->n], ip.name[i], sizeof(k->name[0]));
			k->v[k->n++] = ip.v[i];
		}
	}
	return true;
}

struct watch {
	uint64_t progress;
	int warm_done, done, dead, stopped, fatal;
	long fatal_after;
};

static void send_state(struct session *ss, struct client_group *g, struct watch *w)
{
	char txt[300];
	int dead = group_dead(g);

	if (dead >= 0 && !w->dead)
		w->dead = dead + 1;
	w->stopped = group_stopped(g) + 1;
	w->progress = group_progress(g);
	w->warm_done = atomic_load(&g->sh->warm_done);
	w->done = atomic_load(&g->sh->done);
	w->fatal = atomic_load(&g->sh->fatal);
	w->fatal_after = atomic_load(&g->sh->fatal_after);
	snprintf(txt, sizeof(txt),
		 "{\"progress\":%llu,\"warm_done\":%d,\"done\":%d,\"dead\":%d,\"stopped\":%d,"
		 "\"fatal\":%d,\"fatal_after\":%ld}",
		 (unsigned long long)w->progress, w->warm_done, w->done, w->dead, w->stopped,
		 w->fatal, w->fatal_after);
	ctl_send(ss->fd, CTL_MSG_STATE, txt, strlen(txt));
}

/* Latencies are never dropped: both histograms, whatever their spread, fit a frame. */
_Static_assert(2 * HIST_TEXT_MAX + 16384 <= CTL_MAX_PAYLOAD,
	       "a client agent's RESULT must hold two latency histograms whole");

static void add_hist(cJSON *j, const char *key, const struct hist *h)
{
	char *txt = xmalloc(HIST_TEXT_MAX);

	hist_encode(h, txt, HIST_TEXT_MAX);
	cJSON_AddStringToObject(j, key, txt);
	free(txt);
}

static void send_result(struct session *ss, struct client_group *g, double window_s,
			const struct snmp *k0, const struct snmp *k1, bool k_ok)
{
	struct side_result s = {0};
	struct hist *lat = xmalloc(sizeof(*lat)), *lat2 = xmalloc(sizeof(*lat2));
	cJSON *j = cJSON_CreateObject(), *k = cJSON_CreateObject();

	hist_reset(lat);
	hist_reset(lat2);
	int missing = group_collect(g, &s, lat, lat2, 5000);

	cJSON_AddNumberToObject(j, "window_s", window_s);
	cJSON_AddNumberToObject(j, "processes", s.processes);
	cJSON_AddNumberToObject(j, "missing", missing);
	side_measures_put(j, &s);
	cJSON_AddItemToObject(j, "counters", side_counters_to_json(&s.c));
	cJSON_AddItemToObject(j, "socket", knobs_seen_to_json(&s.sock));
	if (k_ok) {
		struct snmp d;

		kstat_snmp_delta(k0, k1, &d);
		for (int i = 0; i < d.n; i++)
			cJSON_AddNumberToObject(k, d.name[i], (double)d.v[i]);
	}
	cJSON_AddItemToObject(j, "kernel", k_ok ? k : (cJSON_Delete(k), cJSON_CreateNull()));
	add_hist(j, "lat", lat);
	add_hist(j, "lat2", lat2);
	tcp_info_sum_put_dist(j, &s.ti);
	char *txt = cJSON_PrintUnformatted(j);

	if (strlen(txt) > CTL_MAX_PAYLOAD) { /* TCP_INFO's spread goes first: only percentiles */
		cJSON_DeleteItemFromObjectCaseSensitive(j, "tcp_info_dist");
		free(txt);
		txt = cJSON_PrintUnformatted(j);
	}
	if (strlen(txt) > CTL_MAX_PAYLOAD) { /* latencies spread over more buckets than fit */
		cJSON_DeleteItemFromObjectCaseSensitive(j, "lat2");
		cJSON_DeleteItemFromObjectCaseSensitive(j, "lat");
		cJSON_AddTrueToObject(j, "latency_dropped");
		free(txt);
		txt = cJSON_PrintUnformatted(j);
	}
	ctl_send(ss->fd, CTL_MSG_RESULT, txt, strlen(txt));
	free(txt);
	cJSON_Delete(j);
	free(lat);
	free(lat2);
}

/* The window's close, at CLOSE (then the drain) or at END: its length and the kernel's
 * counters there, the clients told. */
struct edge_close {
	bool closed, draining, acked;
	double window_s;
	uint64_t drain_end; /* the drain's bound: --timeout, and 100 ms for the last scan */
};

static void close_edge(struct client_group *g, struct edge_close *e, uint64_t t0, bool began,
		       int ph)
{
	group_set_phase(g, ph);
	if (e->closed)
		return;
	e->closed = true;
	e->window_s = began ? ns_to_s(now_ns() - t0) : 0;
}

/* In the drain: ACK once every unit of the clients has nothing of the window in flight, or
 * at the bound (the clients count what is left as lost when they stop). -1: the controller
 * is gone. */
static int drain_check(struct session *ss, struct client_group *g, struct edge_close *e)
{
	if (!e->draining || e->acked)
		return 0;
	if (atomic_load(&g->sh->drained) < atomic_load(&g->sh->drain_units) &&
	    now_ns() < e->drain_end)
		return 0;
	e->acked = true;
	return ctl_send(ss->fd, CTL_MSG_ACK, NULL, 0) < 0 ? -1 : 0;
}

/* READY .. END: STATE every STATE_MS, BEGIN/PING/CLOSE/END answered. */
static void run_window(struct session *ss, struct client_group *g)
{
	struct watch w = {0};
	struct snmp k0 = {0}, k1 = {0};
	struct edge_close e = {0};
	bool began = false, k_ok = false;
	uint64_t t0 = 0, next_state = 0,
		 deadline = now_ns() + (uint64_t)((phase_limit_s(ss, false) + PHASE_SLACK_MS / 1000.0) * 1e9);
	unsigned type;

	for (;;) {
		uint64_t now = now_ns();

		if (now >= next_state) {
			send_state(ss, g, &w);
			next_state = now + STATE_MS * 1000000ULL;
		}
		if (now >= deadline) {
			session_error(ss, "no END from the controller in time: the test ends here",
				      ETIMEDOUT, false);
			return;
		}
		int ready = wait_readable(ss->fd, e.draining && !e.acked ? 1
							    : (int)((next_state - now) / 1000000) + 1);

		if (ready < 0 || drain_check(ss, g, &e) < 0)
			return;
		if (ready == 0)
			continue;
		if (ctl_recv(ss->fd, &type, ss->buf, CTL_MAX_PAYLOAD + 1, 5000) < 0)
			return; /* the controller is gone: the clients are ended by the caller */
		if (type == CTL_MSG_BEGIN && !began) {
			k_ok = read_kernel(g, &k0);
			group_set_phase(g, PH_MEASURE);
			t0 = now_ns();
			began = true;
			deadline = t0 + (uint64_t)((phase_limit_s(ss, true) + PHASE_SLACK_MS / 1000.0) * 1e9);
			if (ctl_send(ss->fd, CTL_MSG_ACK, NULL, 0) < 0)
				return;
		} else if (type == CTL_MSG_PING) {
			if (ctl_send(ss->fd, CTL_MSG_ACK, NULL, 0) < 0)
				return;
		} else if (type == CTL_MSG_CLOSE && began && !e.closed) {
			atomic_store(&g->sh->drain_began, true);
			close_edge(g, &e, t0, began, PH_DRAIN);
			k_ok = k_ok && read_kernel(g, &k1);
			e.draining = true;
			e.drain_end = now_ns() + (uint64_t)ss->o.timeout * 1000000ULL + 100000000ULL;
			deadline += (uint64_t)ss->o.timeout * 1000000ULL;
		} else if (type == CTL_MSG_END) {
			bool read_at_close = e.closed;

			close_edge(g, &e, t0, began, PH_STOP);
			k_ok = k_ok && (read_at_close || read_kernel(g, &k1));
			send_result(ss, g, e.window_s, &k0, &k1, k_ok);
			return;
		} else {
			session_error(ss, "unexpected message during a test", EPROTO, false);
			return;
		}
	}
}

void client_side_run(struct session *ss)
{
	struct client_group g = {0};
	struct vouch_target target;
	char err[500], txt[64];
	unsigned type;
	int ret;

	if (ss->so->role == ROLE_SERVER) {
		session_error(ss,
			      "this agent runs the server side only (serve --role server): it "
			      "cannot run clients for --clients-on",
			      EPERM, false);
		return;
	}
	if (!ss->key && ss->exposed && !ss->so->allow_unauthenticated_clients) {
		session_error(ss,
			      "no client role without a secret off loopback: start this agent with "
			      "--auth-file, or --allow-unauthenticated-clients to take the risk",
			      EPERM, false);
		return;
	}
	if ((ret = serve_setup_check(ss->so, ss->setup, &ss->wl, &ss->o, err, sizeof(err)))) {
		session_error(ss, err, -ret, ret == -EINVAL);
		ss->wl = NULL;
		return;
	}
	g.wl = ss->wl;
	g.o = &ss->o;
	if (vouch_target_parse(ss->setup, &target, err, sizeof(err)) ||
	    take_target(&target, &g, err, sizeof(err))) {
		session_error(ss, err, EINVAL, true);
		return;
	}
	snprintf(target.workload, sizeof(target.workload), "%s", ss->wl->name);
	snprintf(target.proto, sizeof(target.proto), "%s", vouch_proto(ss->wl->snmp_proto));
	/* Not a byte toward the target unless its server agent says the test is its own. */
	if ((ret = vouch_ask(&target, ss->key, err, sizeof(err)))) {
		session_error(ss, err, -ret, false);
		return;
	}
	if ((ret = group_start(&g, (int)ss->o.clients, ss->fd, err, sizeof(err))) ||
	    (ret = group_wait_ready(&g, group_ready_ms(&ss->o, READY_MS), NULL, err, sizeof(err)))) {
		session_error(ss, err, -ret, false);
		group_free(&g);
		return;
	}
	session_log(ss, "running the client side of %s", ss->wl->name);
	group_set_phase(&g, PH_WARMUP);
	snprintf(txt, sizeof(txt), "{\"clients\":%d}", g.n);
	if (ctl_send(ss->fd, CTL_MSG_READY, txt, strlen(txt)) == 0) {
		run_window(ss, &g);
		ctl_recv(ss->fd, &type, ss->buf, CTL_MAX_PAYLOAD + 1, 5000); /* BYE */
	}
	group_free(&g);
}
