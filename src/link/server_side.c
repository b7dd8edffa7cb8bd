/* server_side.c: a test's server side in the agent, for a controller that has authenticated
 * and sent its SETUP: the data sockets opened and served in a thread of their own, BEGIN/PING/
 * END answered on the control connection, the window's CPU and the listener's drops measured,
 * RESULT sent. It uses the session's helpers (session.h) and the handshake's checks, never the
 * client side (client_side.c); serve.c picks one of the two for each test.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "base/safe_text.h"
#include "base/util.h"
#include "link/ctl.h"
#include "measure/env.h"
#include "measure/kstat.h"
#include "measure/result.h"
#include "measure/tcp_info_sum.h"
#include "link/handshake.h"
#include "link/server_side.h"
#include "link/session.h"
#include "link/vouch.h"

#define STEP_MS 100	      /* the control thread's look at the listener between messages */

#ifndef SK_MEMINFO_DROPS
#define SK_MEMINFO_DROPS 8
#endif
#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif


/* The settings in force, for a signal that ends the agent: it puts them back first (open,
 * write, close and unlink only: async-signal-safe) and the journal is gone. SIGKILL cannot be
 * caught: the journal is for that. Whoever takes the pointer (a handler, or the session's end
 * in knobs_take_back) puts them back. A handler that finds it taken waits until they are back
 * (knobs_back), then ends the agent; the session's end, whose own thread blocks these signals
 * meanwhile, waits for a handler that took it to end the agent. A controller killed with -9
 * closes the control link a moment before its death signal comes: the session's end used to
 * drop the handler first, and the signal's default action could end the agent before the
 * settings were back. */
static _Atomic(struct sysctl_set *) knobs_in_force;
static atomic_int knobs_back;

static void knobs_on_signal(int sig)
{
	struct sysctl_set *k = atomic_exchange(&knobs_in_force, NULL);
	struct timespec ms1 = {0, 1000000};

	if (k)
		sysctl_restore(k, NULL, 0);
	else
		while (!atomic_load(&knobs_back))
			nanosleep(&ms1, NULL);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The signals that end the agent while settings are in force: SIGUSR1 too, the local agent's
 * death signal when its coordinator dies (run/agent.c). A signal the agent found ignored stays
 * ignored: a local agent's SIGINT, SIGTERM and SIGHUP are its coordinator's to handle (it ends
 * the run and then the agent, cleanly), as a terminal's or timeout(1)'s reach the whole
 * process group; a standalone `sockbench serve` catches them. */
static const int knob_sigs[] = {SIGTERM, SIGHUP, SIGINT, SIGUSR1};
static struct sigaction knob_sigs_before[ARRAY_SIZE(knob_sigs)];
static bool knob_sigs_caught;

static void knobs_guard(struct sysctl_set *k)
{
	struct sigaction sa = {.sa_handler = knobs_on_signal};

	sigemptyset(&sa.sa_mask);
	atomic_store(&knobs_back, k == NULL);
	atomic_store(&knobs_in_force, k);
	if ((k != NULL) == knob_sigs_caught)
		return;
	knob_sigs_caught = k != NULL;
	for (size_t i = 0; i < ARRAY_SIZE(knob_sigs); i++) {
		if (!k)
			sigaction(knob_sigs[i], &knob_sigs_before[i], NULL);
		else if (sigaction(knob_sigs[i], NULL, &knob_sigs_before[i]) == 0 &&
			 knob_sigs_before[i].sa_handler != SIG_IGN)
			sigaction(knob_sigs[i], &sa, NULL);
	}
}

/* Put the session's settings back: 0, or -errno with why in err. A signal's handler that took
 * them first puts them back and ends the agent: this thread waits for that. */
static int knobs_take_back(struct sysctl_set *k, char *err, size_t errlen)
{
	sigset_t set, was;
	int ret = 0;

	if (!knob_sigs_caught)
		return sysctl_restore(k, err, errlen); /* nothing guarded: none set, or none left */
	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(knob_sigs); i++)
		sigaddset(&set, knob_sigs[i]);
	pthread_sigmask(SIG_BLOCK, &set, &was); /* no handler in this thread while it restores */
	if (atomic_exchange(&knobs_in_force, NULL) != k)
		for (;;)
			pause(); /* a handler has them, and ends the agent */
	ret = sysctl_restore(k, err, errlen);
	atomic_store(&knobs_back, 1);
	knobs_guard(NULL); /* a signal now leaves the journal, for the next start */
	pthread_sigmask(SIG_SETMASK, &was, NULL); /* one that came meanwhile acts now */
	return ret;
}

