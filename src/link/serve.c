/* serve.c: the agent. It runs the server side of one test at a time for a controller:
 * HELLO -> ACK (AUTH -> ACK), SETUP -> READY (or ERROR), BEGIN -> ACK, (PING -> ACK)*,
 * END -> RESULT, BYE.
 *
 * The main thread never waits on one connection: it polls the control port and every
 * controller still in its handshake (at most MAX_PENDING, each with PENDING_MS to send a
 * valid HELLO, its AUTH and its SETUP, the oldest dropped to make room). Only a controller
 * that has authenticated and sent a SETUP takes the test slot; the test then runs in a
 * session thread, its data loop in a thread of its own, so the control connection is always
 * answered. The CPU marks are taken for the whole process. A local run starts this same agent
 * as a child on loopback, so every run takes the remote path.
 */
#include "link/serve.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <malloc.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "link/ctl.h"
#include "base/util.h"
#include "workload/workload.h"

#define MAX_PENDING 64	      /* controllers in their handshake at once; the oldest goes first */
#define PENDING_MS 3000	      /* from accept to a valid SETUP */
#define PENDING_PAYLOAD 16384 /* the largest HELLO, AUTH or SETUP taken */
#define PHASE_SLACK_MS 30000  /* beyond a phase's own length, before a silent controller is dropped */
#define STEP_MS 100	      /* the control thread's look at the listener between messages */

#ifndef SK_MEMINFO_DROPS
#define SK_MEMINFO_DROPS 8
#endif
#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif

/* ---- the handshake, frame by frame ---- */

void serve_error_json(char *buf, size_t len, const char *msg, int err, int usage)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "error", msg);
	cJSON_AddNumberToObject(j, "errno", err);
	cJSON_AddBoolToObject(j, "usage", usage);
	if (!cJSON_PrintPreallocated(j, buf, (int)len, false))
		snprintf(buf, len, "{\"error\":\"refused\",\"errno\":%d,\"usage\":false}", err);
	cJSON_Delete(j);
}

void serve_hs_start(struct serve_hs *h, const struct auth_key *key)
{
	*h = (struct serve_hs){.state = HS_HELLO};
	if (key)
		auth_challenge(h->challenge, sizeof(h->challenge));
}

int serve_hs_frame(struct serve_hs *h, const struct auth_key *key, unsigned type,
		   const char *payload, unsigned *rtype, char *reply, size_t rlen)
{
	*rtype = CTL_MSG_ERROR;
	reply[0] = '\0';
	if (h->state == HS_HELLO && type == CTL_MSG_HELLO) {
		snprintf(reply, rlen, "{\"agent\":\"sockbench\",\"protocol\":1%s%s%s}",
			 key ? ",\"challenge\":\"" : "", key ? h->challenge : "", key ? "\"" : "");
		*rtype = CTL_MSG_ACK;
		return h->state = key ? HS_AUTH : HS_SETUP;
	}
	if (h->state == HS_AUTH && type == CTL_MSG_AUTH) {
		cJSON *j = cJSON_Parse(payload);
		const cJSON *mac = cJSON_GetObjectItemCaseSensitive(j, "mac");
		bool ok = key && cJSON_IsString(mac) && auth_verify(key, h->challenge, mac->valuestring);

		cJSON_Delete(j);
		if (!ok) {
			serve_error_json(reply, rlen,
					 "authentication failed: wrong or missing secret (--auth-file)",
					 EACCES, 0);
			return h->state = HS_FAILED;
		}
		*rtype = CTL_MSG_ACK;
		return h->state = HS_SETUP;
	}
	if (h->state == HS_SETUP && type == CTL_MSG_SETUP) {
		*rtype = 0;
		return h->state = HS_DONE;
	}
	serve_error_json(reply, rlen,
			 h->state == HS_HELLO ? "expected a HELLO frame of protocol version 1"
			 : h->state == HS_AUTH ? "expected AUTH (this agent has a secret)"
					       : "expected SETUP",
			 EPROTO, 0);
	return h->state = HS_FAILED;
}

/* ---- one test ---- */

struct session {
	int fd;
	bool verbose;
	const struct opts *so;	     /* the agent's own options: caps */
	char who[64];		     /* the controller's address, for the log */
	char *setup;		     /* the SETUP payload */
	char *buf;
	const struct workload *wl;
	struct opts o;
	struct server_ctx s;
	pthread_t thread;
	bool running;
	struct cpu_mark begin, end;
	bool began;
	uint64_t drops0; /* the listener's drops when the window opened */
	bool noticed;
};

