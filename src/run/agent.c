/* agent.c: the coordinator's end of the control link: start a local serve agent or reach a
 * remote one, the handshake (HELLO, AUTH, SETUP, READY), what the agent says during the
 * window, and its RESULT at the end. One agent link: the client hosts (fanout.c) greet their
 * agents with it. It uses the run's state (state.c) and nothing else of run/.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "base/safe_json.h"
#include "base/safe_text.h"
#include "base/util.h"
#include "link/auth.h"
#include "link/ctl.h"
#include "link/sysctl.h"
#include "measure/tcp_info_sum.h"
#include "run/agent.h"

/* Start `sockbench serve` on loopback: the control port it listens on, or -errno (why in r). */
int spawn_local_agent(struct run *r)
{
	int p[2];
	char line[16] = "";

	/* --sysctl: the local agent sets them (as a remote one would), allowed exactly those. */
	struct sysctl_set knobs;
	char allow[SYSCTL_MAX * SYSCTL_KEY] = "", why[300];
	size_t o = 0;

	if (sysctl_parse(r->o->sysctl, &knobs, why, sizeof(why)))
		return run_fail(r, EINVAL, true, "%s", why);
	for (int i = 0; i < knobs.n; i++)
		o += (size_t)snprintf(allow + o, sizeof(allow) - o, "%s%s", i ? "," : "", knobs.key[i]);
	if (pipe2(p, O_CLOEXEC) < 0)
		return run_fail(r, errno, false, "pipe: %s", strerror(errno));
	r->server_pid = fork();
	if (r->server_pid < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return run_fail(r, e, false, "fork: %s", strerror(e));
	}
	if (r->server_pid == 0) {
		/* SIGUSR1 when the coordinator dies: the agent puts its --sysctl settings back
		 * and dies (link/server_side.c, knobs_guard). */
		child_setup(SIGUSR1);
		if (p[1] == 3)
			fcntl(3, F_SETFD, 0);
		else if (dup2(p[1], 3) < 0)
			_exit(127);
		char *argv[] = {"sockbench", "serve", "--listen", r->o->ipv6 ? "::1" : "127.0.0.1",
				"--port", "0", "--once", "--ready-fd", "3",
				/* the user's own host: --max-flows guards an agent from others */
				"--max-flows", "1000000",
				knobs.n ? "--allow-sysctl" : NULL, allow, NULL};

		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(p[1]);
	for (size_t n = 0; n < sizeof(line) - 1; n++) {
		if (read_full(p[0], line + n, 1, START_MS) || line[n] == '\n')
			break;
	}
	close(p[0]);
	int port = atoi(line);

	if (port <= 0)
		return run_fail(r, EIO, false,
				"the local serve agent did not start (see the message above)");
	return port;
}

int split_hostport(struct run *r, const char *flag, const char *s, struct hostport *at)
{
	const char *colon = strrchr(s, ':');
	char *host = at->host, *port = at->port;
	size_t hlen = sizeof(at->host), plen = sizeof(at->port);

	snprintf(port, plen, "%s", CTL_PORT_DEFAULT);
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end)
			return run_fail(r, EINVAL, true, "%s %s: missing ']'", flag, s);
		snprintf(host, hlen, "%.*s", (int)(end - s - 1), s + 1);
		if (end[1] == ':')
			snprintf(port, plen, "%s", end + 2);
	} else if (colon && strchr(s, ':') == colon) {
		snprintf(host, hlen, "%.*s", (int)(colon - s), s);
		snprintf(port, plen, "%s", colon + 1);
	} else {
		snprintf(host, hlen, "%s", s);
	}
	/* A number must be a port; a name is a service getaddrinfo looks up. */
	char *end;
	long p = strtol(port, &end, 10);

	if (!*host || !*port || (*end == '\0' && (p < 1 || p > 65535)))
		return run_fail(r, EINVAL, true, "%s %s: %s", flag, s,
				!*host ? "no host" : "the port must be 1-65535");
	return 0;
}

/* The control connection: its fd, or -errno (why in r). */
int connect_agent(struct run *r, const char *host, const char *port)
{
	const struct opts *o = r->o;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_family = o->ipv6 ? AF_INET6 : o->ipv4 ? AF_INET : AF_UNSPEC};
	struct addrinfo *ai, *a;
	struct timeval tv = {.tv_sec = 5};
	int fd = -1, e = getaddrinfo(host, port, &hints, &ai);

	if (e)
		return run_fail(r, EINVAL, true, "--server %s:%s: %s", host, port, gai_strerror(e));
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		/* Bounds connect() too. */
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
			ctl_nodelay(fd);
			break;
		}
		e = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0 && e == EADDRNOTAVAIL)
		return run_fail(r, e, false, "cannot reach the serve agent at %s port %s: no local "
				"port is free (TIME_WAIT from an earlier run with --close client? see "
				"`ss -tan state time-wait`)", host, port);
	if (fd < 0)
		return run_fail(r, e ? e : EIO, false, "cannot reach the serve agent at %s port %s: "
				"%s (is `sockbench serve` running there?)", host, port,
				strerror(e ? e : EIO));
	return fd;
}

