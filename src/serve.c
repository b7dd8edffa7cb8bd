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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "util.h"
#include "workload.h"

#define HANDSHAKE_MS 5000
#define PHASE_SLACK_MS 30000 /* beyond warm-up and duration, before a silent controller is dropped */

struct session {
	int fd;
	bool verbose;
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
	fprintf(stderr, "sockbench serve: ");
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

static void session(int fd, bool verbose)
{
	struct session ss = {.fd = fd, .verbose = verbose};
	unsigned type;
	int ret;

	ss.buf = xmalloc(CTL_MAX_PAYLOAD + 1);
	ret = ctl_recv(fd, &type, ss.buf, CTL_MAX_PAYLOAD + 1, HANDSHAKE_MS);
	if (ret < 0 || type != CTL_MSG_HELLO) {
		if (ret >= 0 || ret == -EBADMSG || ret == -EPROTONOSUPPORT || ret == -EMSGSIZE)
			send_error(&ss, "expected a HELLO frame of protocol version 1", EPROTO, false);
		goto out;
	}
	static const char ack[] = "{\"agent\":\"sockbench\",\"protocol\":1}";

	if (ctl_send(fd, CTL_MSG_ACK, ack, strlen(ack)) < 0)
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

int cmd_serve(int argc, char **argv)
{
	struct opts o;
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
		fprintf(stderr, "sockbench serve: listening on %s port %d\n", o.listen, port);
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("serve: accept: %s", strerror(errno));
		}
		session(fd, !o.once);
		close(fd);
		if (o.once)
			break;
	}
	close(lfd);
	opts_free(&o);
	return 0;
}
