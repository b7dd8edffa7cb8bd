/* serve.c: the agent. It accepts one controller at a time on the control port and runs the
 * server side of its test: HELLO -> ACK, SETUP -> READY (or ERROR), BEGIN -> ACK, END -> RESULT,
 * BYE.
 * The data loop runs in a thread of its own so the control connection is always answered;
 * the CPU marks are taken for the whole process (the control thread sleeps in recv). A local
 * run starts this same agent as a child on loopback, so every run takes the remote path.
 */
#include "serve.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "ctl.h"
#include "util.h"
#include "workload.h"

#define HANDSHAKE_MS 5000
#define PHASE_SLACK_MS 30000 /* beyond warm-up and duration, before a silent controller is dropped */

struct session {
	int fd;
	bool verbose;
	const struct opts *so;	     /* the agent's own options: caps, secret */
	const struct auth_key *key;  /* NULL: no authentication */
	char who[64];		     /* the controller's address, for the log */
	char *buf;
	const struct workload *wl;
	struct opts o;
	struct server_ctx s;
	pthread_t thread;
	bool running;
	struct cpu_mark begin, end;
	bool began;
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
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "error", msg);
	cJSON_AddNumberToObject(j, "errno", err);
	cJSON_AddBoolToObject(j, "usage", usage);
	char *txt = cJSON_PrintUnformatted(j);

	ctl_send(ss->fd, CTL_MSG_ERROR, txt, strlen(txt));
	logmsg(ss, "refused: %s", msg);
	free(txt);
	cJSON_Delete(j);
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

/* The agent's caps, each refusal naming the cap. 0 or -EPERM with err. */
static int check_caps(const struct opts *so, const struct workload *wl, const struct opts *o,
		      char *err, size_t errlen)
{
	bool counted = wl->count_based && wl->count_based(o);
	double secs = counted ? o->time_limit : o->warmup + o->duration;
	long flows = o->clients * (o->flows > o->concurrency ? o->flows : o->concurrency);
	long bufs[] = {o->size, o->request, o->response, o->rcvbuf, o->sndbuf, o->read_size};

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
	return 0;
}

/* SETUP: find the workload, check its config as the command line would, open the sockets. */
static int do_setup(struct session *ss, const char *payload)
{
	char err[256] = "";
	cJSON *j = cJSON_Parse(payload);
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "workload");
	int ret = -EINVAL;

	opts_defaults(&ss->o, NULL);
	if (!cJSON_IsString(name) || !(ss->wl = workload_find(name->valuestring))) {
		send_error(ss, "SETUP names no known workload", EINVAL, true);
		goto out;
	}
	opts_free(&ss->o);
	opts_defaults(&ss->o, ss->wl->overrides);
	if (opts_from_json(ss->wl->opts, ss->wl->overrides,
			   cJSON_GetObjectItemCaseSensitive(j, "config"), &ss->o, err, sizeof(err)) ||
	    ss->wl->check(&ss->o, err, sizeof(err))) {
		send_error(ss, err, EINVAL, true);
		goto out;
	}
	if (check_caps(ss->so, ss->wl, &ss->o, err, sizeof(err))) {
		send_error(ss, err, EPERM, false);
		goto out;
	}
	socklen_t plen = sizeof(ss->s.peer);

	getpeername(ss->fd, (struct sockaddr *)&ss->s.peer, &plen);
	ss->s.o = &ss->o;
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
	snprintf(err, sizeof(err), "{\"port\":%d}", ss->s.port);
	ret = ctl_send(ss->fd, CTL_MSG_READY, err, strlen(err));
out:
	cJSON_Delete(j);
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

/* BEGIN and END, each within the time the configured phases can take. */
static int run_window(struct session *ss)
{
	int limit = (int)((ss->o.warmup + ss->o.duration) * 1000) + PHASE_SLACK_MS;
	unsigned type;

	for (;;) {
		int ret = ctl_recv(ss->fd, &type, ss->buf, CTL_MAX_PAYLOAD + 1, limit);

		if (ret < 0)
			return ret;
		if (type == CTL_MSG_BEGIN && !ss->began) {
			cpu_mark_take(&ss->begin);
			ss->began = true;
			set_phase(ss, PH_MEASURE);
			/* The coordinator opens the clients' window only after this, so nothing the
			 * clients count can reach us before we count too. */
			if (ctl_send(ss->fd, CTL_MSG_ACK, NULL, 0) < 0)
				return -EPIPE;
		} else if (type == CTL_MSG_END) {
			cpu_mark_take(&ss->end);
			if (!ss->began)
				ss->begin = ss->end;
			stop_data(ss);
			send_result(ss);
			return 0;
		} else {
			send_error(ss, "unexpected message during a test", EPROTO, false);
			return -EPROTO;
		}
	}
}