/* An ERROR frame from the agent: a usage error (bad value, busy port), a refusal, or -EBUSY
 * (another controller's test), for the caller to try again. */
int agent_refused(struct run *r)
{
	cJSON *j = cJSON_Parse(r->buf);
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(j, "error");
	char text[300];

	/* The agent's words reach a terminal: no control characters from another host. */
	safe_text(text, sizeof(text), cJSON_IsString(msg) ? msg->valuestring : r->buf);
	bool usage = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "usage"));
	bool busy = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "busy"));

	cJSON_Delete(j);
	if (usage)
		return run_fail(r, EINVAL, true, "%s", text);
	if (busy)
		return -EBUSY;
	return run_fail(r, EPERM, false, "the serve agent refused the test: %s", text);
}

/* The agent's ACK may carry a challenge: answer it with the secret, which stays here. */
static int authenticate(struct run *r, int fd)
{
	cJSON *j = cJSON_Parse(r->buf);
	const cJSON *ch = cJSON_GetObjectItemCaseSensitive(j, "challenge");
	struct auth_key key;
	char err[256], mac[2 * 32 + 1], msg[128];
	int ret = 0;

	if (!cJSON_IsString(ch))
		goto out;
	if (!r->o->auth_file)
		ret = run_fail(r, EACCES, true, "the serve agent requires authentication: give "
			       "--auth-file with its secret");
	else if (auth_load(r->o->auth_file, &key, err, sizeof(err)))
		ret = run_fail(r, EINVAL, true, "%s", err);
	else if (auth_answer(&key, ch->valuestring, mac, sizeof(mac)))
		ret = run_fail(r, EPROTO, false, "the serve agent sent a malformed challenge");
	if (ret)
		goto out;
	snprintf(msg, sizeof(msg), "{\"mac\":\"%s\"}", mac);
	ret = ctl_send(fd, CTL_MSG_AUTH, msg, strlen(msg));
	if (ret == 0)
		ret = ctl_expect(fd, CTL_MSG_ACK, r->buf, CTL_MAX_PAYLOAD + 1, START_MS);
	if (ret == -EREMOTEIO)
		ret = agent_refused(r);
	else if (ret < 0)
		ret = run_fail(r, -ret, false, "the serve agent did not answer the authentication: "
			       "%s", strerror(-ret));
out:
	cJSON_Delete(j);
	return ret < 0 ? ret : 0;
}

/* What the agent needs of the config: not the controller's own files and addresses, nor
 * udp-stream's --bitrate, which the check made --rate (an agent before --bitrate refuses the
 * key; one after would take both for a conflict). */
cJSON *setup_config(const struct run *r, const struct opts *o)
{
	static const char *const ours[] = {"auth_file", "server", "profile_folded", "busy_wait",
					   "json", "runs", "clients_on", "plot", "flamegraph",
					   "format", "fields", "verbose", "bitrate"};
	cJSON *c = opts_to_json(r->wl->opts, o);

	for (size_t i = 0; i < ARRAY_SIZE(ours); i++)
		cJSON_DeleteItemFromObjectCaseSensitive(c, ours[i]);
	return c;
}

/* The READY frame: the data port and the test's token. */
static int take_ready(struct run *r)
{
	cJSON *j = cJSON_Parse(r->buf);
	const cJSON *port = cJSON_GetObjectItemCaseSensitive(j, "port");
	const cJSON *token = cJSON_GetObjectItemCaseSensitive(j, "token");
	int ret = 0;

	if (!cJSON_IsNumber(port) || port->valueint <= 0 || port->valueint > 65535)
		ret = run_fail(r, EPROTO, false, "the serve agent sent a READY without a port");
	else if (!cJSON_IsString(token) || sscanf(token->valuestring, "%16llx",
						  (unsigned long long *)&r->token) != 1)
		ret = run_fail(r, EPROTO, false, "the serve agent sent a READY without a token (an "
			       "older sockbench?)");
	if (!ret) { /* data goes to the address the control connection reached, on its port */
		r->data_len = sizeof(r->data);
		getpeername(r->ctl, (struct sockaddr *)&r->data, &r->data_len);
		((struct sockaddr_in *)&r->data)->sin_port = htons((uint16_t)port->valueint);
	}
	cJSON_Delete(j);
	return ret;
}

