/* serve.c: the agent. It runs the server side of one test at a time for a controller:
 * HELLO -> ACK (AUTH -> ACK), SETUP -> READY (or ERROR), BEGIN -> ACK, (PING -> ACK)*,
 * END -> RESULT, BYE.
 *
 * The main thread never waits on one connection: it polls the control port and every
 * controller still in its handshake (at most MAX_PENDING, each with PENDING_MS to send a
 * valid HELLO, its AUTH and its SETUP). When they are all taken, a newcomer's room is made
 * at the expense of the source (an IPv4 address, an IPv6 /64) holding the most, its oldest
 * first: a churn of connections from one source evicts its own, not a slow controller
 * elsewhere. Only a controller
 * that has authenticated and sent a SETUP takes the test slot; the test then runs in a
 * session thread, its data loop in a thread of its own, so the control connection is always
 * answered. The CPU marks are taken for the whole process. A local run starts this same agent
 * as a child on loopback, so every run takes the remote path. A client agent's VOUCH (is this
 * your test? vouch.h) is answered on the pending path: it never takes the slot.
 *
 * The top of the agent's files: it picks the side of each test (server_side.c, or
 * client_side.c for --clients-on); both use the session's helpers (session.c) and the
 * handshake's checks (handshake.c) below them, and neither calls the other.
 */
#include "link/serve.h"
#include "link/handshake.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <string.h>

#include "link/client_side.h"
#include "link/ctl.h"
#include "link/server_side.h"
#include "link/session.h"
#include "link/vouch.h"
#include "base/safe_text.h"
#include "base/util.h"

#define MAX_PENDING 64	      /* controllers in their handshake at once (a source's share, above) */
#define PENDING_MS 3000	      /* from accept to a valid SETUP */
#define PENDING_PAYLOAD 16384 /* the largest HELLO, AUTH or SETUP taken */

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
	uint8_t source[16]; /* its address: IPv4 v4-mapped, IPv6 to its /64 */
	struct ctl_reader rd;
	struct serve_hs hs;
	char who[48];
};

struct agent {
	const struct opts *o;
	const struct auth_key *key;
	bool exposed; /* it listens beyond loopback */
	struct vouch_board board; /* the server test running now, for client agents' VOUCH */
	_Atomic bool busy;
	bool have_thread, served;
	pthread_t tid;
	struct session ss;
	struct pending p[MAX_PENDING];
	int np;
	int wake[2]; /* a session that ends says so here: the loop need not wait out its poll */
};

/* The side a SETUP asks for: "role":"client" (--clients-on), else the server's. */
static int setup_role(const char *payload)
{
	cJSON *j = cJSON_Parse(payload);
	const cJSON *role = cJSON_GetObjectItemCaseSensitive(j, "role");
	int r = cJSON_IsString(role) && !strcmp(role->valuestring, "client") ? ROLE_CLIENT : ROLE_SERVER;

	cJSON_Delete(j);
	return r;
}

/* One test, in the role its SETUP asks for; then what either side leaves is freed. */
static void session_run(struct session *ss)
{
	ss->buf = xmalloc(CTL_MAX_PAYLOAD + 1);
	if (setup_role(ss->setup) == ROLE_CLIENT)
		client_side_run(ss);
	else
		server_side_run(ss);
	vouch_withdraw(ss->board); /* before the flags it marks go */
	free(ss->s.also);
	free(ss->s.also_vouched);
	opts_free(&ss->o);
	free(ss->buf);
	free(ss->setup);
	/* Big tests leave big free blocks: give them back to the system now. */
	malloc_trim(0);
}

static void *session_thread(void *arg)
{
	struct agent *ag = arg;

	session_run(&ag->ss);
	close(ag->ss.fd);
	atomic_store(&ag->busy, false);
	/* The loop's wake-up; a full pipe (EAGAIN) already holds one. */
	ssize_t w = write(ag->wake[1], "", 1);

	(void)w;
	return NULL;
}

static void pending_drop(struct agent *ag, int i)
{
	if (ag->p[i].fd >= 0) /* -1: handed to the session */
		close(ag->p[i].fd);
	ctl_reader_free(&ag->p[i].rd);
	ag->p[i] = ag->p[--ag->np];
}

static void source_of(const struct sockaddr_storage *a, uint8_t out[16])
{
	memset(out, 0, 16);
	if (a->ss_family == AF_INET) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &((const struct sockaddr_in *)a)->sin_addr, 4);
	} else if (a->ss_family == AF_INET6) {
		/* One host may hold a whole /64: its share is one source's. */
		memcpy(out, &((const struct sockaddr_in6 *)a)->sin6_addr, 8);
	}
}

/* Room for a newcomer from source src: the oldest of the source holding the most (the
 * newcomer counted with its own), so one source's churn evicts its own connections. */
static void make_room(struct agent *ag, const uint8_t src[16])
{
	int most = -1, most_n = 0;

	for (int i = 0; i < ag->np; i++) {
		int n = !memcmp(ag->p[i].source, src, 16);

		for (int k = 0; k < ag->np; k++)
			n += !memcmp(ag->p[k].source, ag->p[i].source, 16);
		if (n > most_n || (n == most_n && most >= 0 &&
				   !memcmp(ag->p[i].source, ag->p[most].source, 16) &&
				   ag->p[i].deadline < ag->p[most].deadline)) {
			most = i;
			most_n = n;
		}
	}
	pending_drop(ag, most);
}