/* The settings go back before RESULT is sent, so that a failure to put them back reaches the
 * controller in it ("sysctl_restore_error"), which says so and fails the run: the host stays
 * changed (until the journal is carried out) and whoever runs the test must know. */
static void knobs_put_back(struct session *ss, cJSON *res)
{
	char err[400];

	if (!ss->knobs.applied)
		return;
	if (knobs_take_back(&ss->knobs, err, sizeof(err)) == 0)
		return;
	cJSON_AddStringToObject(res, "sysctl_restore_error", err);
	session_log(ss, "%s", err);
}

static void *data_thread(void *arg)
{
	struct session *ss = arg;

	ss->wl->server_loop(&ss->s);
	return NULL;
}

/* The data loops read the phase at least every 50 ms (a receive timeout), so no wake-up. */
static void set_phase(struct session *ss, int ph)
{
	atomic_store_explicit(&ss->s.phase, ph, memory_order_release);
}

/* At the stop, a TCP accept loop blocked in accept() is woken at once (shutdown() of a
 * listener ends its accept() with EINVAL) rather than at its next 50 ms timeout, which every
 * run would wait out; the listener stays open for what is read from it after. */
static void stop_data(struct session *ss)
{
	if (!ss->running)
		return;
	set_phase(ss, PH_STOP);
	if (ss->s.listen_fd >= 0)
		shutdown(ss->s.listen_fd, SHUT_RD);
	pthread_join(ss->thread, NULL);
	ss->running = false;
}

/* --clients-on: the client hosts whose traffic the data sockets answer too ("peers", numeric
 * addresses). */
static int take_peers(struct session *ss, const char *payload, char *err, size_t errlen)
{
	cJSON *j = cJSON_Parse(payload);
	const cJSON *peers = cJSON_GetObjectItemCaseSensitive(j, "peers"), *it;
	int n = cJSON_GetArraySize(peers), ret = 0;

	if (n > 64) {
		snprintf(err, errlen, "SETUP names %d client hosts: at most 64", n);
		ret = -EINVAL;
		goto out;
	}
	ss->s.also = n ? xcalloc((size_t)n, sizeof(*ss->s.also)) : NULL;
	ss->s.also_vouched = n ? xcalloc((size_t)n, sizeof(*ss->s.also_vouched)) : NULL;
	cJSON_ArrayForEach(it, peers) {
		struct addrinfo hints = {.ai_flags = AI_NUMERICHOST}, *ai;

		if (!cJSON_IsString(it) || getaddrinfo(it->valuestring, NULL, &hints, &ai)) {
			snprintf(err, errlen, "SETUP peers: %s is not a numeric address",
				 cJSON_IsString(it) ? it->valuestring : "an item");
			ret = -EINVAL;
			goto out;
		}
		memcpy(&ss->s.also[ss->s.nalso++], ai->ai_addr, ai->ai_addrlen);
		freeaddrinfo(ai);
	}
out:
	cJSON_Delete(j);
	return ret;
}