cJSON *server_target(const struct run *r)
{
	struct sockaddr_storage ctl;
	socklen_t clen = sizeof(ctl);
	cJSON *t = cJSON_CreateObject();
	char addr[64] = "", ctl_addr[64] = "", token[24];

	getnameinfo((const struct sockaddr *)&r->data, r->data_len, addr, sizeof(addr), NULL, 0,
		    NI_NUMERICHOST);
	snprintf(token, sizeof(token), "%016llx", (unsigned long long)r->token);
	cJSON_AddStringToObject(t, "addr", addr);
	cJSON_AddNumberToObject(t, "port", ntohs(((const struct sockaddr_in *)&r->data)->sin_port));
	cJSON_AddStringToObject(t, "token", token);
	/* The client agents ask the server agent where we reached it whether the test is its own
	 * (link/vouch.h): its test is set up by now, so it can say yes. */
	if (getpeername(r->ctl, (struct sockaddr *)&ctl, &clen) == 0 &&
	    getnameinfo((struct sockaddr *)&ctl, clen, ctl_addr, sizeof(ctl_addr), NULL, 0,
			NI_NUMERICHOST) == 0) {
		cJSON_AddStringToObject(t, "ctl_addr", ctl_addr);
		cJSON_AddNumberToObject(t, "ctl_port",
					ntohs(((struct sockaddr_in *)&ctl)->sin_port));
	}
	return t;
}

int agent_greet(struct run *r, int fd, const char *who)
{
	static const char hello[] = "{\"protocol\":1}";
	int ret;

	if (ctl_send(fd, CTL_MSG_HELLO, hello, strlen(hello)) < 0)
		return run_fail(r, errno, false, "control connection to %s: %s", who, strerror(errno));
	ret = ctl_expect(fd, CTL_MSG_ACK, r->buf, CTL_MAX_PAYLOAD + 1, START_MS);
	if (ret == -EREMOTEIO)
		return agent_refused(r);
	if (ret < 0)
		return run_fail(r, -ret, false, "%s did not answer HELLO: %s", who, strerror(-ret));
	return authenticate(r, fd);
}

/* The client hosts' addresses, which the server agent's data sockets answer too. */
static cJSON *hosts_peers(const struct run *r)
{
	cJSON *a = cJSON_CreateArray();

	for (int k = 0; k < r->nhosts; k++)
		cJSON_AddItemToArray(a, cJSON_CreateString(r->hosts[k].addr));
	return a;
}

/* 0, -EBUSY when the agent runs another controller's test, or -errno (why in r). */
static int handshake(struct run *r)
{
	int ret;

	if ((ret = agent_greet(r, r->ctl, "the serve agent")))
		return ret;

	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "workload", r->wl->name);
	cJSON_AddItemToObject(j, "config", setup_config(r, r->o));
	if (r->nhosts)
		cJSON_AddItemToObject(j, "peers", hosts_peers(r));
	char *txt = cJSON_PrintUnformatted(j);

	ret = ctl_send(r->ctl, CTL_MSG_SETUP, txt, strlen(txt));
	free(txt);
	cJSON_Delete(j);
	if (ret == 0)
		ret = ctl_expect(r->ctl, CTL_MSG_READY, r->buf, CTL_MAX_PAYLOAD + 1, START_MS);
	if (ret == -EREMOTEIO)
		return agent_refused(r);
	if (ret < 0)
		return run_fail(r, -ret, false, "the serve agent did not answer SETUP: %s",
				strerror(-ret));
	return take_ready(r);
}

/* Reach the agent and set the test up; while it is busy with another controller's test, try
 * again every half second for --busy-wait seconds. 0 or -errno (why in r). */
int reach_agent(struct run *r, const char *host, const char *port)
{
	uint64_t until = now_ns() + (uint64_t)(r->o->busy_wait * 1e9);
	bool said = false;

	for (;;) {
		int ret, fd = connect_agent(r, host, port);

		if (fd < 0)
			return fd;
		r->ctl = fd;
		if ((ret = handshake(r)) != -EBUSY)
			return ret;
		close(r->ctl);
		r->ctl = -1;
		if (run_sig || now_ns() >= until)
			return run_fail(r, EBUSY, false, "the serve agent is busy: it is running "
					"another controller's test (waited %.0f s; --busy-wait sets how "
					"long)", r->o->busy_wait);
		if (!said)
			fprintf(stderr, "sockbench: the serve agent is busy with another test; trying "
				"again for up to %.0f s\n", r->o->busy_wait);
		said = true;
		struct timespec step = {0, BUSY_RETRY_MS * 1000000L};

		nanosleep(&step, NULL);
	}
}