static void logmsg(const struct session *ss, const char *fmt, const char *arg)
{
	if (!ss->verbose)
		return;
	fprintf(stderr, "sockbench serve: %s: ", ss->who);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

static void send_error(struct session *ss, const char *msg, int err, bool usage)
{
	char txt[600];

	serve_error_json(txt, sizeof(txt), msg, err, usage);
	ctl_send(ss->fd, CTL_MSG_ERROR, txt, strlen(txt));
	logmsg(ss, "refused: %s", msg);
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

static void stop_data(struct session *ss)
{
	if (!ss->running)
		return;
	set_phase(ss, PH_STOP);
	pthread_join(ss->thread, NULL);
	ss->running = false;
}

/* The longest a phase of this test may take: its warm-up or window, or for a count-based test
 * the controller's --time-limit (each within this agent's --max-duration). */
static double phase_limit_s(const struct session *ss, bool window)
{
	bool counted = ss->wl->count_based && ss->wl->count_based(&ss->o);
	double s = counted ? ss->o.time_limit : window ? ss->o.duration : ss->o.warmup;

	return s < ss->so->max_duration ? s : ss->so->max_duration;
}

/* The agent's caps, each refusal naming the cap. 0 or -EPERM with err. */
static int check_caps(const struct opts *so, const struct workload *wl, const struct opts *o,
		      char *err, size_t errlen)
{
	bool counted = wl->count_based && wl->count_based(o);
	double secs = counted ? o->time_limit : o->warmup + o->duration;
	long flows = o->clients * (o->flows > o->concurrency ? o->flows : o->concurrency);
	long bufs[] = {o->size, o->request, o->response, o->rcvbuf, o->sndbuf, o->read_size};
	double bytes = wl->server_bytes ? wl->server_bytes(o) : 0;

	flows = flows > o->peers ? flows : o->peers;
	flows = flows > o->server_threads ? flows : o->server_threads;
	if (secs > so->max_duration) {
		snprintf(err, errlen, "refused: the test would run %.0f s, beyond this agent's "
			 "--max-duration %.0f", secs, so->max_duration);
		return -EPERM;
	}
	if (flows > so->max_flows) {
		snprintf(err, errlen, "refused: %ld sockets or threads, beyond this agent's --max-flows %ld",
			 flows, so->max_flows);
		return -EPERM;
	}
	if (counted && o->conns > so->max_conns) {
		snprintf(err, errlen, "refused: %ld connections, beyond this agent's --max-conns %ld",
			 o->conns, so->max_conns);
		return -EPERM;
	}
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) {
		if (bufs[i] > so->max_buffer) {
			snprintf(err, errlen, "refused: a message or buffer of %ld bytes, beyond this "
				 "agent's --max-buffer %ld", bufs[i], so->max_buffer);
			return -EPERM;
		}
	}
	if (bytes > (double)so->max_memory) {
		snprintf(err, errlen, "refused: the server side would take %.0f MiB of buffers, beyond "
			 "this agent's --max-memory %.0f MiB (fewer flows or smaller --size)",
			 bytes / 1048576, (double)so->max_memory / 1048576);
		return -EPERM;
	}
	return 0;
}

int serve_setup_check(const struct opts *so, const char *payload, const struct workload **wl,
		      struct opts *o, char *err, size_t errlen)
{
	cJSON *j = cJSON_Parse(payload);
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "workload");
	int ret = -EINVAL;

	opts_defaults(o, NULL);
	if (!cJSON_IsString(name) || !(*wl = workload_find(name->valuestring))) {
		snprintf(err, errlen, "SETUP names no known workload");
		goto out;
	}
	opts_free(o);
	opts_defaults(o, (*wl)->overrides);
	if (opts_from_json((*wl)->opts, (*wl)->overrides, cJSON_GetObjectItemCaseSensitive(j, "config"),
			   o, err, errlen) ||
	    (*wl)->check(o, err, errlen))
		goto out;
	ret = check_caps(so, *wl, o, err, errlen);
out:
	cJSON_Delete(j);
	return ret;
}