/* SETUP: the workload and its config, checked; then the sockets and the data thread. */
static int do_setup(struct session *ss, const char *payload)
{
	char err[256] = "";
	int ret;

	if (ss->so->role == ROLE_CLIENT) {
		session_error(ss, "this agent runs the client side only (serve --role client): "
			      "give another agent as --server", EPERM, false);
		return -EPERM;
	}
	ret = serve_setup_check(ss->so, payload, &ss->wl, &ss->o, err, sizeof(err));
	if (ret) {
		session_error(ss, err, -ret, ret == -EINVAL);
		ss->wl = NULL;
		return ret;
	}
	/* --sysctl: only the keys this agent allows, set before any socket of the test. */
	if ((ret = sysctl_parse(ss->o.sysctl, &ss->knobs, err, sizeof(err)))) {
		session_error(ss, err, -ret, true);
		return ret;
	}
	if (!sysctl_allowed(&ss->knobs, ss->so->allow_sysctl, err, sizeof(err))) {
		session_error(ss, err, EPERM, false);
		return -EPERM;
	}
	if ((ret = sysctl_apply(&ss->knobs, err, sizeof(err)))) { /* none left set */
		session_error(ss, err, -ret, ret == -EINVAL || ret == -EACCES);
		return ret;
	}
	if (ss->knobs.n)
		knobs_guard(&ss->knobs);
	if (ss->knobs.n) {
		char q[1024];

		session_log(ss, "set %s", safe_text_quoted(q, sizeof(q), ss->o.sysctl));
	}
	socklen_t plen = sizeof(ss->s.peer);

	getpeername(ss->fd, (struct sockaddr *)&ss->s.peer, &plen);
	if ((ret = take_peers(ss, payload, err, sizeof(err)))) {
		session_error(ss, err, -ret, true);
		goto out;
	}
	ss->s.o = &ss->o;
	ss->s.listen_fd = -1;
	ss->s.mem_left = ss->so->max_memory;
	if (getrandom(&ss->s.token, sizeof(ss->s.token), 0) != sizeof(ss->s.token)) {
		ret = -errno;
		session_error(ss, "no random token for the test", errno, false);
		goto out;
	}
	ss->s.local_len = sizeof(ss->s.local);
	if (getsockname(ss->fd, (struct sockaddr *)&ss->s.local, &ss->s.local_len) < 0) {
		ret = -errno;
		session_error(ss, strerror(errno), errno, false);
		goto out;
	}
	mem_use_read(0, &ss->mem_before);
	ret = ss->wl->server_open(&ss->s, err, sizeof(err));
	if (ret) {
		session_error(ss, err, -ret, ret == -EADDRINUSE || ret == -EACCES);
		goto out;
	}
	atomic_store(&ss->s.phase, PH_WARMUP);
	if (pthread_create(&ss->thread, NULL, data_thread, ss)) {
		ret = -EAGAIN;
		session_error(ss, "cannot start the data thread", EAGAIN, false);
		goto out;
	}
	ss->running = true;
	/* From now until the test ends, its client agents may ask us to vouch for it. */
	vouch_publish(ss->board, &ss->s, ss->wl->name, vouch_proto(ss->wl->snmp_proto));
	/* The token as a string: a JSON number cannot hold 64 bits exactly. */
	snprintf(err, sizeof(err), "{\"port\":%d,\"token\":\"%016llx\"}", ss->s.port,
		 (unsigned long long)ss->s.token);
	ret = ctl_send(ss->fd, CTL_MSG_READY, err, strlen(err));
out:
	return ret;
}

static void send_result(struct session *ss)
{
	double wall;
	cJSON *j = cJSON_CreateObject();
	const struct side_counters *c = &ss->s.c;
	struct side_result m = {.run_delay_s = cpu_mark_run_delay(&ss->begin, &ss->end),
				.mem_before_kb = ss->mem_before.rss_kb,
				.vm_hwm_kb = ss->mem_end.hwm_kb, .vm_rss_kb = ss->mem_end.rss_kb};

	cpu_mark_delta(&ss->begin, &ss->end, &m.user_s, &m.sys_s, &wall);
	cpu_mark_switches(&ss->begin, &ss->end, &m.vcsw, &m.ivcsw);
	cJSON_AddNumberToObject(j, "window_s", wall);
	side_measures_put(j, &m);
	cJSON_AddItemToObject(j, "counters", side_counters_to_json(c));
	tcp_info_sum_put_dist(j, &ss->s.ti);
	cJSON_AddItemToObject(j, "socket", knobs_seen_to_json(&ss->s.sock));
	/* A controller on another host records ours beside its own; one that came over
	 * loopback shares our host, and its own says all. */
	if (!same_host(&ss->s.peer, &ss->s.local))
		cJSON_AddItemToObject(j, "environment",
				      env_collect((struct sockaddr *)&ss->s.peer, sizeof(ss->s.peer)));
	knobs_put_back(ss, j);
	char *txt = cJSON_PrintUnformatted(j);

	ctl_send(ss->fd, CTL_MSG_RESULT, txt, strlen(txt));
	free(txt);
	cJSON_Delete(j);
}