/* ACK the HELLO; with a secret, the ACK carries a challenge and the answer must be right. */
static int handshake_auth(struct session *ss)
{
	char ack[200], challenge[2 * AUTH_CHALLENGE_LEN + 1] = "";
	unsigned type;

	if (ss->key)
		auth_challenge(challenge, sizeof(challenge));
	snprintf(ack, sizeof(ack), "{\"agent\":\"sockbench\",\"protocol\":1%s%s%s}",
		 ss->key ? ",\"challenge\":\"" : "", challenge, ss->key ? "\"" : "");
	if (ctl_send(ss->fd, CTL_MSG_ACK, ack, strlen(ack)) < 0)
		return -EPIPE;
	if (!ss->key)
		return 0;
	int ret = ctl_recv(ss->fd, &type, ss->buf, CTL_MAX_PAYLOAD + 1, HANDSHAKE_MS);
	cJSON *j = ret >= 0 && type == CTL_MSG_AUTH ? cJSON_Parse(ss->buf) : NULL;
	const cJSON *mac = cJSON_GetObjectItemCaseSensitive(j, "mac");
	bool ok = cJSON_IsString(mac) && auth_verify(ss->key, challenge, mac->valuestring);

	cJSON_Delete(j);
	if (!ok) {
		/* Always logged: a refused controller is worth knowing about. */
		fprintf(stderr, "sockbench serve: %s: refused: authentication failed\n", ss->who);
		send_error(ss, "authentication failed: wrong or missing secret (--auth-file)", EACCES,
			   false);
		return -EACCES;
	}
	return ctl_send(ss->fd, CTL_MSG_ACK, NULL, 0) < 0 ? -EPIPE : 0;
}

static void session(int fd, bool verbose, const struct opts *so, const struct auth_key *key)
{
	struct session ss = {.fd = fd, .verbose = verbose, .so = so, .key = key};
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);
	char host[48] = "?";

	if (getpeername(fd, (struct sockaddr *)&a, &alen) == 0)
		getnameinfo((struct sockaddr *)&a, alen, host, sizeof(host), NULL, 0, NI_NUMERICHOST);
	snprintf(ss.who, sizeof(ss.who), "%s", host);
	unsigned type;
	int ret;

	ss.buf = xmalloc(CTL_MAX_PAYLOAD + 1);
	ret = ctl_recv(fd, &type, ss.buf, CTL_MAX_PAYLOAD + 1, HANDSHAKE_MS);
	if (ret < 0 || type != CTL_MSG_HELLO) {
		if (ret >= 0 || ret == -EBADMSG || ret == -EPROTONOSUPPORT || ret == -EMSGSIZE)
			send_error(&ss, "expected a HELLO frame of protocol version 1", EPROTO, false);
		goto out;
	}
	if (handshake_auth(&ss))
		goto out;
	ret = ctl_recv(fd, &type, ss.buf, CTL_MAX_PAYLOAD + 1, HANDSHAKE_MS);
	if (ret < 0 || type != CTL_MSG_SETUP) {
		if (ret >= 0)
			send_error(&ss, "expected SETUP", EPROTO, false);
		goto out;
	}
	if (do_setup(&ss, ss.buf))
		goto out;
	logmsg(&ss, "running %s", ss.wl->name);
	if (run_window(&ss) == 0)
		ctl_recv(fd, &type, ss.buf, CTL_MAX_PAYLOAD + 1, HANDSHAKE_MS); /* BYE */
out:
	stop_data(&ss);
	if (ss.wl)
		ss.wl->server_close(&ss.s);
	opts_free(&ss.o);
	free(ss.buf);
}

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
	if (listen(fd, 8) < 0)
		die("serve: listen: %s", strerror(errno));
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);

	getsockname(fd, (struct sockaddr *)&a, &alen);
	*port = ntohs(((struct sockaddr_in *)&a)->sin_port);
	return fd;
}

struct agent {
	const struct opts *o;
	const struct auth_key *key;
	_Atomic bool busy;
	int fd; /* the running session's control connection */
	pthread_t tid;
	bool have_thread;
};

static void *session_thread(void *arg)
{
	struct agent *ag = arg;

	session(ag->fd, !ag->o->once, ag->o, ag->key);
	close(ag->fd);
	atomic_store(&ag->busy, false);
	return NULL;
}

/* One test at a time: a controller that comes while one runs is told so and let go. */
static void refuse_busy(int fd)
{
	static const char msg[] = "{\"error\":\"busy: this agent is running another controller's "
				  "test; try again when it is done\",\"errno\":16,\"usage\":false,"
				  "\"busy\":true}";
	struct timeval tv = {.tv_sec = 1};

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	ctl_send(fd, CTL_MSG_ERROR, msg, strlen(msg));
	close(fd);
}

static void serve_loop(struct agent *ag, int lfd)
{
	for (;;) {
		if (ag->o->once && ag->have_thread && !atomic_load(&ag->busy))
			break;
		if (wait_readable(lfd, 200) <= 0)
			continue;
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			continue; /* EINTR, ECONNABORTED, EMFILE: try again */
		if (atomic_load(&ag->busy) || (ag->o->once && ag->have_thread)) {
			refuse_busy(fd);
			continue;
		}
		if (ag->have_thread)
			pthread_join(ag->tid, NULL);
		ag->fd = fd;
		atomic_store(&ag->busy, true);
		ag->have_thread = !pthread_create(&ag->tid, NULL, session_thread, ag);
		if (!ag->have_thread) {
			atomic_store(&ag->busy, false);
			close(fd);
		}
	}
	if (ag->have_thread)
		pthread_join(ag->tid, NULL);
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
	struct agent ag = {.o = &o, .key = o.auth_file ? &key : NULL};

	serve_loop(&ag, lfd);
	close(lfd);
	opts_free(&o);
	return 0;
}