/* SETUP: the workload and its config, checked; then the sockets and the data thread. */
static int do_setup(struct session *ss, const char *payload)
{
	char err[256] = "";
	int ret = serve_setup_check(ss->so, payload, &ss->wl, &ss->o, err, sizeof(err));

	if (ret) {
		send_error(ss, err, -ret, ret == -EINVAL);
		ss->wl = NULL;
		return ret;
	}
	socklen_t plen = sizeof(ss->s.peer);

	getpeername(ss->fd, (struct sockaddr *)&ss->s.peer, &plen);
	ss->s.o = &ss->o;
	ss->s.listen_fd = -1;
	ss->s.mem_left = ss->so->max_memory;
	if (getrandom(&ss->s.token, sizeof(ss->s.token), 0) != sizeof(ss->s.token)) {
		ret = -errno;
		send_error(ss, "no random token for the test", errno, false);
		goto out;
	}
	ss->s.local_len = sizeof(ss->s.local);
	if (getsockname(ss->fd, (struct sockaddr *)&ss->s.local, &ss->s.local_len) < 0) {
		ret = -errno;
		send_error(ss, strerror(errno), errno, false);
		goto out;
	}
	ret = ss->wl->server_open(&ss->s, err, sizeof(err));
	if (ret) {
		send_error(ss, err, -ret, ret == -EADDRINUSE || ret == -EACCES);
		goto out;
	}
	atomic_store(&ss->s.phase, PH_WARMUP);
	if (pthread_create(&ss->thread, NULL, data_thread, ss)) {
		ret = -EAGAIN;
		send_error(ss, "cannot start the data thread", EAGAIN, false);
		goto out;
	}
	ss->running = true;
	/* The token as a string: a JSON number cannot hold 64 bits exactly. */
	snprintf(err, sizeof(err), "{\"port\":%d,\"token\":\"%016llx\"}", ss->s.port,
		 (unsigned long long)ss->s.token);
	ret = ctl_send(ss->fd, CTL_MSG_READY, err, strlen(err));
out:
	return ret;
}

static void send_result(struct session *ss)
{
	double user, sys, wall;
	cJSON *j = cJSON_CreateObject();
	const struct side_counters *c = &ss->s.c;

	cpu_mark_delta(&ss->begin, &ss->end, &user, &sys, &wall);
	cJSON_AddNumberToObject(j, "window_s", wall);
	cJSON_AddNumberToObject(j, "user_s", user);
	cJSON_AddNumberToObject(j, "sys_s", sys);
	cJSON_AddItemToObject(j, "counters", side_counters_to_json(c));
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

/* In the window of a workload that connects as it goes (tcp-crr: the one with --backlog), our
 * listener dropping connections means connect() waits for SYN retransmits: tell the
 * controller once, which ends the test. Where every connection was made before the window,
 * drops are a stranger's, and only counted (listen_drops in the result). */
static void watch_listener(struct session *ss)
{
	uint64_t d;
	char msg[300], txt[600];

	if (!ss->began || ss->noticed || !opt_find(ss->wl->opts, "backlog", 7) ||
	    !(d = listen_drops(ss) - ss->drops0))
		return;
	ss->noticed = true;
	snprintf(msg, sizeof(msg),
		 "the server's accept queue overflowed: its listener dropped %llu connection%s: "
		 "raise --backlog (now %ld) or lower --concurrency",
		 (unsigned long long)d, d > 1 ? "s" : "", ss->o.backlog);
	serve_error_json(txt, sizeof(txt), msg, EAGAIN, 0);
	ctl_send(ss->fd, CTL_MSG_NOTICE, txt, strlen(txt));
	logmsg(ss, "%s", msg);
}

/* BEGIN, PINGs and END, each phase within the time it may take. */
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
			send_error(ss, msg, ETIMEDOUT, false);
			return -ETIMEDOUT;
		}
		int ret = ctl_recv(ss->fd, &type, ss->buf, CTL_MAX_PAYLOAD + 1, 5000);

		if (ret < 0)
			return ret;
		if (type == CTL_MSG_BEGIN && !ss->began) {
			cpu_mark_take(&ss->begin);
			ss->drops0 = listen_drops(ss);
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
		} else if (type == CTL_MSG_END) {
			cpu_mark_take(&ss->end);
			if (!ss->began)
				ss->begin = ss->end;
			ss->s.c.listen_drops = ss->began ? listen_drops(ss) - ss->drops0 : 0;
			stop_data(ss);
			send_result(ss);
			return 0;
		} else {
			send_error(ss, "unexpected message during a test", EPROTO, false);
			return -EPROTO;
		}
	}
}

static void session_run(struct session *ss)
{
	unsigned type;

	ss->buf = xmalloc(CTL_MAX_PAYLOAD + 1);
	if (do_setup(ss, ss->setup) == 0) {
		logmsg(ss, "running %s", ss->wl->name);
		if (run_window(ss) == 0)
			ctl_recv(ss->fd, &type, ss->buf, CTL_MAX_PAYLOAD + 1, 5000); /* BYE */
	}
	stop_data(ss);
	if (ss->wl)
		ss->wl->server_close(&ss->s);
	opts_free(&ss->o);
	free(ss->buf);
	free(ss->setup);
	/* Big tests leave big free blocks: give them back to the system now. */
	malloc_trim(0);
}