/* A frame from the agent during the window: an answer to a PING, or the end of the test (a
 * NOTICE saying why, an ERROR, or the connection closing). NULL, or why it ended. */
const char *agent_said(struct run *r)
{
	static char why[300];
	unsigned type;
	int ret = ctl_recv(r->ctl, &type, r->buf, CTL_MAX_PAYLOAD + 1, 1000);

	if (ret >= 0 && type == CTL_MSG_ACK && r->pings > 0) {
		r->pings--;
		r->pong_at = now_ns();
		return NULL;
	}
	r->failed = true;
	if (ret < 0)
		return "the serve agent closed the control connection";
	cJSON *j = cJSON_Parse(r->buf);
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(j, "error");
	char text[256];

	snprintf(why, sizeof(why), "the serve agent %s: %s",
		 type == CTL_MSG_NOTICE ? "stopped the test" : "ended the test",
		 safe_text(text, sizeof(text),
			   cJSON_IsString(msg) ? msg->valuestring : ctl_type_name(type)));
	cJSON_Delete(j);
	snprintf(r->fatal, sizeof(r->fatal), "%s", why);
	return why;
}

void reap_agent(struct run *r)
{
	close(r->ctl);
	if (r->server_pid <= 0)
		return;
	/* 2 s for it to end: its exit wakes the wait at once (a pidfd; without one, 1 ms steps). */
	int pfd = (int)syscall(SYS_pidfd_open, r->server_pid, 0);

	for (int i = 0; i < (pfd >= 0 ? 2 : 2000); i++) {
		if (waitpid(r->server_pid, NULL, WNOHANG) == r->server_pid) {
			if (pfd >= 0)
				close(pfd);
			return;
		}
		if (pfd >= 0)
			poll(&(struct pollfd){.fd = pfd, .events = POLLIN}, 1, 2000);
		else
			poll(NULL, 0, 1);
	}
	if (pfd >= 0)
		close(pfd);
	kill(r->server_pid, SIGKILL);
	waitpid(r->server_pid, NULL, 0);
}

/* The agent's RESULT, past the answers to PINGs still on their way and a late NOTICE. */
static int expect_result(struct run *r)
{
	for (int left = 64;; left--) {
		unsigned type;
		int ret = ctl_recv(r->ctl, &type, r->buf, CTL_MAX_PAYLOAD + 1, REPORT_MS);

		if (ret < 0)
			return ret;
		if (type == CTL_MSG_RESULT)
			return ret;
		if (type == CTL_MSG_ERROR)
			return -EREMOTEIO;
		if (left == 0 || (type != CTL_MSG_ACK && type != CTL_MSG_NOTICE))
			return -EPROTO;
	}
}

void collect_server(struct run *r)
{
	int ret = r->end_sent ? 0 : ctl_send(r->ctl, CTL_MSG_END, NULL, 0);

	if (ret == 0)
		ret = expect_result(r);
	if (ret < 0) {
		r->failed = true;
		mark_partial(r, "the serve agent sent no result");
		return;
	}
	cJSON *j = cJSON_Parse(r->buf);
	struct side_result *s = &r->res.server;
	const cJSON *it;

	/* The agent's words, maybe another host's: safe text before they reach any output (the
	 * socket read-back, its environment, in the report and in --json). */
	s->present = j && safe_json_tree(j) == 0 && side_counters_from_json(cJSON_GetObjectItemCaseSensitive(j, "counters"),
						  &s->c) == 0 &&
		     knobs_seen_from_json(cJSON_GetObjectItemCaseSensitive(j, "socket"), &s->sock) == 0;
	s->processes = 1;
	tcp_info_sum_get_dist(j, &s->ti);
	if (j && r->o->server)
		r->res.agent_env = cJSON_DetachItemFromObjectCaseSensitive(j, "environment");
	it = cJSON_GetObjectItemCaseSensitive(j, "window_s");
	if (cJSON_IsNumber(it) && it->valuedouble > 0)
		side_window_add(s, it->valuedouble);
	side_measures_get(j, s);
	if (s->run_delay_s < 0) /* the agent's word: a time, never below 0 */
		s->run_delay_s = 0;
	/* The agent could not put its --sysctl settings back: its host stays changed. */
	it = cJSON_GetObjectItemCaseSensitive(j, "sysctl_restore_error");
	if (cJSON_IsString(it)) {
		char text[320];

		fprintf(stderr, "sockbench: the agent's host keeps kernel settings changed: %s\n",
			safe_text(text, sizeof(text), it->valuestring));
		r->failed = true;
	}
	cJSON_Delete(j);
	if (!s->present) {
		r->failed = true;
		mark_partial(r, "the serve agent sent a malformed result");
	}
	ctl_send(r->ctl, CTL_MSG_BYE, NULL, 0);
}