/* Connections our own data listener dropped (its accept queue or SYN queue full): the kernel
 * counts them on the socket (sk_drops), whatever other listeners on the host do. */
static uint64_t listen_drops(const struct session *ss)
{
	uint32_t mem[16] = {0};
	socklen_t len = sizeof(mem);

	if (ss->s.listen_fd < 0 ||
	    getsockopt(ss->s.listen_fd, SOL_SOCKET, SO_MEMINFO, mem, &len) < 0 ||
	    len <= SK_MEMINFO_DROPS * sizeof(uint32_t))
		return 0;
	return mem[SK_MEMINFO_DROPS];
}

/* Connections waiting in the listener's accept queue now (TCP_INFO of a listening socket:
 * tcpi_unacked is its accept queue's length); 0 without a listener. */
static uint64_t accept_queue(const struct session *ss)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (ss->s.listen_fd < 0 || getsockopt(ss->s.listen_fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
	    ti.tcpi_state != TCP_LISTEN)
		return 0;
	return ti.tcpi_unacked;
}

/* This network namespace's accept queue overflows (TcpExt ListenOverflows), or -1. */
static int64_t listen_overflows(void)
{
	struct snmp k;

	return kstat_snmp_read("/proc/net/netstat", "TcpExt", &k) ? -1
								 : kstat_snmp_get(&k, "ListenOverflows");
}

/* In the window of a workload that connects as it goes (tcp-crr: the one with --backlog), our
 * listener dropping connections because its accept queue was full means connect() waits for
 * SYN retransmits: tell the controller once, which ends the test. Only the kernel's own
 * ListenOverflows says the queue was full: a listener also drops a segment that was lost and
 * sent again, or a stranger's, which are only counted (listen_drops in the result). Where
 * every connection was made before the window, drops are a stranger's too; and where
 * strangers' connections came in the window, the overflow is theirs at least in part. */
static void watch_listener(struct session *ss)
{
	uint64_t d;
	int64_t over;
	char msg[300], txt[600];

	if (!ss->began || ss->noticed || !opt_find(ss->wl->opts, "backlog", 7) ||
	    !(d = listen_drops(ss) - ss->drops0))
		return;
	if (ss->overflows0 >= 0 && (over = listen_overflows()) >= 0 && over <= ss->overflows0)
		return; /* drops, but no overflow: counted, not the queue */
	ss->noticed = true;
	uint64_t strangers = atomic_load_explicit(&ss->s.foreign_conns, memory_order_relaxed) -
			     ss->foreign0;

	/* Other hosts' connections filled the queue too: theirs, not --backlog's or the test's
	 * fault, and never the end of a test (its clients' waits are in its latencies). */
	if (strangers) {
		snprintf(msg, sizeof(msg), "the accept queue overflowed while %llu connections "
			 "came from hosts not in the test: going on (counted as foreign)",
			 (unsigned long long)strangers);
		session_log(ss, "%s", msg);
		return;
	}
	snprintf(msg, sizeof(msg),
		 "the server's accept queue overflowed: its listener dropped %llu connection%s: "
		 "raise --backlog (now %ld) or lower --concurrency",
		 (unsigned long long)d, d > 1 ? "s" : "", ss->o.backlog);
	serve_error_json(txt, sizeof(txt), msg, EAGAIN, 0);
	ctl_send(ss->fd, CTL_MSG_NOTICE, txt, strlen(txt));
	session_log(ss, "%s", msg);
}

/* The window's end on this side, into phase ph: the CPU mark and the queue just before the
 * workers stop counting (a connection they took in between would count both as accepted and
 * as waiting), the slower reads (listener drops, memory) after, so the window the mark says is
 * the one the workers counted in. */