/* ---- the control port ---- */

static int listen_on(const struct opts *o, int *port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *ai;
	char portstr[16];
	int one = 1, fd, r;

	snprintf(portstr, sizeof(portstr), "%ld", o->ctl_port);
	r = getaddrinfo(o->listen, portstr, &hints, &ai);
	if (r)
		die_usage("serve: --listen %s: %s", o->listen, gai_strerror(r));
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("serve: socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno == EADDRINUSE)
			die_usage("serve: control port %ld is busy on %s: choose another with --port",
				  o->ctl_port, o->listen);
		die("serve: bind %s port %ld: %s", o->listen, o->ctl_port, strerror(errno));
	}
	freeaddrinfo(ai);
	if (listen(fd, 128) < 0)
		die("serve: listen: %s", strerror(errno));
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);

	getsockname(fd, (struct sockaddr *)&a, &alen);
	*port = ntohs(((struct sockaddr_in *)&a)->sin_port);
	return fd;
}

/* A controller in its handshake. */
struct pending {
	int fd;
	uint64_t deadline;
	struct ctl_reader rd;
	struct serve_hs hs;
	char who[48];
};

struct agent {
	const struct opts *o;
	const struct auth_key *key;
	_Atomic bool busy;
	bool have_thread, served;
	pthread_t tid;
	struct session ss;
	struct pending p[MAX_PENDING];
	int np;
};

static void *session_thread(void *arg)
{
	struct agent *ag = arg;

	session_run(&ag->ss);
	close(ag->ss.fd);
	atomic_store(&ag->busy, false);
	return NULL;
}

static void pending_drop(struct agent *ag, int i)
{
	if (ag->p[i].fd >= 0) /* -1: handed to the session */
		close(ag->p[i].fd);
	ctl_reader_free(&ag->p[i].rd);
	ag->p[i] = ag->p[--ag->np];
}

static void pending_add(struct agent *ag, int fd)
{
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);
	struct timeval tv = {.tv_sec = 1};
	struct pending *p;

	if (ag->np == MAX_PENDING) {
		int oldest = 0;

		for (int i = 1; i < ag->np; i++)
			if (ag->p[i].deadline < ag->p[oldest].deadline)
				oldest = i;
		pending_drop(ag, oldest);
	}
	p = &ag->p[ag->np++];
	*p = (struct pending){.fd = fd, .deadline = now_ns() + PENDING_MS * 1000000ULL};
	snprintf(p->who, sizeof(p->who), "?");
	if (getpeername(fd, (struct sockaddr *)&a, &alen) == 0)
		getnameinfo((struct sockaddr *)&a, alen, p->who, sizeof(p->who), NULL, 0,
			    NI_NUMERICHOST);
	/* Our answers are small; a peer that reads nothing cannot hold us past this. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	ctl_reader_init(&p->rd, PENDING_PAYLOAD);
	serve_hs_start(&p->hs, ag->key);
}

/* The test slot for a controller that has sent its SETUP: 0 started, -EBUSY taken. */
static int start_session(struct agent *ag, struct pending *p)
{
	static const char busy[] = "{\"error\":\"busy: this agent is running another controller's "
				   "test\",\"errno\":16,\"usage\":false,\"busy\":true}";
	struct timeval tv = {.tv_sec = 5};

	if (atomic_load(&ag->busy) || (ag->o->once && ag->served)) {
		ctl_send(p->fd, CTL_MSG_ERROR, busy, strlen(busy));
		return -EBUSY;
	}
	if (ag->have_thread)
		pthread_join(ag->tid, NULL);
	ag->have_thread = false;
	setsockopt(p->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	ag->ss = (struct session){.fd = p->fd, .verbose = !ag->o->once, .so = ag->o,
				  .setup = p->rd.payload};
	snprintf(ag->ss.who, sizeof(ag->ss.who), "%s", p->who);
	atomic_store(&ag->busy, true);
	if (pthread_create(&ag->tid, NULL, session_thread, ag)) {
		atomic_store(&ag->busy, false);
		return -EAGAIN;
	}
	ag->have_thread = ag->served = true;
	p->rd.payload = NULL; /* the session's now */
	p->fd = -1;
	return 0;
}

/* Read what a pending controller sent (never more than its frame needs) and answer it.
 * false: it is done with here (dropped, or handed to a session). */
static bool pending_read(struct agent *ag, struct pending *p)
{
	uint8_t buf[4096];
	size_t want = ctl_reader_want(&p->rd);
	/* poll() said readable, and nobody else reads this socket: read() does not wait. */
	ssize_t n = read(p->fd, buf, want < sizeof(buf) ? want : sizeof(buf));

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0)
		return false;
	int ret = ctl_reader_feed(&p->rd, buf, (size_t)n);
	char reply[600];
	unsigned rtype;

	if (ret == 0)
		return true;
	if (ret < 0) {
		if (ret != -ENOMEM) {
			serve_error_json(reply, sizeof(reply),
					 ret == -EMSGSIZE ? "a handshake frame over 16 KiB"
							  : "expected a HELLO frame of protocol version 1",
					 EPROTO, 0);
			ctl_send(p->fd, CTL_MSG_ERROR, reply, strlen(reply));
		}
		return false;
	}
	int st = serve_hs_frame(&p->hs, ag->key, p->rd.h.type, p->rd.payload, &rtype, reply,
				sizeof(reply));

	if (rtype)
		ctl_send(p->fd, rtype, reply, strlen(reply));
	if (st == HS_FAILED) {
		if (p->rd.h.type == CTL_MSG_AUTH) /* always logged: worth knowing about */
			fprintf(stderr, "sockbench serve: %s: refused: authentication failed\n", p->who);
		return false;
	}
	if (st == HS_DONE) {
		start_session(ag, p);
		return false;
	}
	ctl_reader_init(&p->rd, PENDING_PAYLOAD);
	return true;
}