static void pending_add(struct agent *ag, int fd)
{
	struct sockaddr_storage a = {0};
	socklen_t alen = sizeof(a);
	struct timeval tv = {.tv_sec = 1};
	struct pending *p;
	uint8_t src[16];
	bool named = getpeername(fd, (struct sockaddr *)&a, &alen) == 0;

	ctl_nodelay(fd);
	source_of(&a, src);
	if (ag->np == MAX_PENDING)
		make_room(ag, src);
	p = &ag->p[ag->np++];
	*p = (struct pending){.fd = fd, .deadline = now_ns() + PENDING_MS * 1000000ULL};
	memcpy(p->source, src, 16);
	snprintf(p->who, sizeof(p->who), "?");
	if (named)
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
				  .setup = p->rd.payload, .key = ag->key, .exposed = ag->exposed,
				  .board = &ag->board};
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

/* A client agent asks whether the test it is to load is ours: answered, and the connection
 * dropped (it asks once). */
static void vouch_reply(struct agent *ag, struct pending *p)
{
	struct sockaddr_storage a = {0};
	socklen_t alen = sizeof(a);
	char reply[600], text[2400];
	unsigned rtype;

	getpeername(p->fd, (struct sockaddr *)&a, &alen);
	rtype = vouch_answer(&ag->board, ag->key, &a, p->rd.payload, reply, sizeof(reply));
	ctl_send(p->fd, rtype, reply, strlen(reply));
	if (rtype == CTL_MSG_ERROR && !ag->o->once) /* the reply may quote what the peer sent */
		fprintf(stderr, "sockbench serve: %s: vouch refused: %s\n", p->who,
			safe_text_log(text, sizeof(text), reply));
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
							  : "expected a HELLO frame of this protocol's version",
					 EPROTO, 0);
			ctl_send(p->fd, CTL_MSG_ERROR, reply, strlen(reply));
		}
		return false;
	}
	int st = serve_hs_frame(&p->hs, p->rd.h.type, p->rd.payload, &rtype, reply, sizeof(reply));

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
	if (st == HS_VOUCH) {
		vouch_reply(ag, p);
		return false;
	}
	ctl_reader_init(&p->rd, PENDING_PAYLOAD);
	return true;
}

static void serve_loop(struct agent *ag, int lfd)
{
	struct pollfd pf[MAX_PENDING + 2];
	char drop[16];

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
		pf[np + 1] = (struct pollfd){.fd = ag->wake[0], .events = POLLIN};
		if (poll(pf, (nfds_t)np + 2, ms) < 0)
			continue;
		if (pf[np + 1].revents && read(ag->wake[0], drop, sizeof(drop)) < 0)
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

/* Does the control port listen beyond loopback (anyone on a network can reach it)? */
static bool exposed(int lfd)
{
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);

	if (getsockname(lfd, (struct sockaddr *)&a, &alen) < 0)
		return true;
	if (a.ss_family == AF_INET)
		return ntohl(((struct sockaddr_in *)&a)->sin_addr.s_addr) >> 24 != 127;
	return !(a.ss_family == AF_INET6 &&
		 IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&a)->sin6_addr));
}

/* Without a secret, whoever reaches a non-loopback port would choose which sockbench tests
 * this host loads: the client role is off there unless the operator takes that risk by name.
 * Said at start, so it is seen before a controller is refused. */
static void say_client_role(const struct agent *ag, int port)
{
	const struct opts *o = ag->o;

	if (ag->key || !ag->exposed || o->role == ROLE_SERVER)
		return;
	if (!o->allow_unauthenticated_clients && o->role == ROLE_CLIENT)
		die_usage("serve: --role client on %s without --auth-file would refuse every "
			  "controller: give --auth-file (or --allow-unauthenticated-clients to let "
			  "anyone who reaches port %d make this host load sockbench tests)",
			  o->listen, port);
	if (o->allow_unauthenticated_clients)
		fprintf(stderr, "sockbench serve: warning: --allow-unauthenticated-clients without "
			"--auth-file: anyone who reaches port %d can make this host send test "
			"traffic to any sockbench agent's test\n", port);
	else
		fprintf(stderr, "sockbench serve: the client role (--clients-on) is off: no "
			"--auth-file and %s is not loopback (give --auth-file, or "
			"--allow-unauthenticated-clients to take the risk)\n", o->listen);
}

int cmd_serve(int argc, char **argv)
{
	struct opts o;
	struct auth_key key;
	char err[256];
	int port, lfd, ret;

	opts_defaults(&o, NULL);
	ret = opts_parse(opts_serve, NULL, &(struct opts_words){argc, argv}, &o, err, sizeof(err));
	if (ret == 1) {
		opts_usage(opts_serve, NULL, "serve",
			   "Run the server side of tests for a controller (sockbench WORKLOAD --server).",
			   stdout);
		opts_free(&o);
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

	*ag = (struct agent){.o = &o, .key = o.auth_file ? &key : NULL, .exposed = exposed(lfd)};
	if (pipe2(ag->wake, O_CLOEXEC | O_NONBLOCK))
		die("serve: pipe: %s", strerror(errno));
	say_client_role(ag, port);
	vouch_board_init(&ag->board);
	serve_loop(ag, lfd);
	close(ag->wake[0]);
	close(ag->wake[1]);
	free(ag);
	close(lfd);
	opts_free(&o);
	return 0;
}