static void close_window(struct session *ss, int ph)
{
	cpu_mark_take(&ss->end);
	if (!ss->began)
		ss->begin = ss->end;
	ss->s.c.accept_queue_open = ss->began ? ss->queue0 : 0;
	ss->s.c.accept_queue_close = ss->began ? accept_queue(ss) : 0;
	set_phase(ss, ph);
	ss->s.c.listen_drops = ss->began ? listen_drops(ss) - ss->drops0 : 0;
	mem_use_read(0, &ss->mem_end);
	ss->closed = true;
}

/* BEGIN, PINGs, CLOSE (a drain follows) and END, each phase within the time it may take. */
static int run_window(struct session *ss)
{
	uint64_t deadline = now_ns() + (uint64_t)(phase_limit_s(ss, false) * 1e9) +
			    PHASE_SLACK_MS * 1000000ULL;
	unsigned type;

	for (;;) {
		int ready = wait_readable(ss->fd, STEP_MS);

		if (ready < 0)
			return -EPIPE;
		watch_listener(ss);
		if (ready == 0) {
			if (now_ns() < deadline)
				continue;
			char msg[200];

			snprintf(msg, sizeof(msg), "no %s from the controller within %.0f s: the test "
				 "ends here", ss->began ? "END" : "BEGIN",
				 (ss->began ? phase_limit_s(ss, true) : phase_limit_s(ss, false)) +
					 PHASE_SLACK_MS / 1000);
			session_error(ss, msg, ETIMEDOUT, false);
			return -ETIMEDOUT;
		}
		int ret = ctl_recv(ss->fd, &type, ss->buf, CTL_MAX_PAYLOAD + 1, 5000);

		if (ret < 0)
			return ret;
		if (type == CTL_MSG_BEGIN && !ss->began) {
			/* The slow reads first, the mark just before the workers count. */
			ss->drops0 = listen_drops(ss);
			ss->overflows0 = listen_overflows();
			ss->foreign0 = atomic_load_explicit(&ss->s.foreign_conns, memory_order_relaxed);
			cpu_mark_take(&ss->begin);
			ss->queue0 = accept_queue(ss);
			ss->began = true;
			set_phase(ss, PH_MEASURE);
			deadline = now_ns() + (uint64_t)(phase_limit_s(ss, true) * 1e9) +
				   PHASE_SLACK_MS * 1000000ULL;
			/* The coordinator opens the clients' window only after this, so nothing the
			 * clients count can reach us before we count too. */
			if (ctl_send(ss->fd, CTL_MSG_ACK, NULL, 0) < 0)
				return -EPIPE;
		} else if (type == CTL_MSG_PING) {
			if (ctl_send(ss->fd, CTL_MSG_ACK, NULL, 0) < 0)
				return -EPIPE;
		} else if (type == CTL_MSG_CLOSE && ss->began && !ss->closed) {
			/* The window closed; the clients drain (--timeout at most): answer on, count
			 * no more, so this side's figures cover the window as the clients' do. */
			close_window(ss, PH_DRAIN);
			deadline = now_ns() + (uint64_t)ss->o.timeout * 1000000ULL +
				   PHASE_SLACK_MS * 1000000ULL;
		} else if (type == CTL_MSG_END) {
			if (!ss->closed)
				close_window(ss, PH_STOP);
			else
				set_phase(ss, PH_STOP);
			stop_data(ss);
			send_result(ss);
			return 0;
		} else {
			session_error(ss, "unexpected message during a test", EPROTO, false);
			return -EPROTO;
		}
	}
}

void server_side_run(struct session *ss)
{
	unsigned type;

	if (do_setup(ss, ss->setup) == 0) {
		session_log(ss, "running %s", ss->wl->name);
		if (run_window(ss) == 0)
			ctl_recv(ss->fd, &type, ss->buf, CTL_MAX_PAYLOAD + 1, 5000); /* BYE */
	}
	vouch_withdraw(ss->board);
	stop_data(ss);
	if (ss->wl)
		ss->wl->server_close(&ss->s);
	char err[400];

	if (knobs_take_back(&ss->knobs, err, sizeof(err)))
		session_log(ss, "%s", err);
}