static void serve_loop(struct agent *ag, int lfd)
{
	struct pollfd pf[MAX_PENDING + 1];

	for (;;) {
		bool idle = !atomic_load(&ag->busy);

		if (ag->have_thread && idle) {
			pthread_join(ag->tid, NULL);
			ag->have_thread = false;
		}
		if (ag->o->once && ag->served && idle)
			break;
		int np = ag->np, ms = 200;
		uint64_t now = now_ns();

		pf[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
		for (int i = 0; i < np; i++) {
			pf[i + 1] = (struct pollfd){.fd = ag->p[i].fd, .events = POLLIN};
			int left = ag->p[i].deadline > now ? (int)((ag->p[i].deadline - now) / 1000000) + 1 : 0;

			ms = left < ms ? left : ms;
		}
		if (poll(pf, (nfds_t)np + 1, ms) < 0)
			continue;
		/* Pending ones first (the table shifts as they go), newest last. */
		now = now_ns();
		for (int i = np - 1; i >= 0; i--) {
			bool keep = true;

			if (pf[i + 1].revents)
				keep = pending_read(ag, &ag->p[i]);
			if (keep && now >= ag->p[i].deadline)
				keep = false;
			if (!keep)
				pending_drop(ag, i);
		}
		if (pf[0].revents & POLLIN) {
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (fd >= 0)
				pending_add(ag, fd);
		}
	}
	while (ag->np)
		pending_drop(ag, 0);
}

int cmd_serve(int argc, char **argv)
{
	struct opts o;
	struct auth_key key;
	char err[256];
	int port, lfd, ret;

	opts_defaults(&o, NULL);
	ret = opts_parse(opts_serve, NULL, argc, argv, &o, err, sizeof(err));
	if (ret == 1) {
		opts_usage(opts_serve, NULL, "serve",
			   "Run the server side of tests for a controller (sockbench WORKLOAD --server).",
			   stdout);
		return 0;
	}
	if (ret)
		die_usage("serve: %s", err);
	if (o.auth_file && auth_load(o.auth_file, &key, err, sizeof(err)))
		die_usage("serve: %s", err);
	signal(SIGPIPE, SIG_IGN);
	/* Buffers past 128 KiB come from mmap and go back to the system when freed (glibc would
	 * otherwise raise the threshold after the first big free and keep them). */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	lfd = listen_on(&o, &port);
	if (o.ready_fd >= 0) {
		char line[16];
		int n = snprintf(line, sizeof(line), "%d\n", port);

		if (write_full((int)o.ready_fd, line, (size_t)n))
			die("serve: --ready-fd %ld: %s", o.ready_fd, strerror(errno));
		close((int)o.ready_fd);
	}
	if (!o.once)
		fprintf(stderr, "sockbench serve: listening on %s port %d%s\n", o.listen, port,
			o.auth_file ? ", controllers must authenticate" : "");
	struct agent *ag = xcalloc(1, sizeof(*ag));

	*ag = (struct agent){.o = &o, .key = o.auth_file ? &key : NULL};
	serve_loop(ag, lfd);
	free(ag);
	close(lfd);
	opts_free(&o);
	return 0;
}
