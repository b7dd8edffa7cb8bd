/* run.c: the coordinator. It starts (or reaches) the serve agent, forks the client processes,
 * opens and closes the measured window for both sides, reads the kernel's figures at the
 * window's edges, gathers every side's result and hands it to out.c.
 *
 *   setup -> warm-up (traffic, nothing counted) -> window (BEGIN .. END) -> results -> BYE
 *
 * Clients follow a phase word in shared memory; the agent follows BEGIN/END on the control
 * connection. Every wait is bounded, and Ctrl-C, a dying agent or a dying client end the
 * window early with a report marked partial.
 */
#include "run/run.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "link/auth.h"
#include "link/ctl.h"
#include "measure/kstat.h"
#include "report/out.h"
#include "profile/prof.h"
#include "base/util.h"

#define CTL_PORT_DEFAULT "12866"
#define STEP_MS 50
#define START_MS 10000	/* agent start, handshake, clients opening their sockets */
#define REPORT_MS 10000 /* for each side's result after END */
#define BUSY_RETRY_MS 500
#define STALL_PING_MS 500 /* no progress this long: ask the agent whether it is there */
#define STALL_S 2.0	  /* no progress this long in the window: the run is partial */

struct run {
	const struct workload *wl;
	const struct opts *o;
	pid_t server_pid;
	int ctl;
	char *buf;
	struct sockaddr_storage data;
	socklen_t data_len;
	struct shared *sh;
	int nclients;
	pid_t *cpid;
	int *cpipe;
	struct result res;
	bool count_based;
	bool end_sent;	  /* END went out when the window closed */
	bool failed;	  /* a side died or a fatal error: exit 1 after the partial report */
	char fatal[300];  /* what to tell the user on stderr after the report */
	uint64_t token;	  /* the agent's for this test */
	/* The stall watch: the clients' progress, and whether the agent answers meanwhile. */
	bool measuring;
	uint64_t last_sum, last_progress, ping_at, pong_at;
	int pings; /* PINGs not answered yet */
	double stall_s;
	char stall_who[200];
	struct ksyms *ksyms; /* --profile */
	struct prof *prof;
	FILE *folded; /* --profile-folded, opened before the run */
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* In a child: die with the coordinator, leave Ctrl-C to it. */
static void child_setup(void)
{
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/* Start `sockbench serve` on loopback and return the control port it listens on. */
static int spawn_local_agent(struct run *r)
{
	int p[2];
	char line[16] = "";

	if (pipe2(p, O_CLOEXEC) < 0)
		die("pipe: %s", strerror(errno));
	r->server_pid = fork();
	if (r->server_pid < 0)
		die("fork: %s", strerror(errno));
	if (r->server_pid == 0) {
		child_setup();
		if (p[1] == 3)
			fcntl(3, F_SETFD, 0);
		else if (dup2(p[1], 3) < 0)
			_exit(127);
		execl("/proc/self/exe", "sockbench", "serve", "--listen",
		      r->o->ipv6 ? "::1" : "127.0.0.1", "--port", "0", "--once", "--ready-fd", "3",
		      (char *)NULL);
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
		die("the local serve agent did not start (see the message above)");
	return port;
}

/* Split "HOST[:PORT]" or "[V6]:PORT". */
static void split_hostport(const char *s, char *host, size_t hlen, char *port, size_t plen)
{
	const char *colon = strrchr(s, ':');

	snprintf(port, plen, "%s", CTL_PORT_DEFAULT);
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end)
			die_usage("--server %s: missing ']'", s);
		snprintf(host, hlen, "%.*s", (int)(end - s - 1), s + 1);
		if (end[1] == ':')
			snprintf(port, plen, "%s", end + 2);
		return;
	}
	if (colon && strchr(s, ':') == colon) {
		snprintf(host, hlen, "%.*s", (int)(colon - s), s);
		snprintf(port, plen, "%s", colon + 1);
		return;
	}
	snprintf(host, hlen, "%s", s);
}

static int connect_agent(const struct opts *o, const char *host, const char *port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_family = o->ipv6 ? AF_INET6 : o->ipv4 ? AF_INET : AF_UNSPEC};
	struct addrinfo *ai, *a;
	struct timeval tv = {.tv_sec = 5};
	int fd = -1, r = getaddrinfo(host, port, &hints, &ai);

	if (r)
		die_usage("--server %s:%s: %s", host, port, gai_strerror(r));
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		/* Bounds connect() too. */
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		r = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0 && r == EADDRNOTAVAIL)
		die("cannot reach the serve agent at %s port %s: no local port is free (TIME_WAIT "
		    "from an earlier run with --close client? see `ss -tan state time-wait`)",
		    host, port);
	if (fd < 0)
		die("cannot reach the serve agent at %s port %s: %s (is `sockbench serve` running "
		    "there?)",
		    host, port, strerror(r));
	return fd;
}

/* An ERROR frame from the agent: a usage error (bad value, busy port) exits 2; busy returns
 * -EBUSY, for the caller to try again. */
static int agent_refused(const char *payload)
{
	cJSON *j = cJSON_Parse(payload);
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(j, "error");
	const cJSON *usage = cJSON_GetObjectItemCaseSensitive(j, "usage");
	char text[300];

	snprintf(text, sizeof(text), "%s", cJSON_IsString(msg) ? msg->valuestring : payload);
	bool is_usage = cJSON_IsTrue(usage);
	bool busy = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "busy"));

	cJSON_Delete(j);
	if (is_usage)
		die_usage("%s", text);
	if (busy)
		return -EBUSY;
	die("the serve agent refused the test: %s", text);
}

/* The agent's ACK may carry a challenge: answer it with the secret, which stays here. */
static void authenticate(struct run *r)
{
	cJSON *j = cJSON_Parse(r->buf);
	const cJSON *ch = cJSON_GetObjectItemCaseSensitive(j, "challenge");
	struct auth_key key;
	char err[256], mac[2 * 32 + 1], msg[128];

	if (!cJSON_IsString(ch)) {
		cJSON_Delete(j);
		return;
	}
	if (!r->o->auth_file)
		die_usage("the serve agent requires authentication: give --auth-file with its secret");
	if (auth_load(r->o->auth_file, &key, err, sizeof(err)))
		die_usage("%s", err);
	if (auth_answer(&key, ch->valuestring, mac, sizeof(mac)))
		die("the serve agent sent a malformed challenge");
	cJSON_Delete(j);
	snprintf(msg, sizeof(msg), "{\"mac\":\"%s\"}", mac);
	int ret = ctl_send(r->ctl, CTL_MSG_AUTH, msg, strlen(msg));

	if (ret == 0)
		ret = ctl_expect(r->ctl, CTL_MSG_ACK, r->buf, CTL_MAX_PAYLOAD + 1, START_MS);
	if (ret == -EREMOTEIO)
		agent_refused(r->buf);
	if (ret < 0)
		die("the serve agent did not answer the authentication: %s", strerror(-ret));
}

/* What the agent needs of the config: not the controller's own files and addresses. */
static cJSON *setup_config(const struct run *r)
{
	static const char *const ours[] = {"auth_file", "server", "profile_folded", "busy_wait",
					   "json", "runs"};
	cJSON *c = opts_to_json(r->wl->opts, r->o);

	for (size_t i = 0; i < ARRAY_SIZE(ours); i++)
		cJSON_DeleteItemFromObjectCaseSensitive(c, ours[i]);
	return c;
}

/* 0, or -EBUSY when the agent runs another controller's test. */
static int handshake(struct run *r)
{
	static const char hello[] = "{\"protocol\":1}";
	int ret;

	if (ctl_send(r->ctl, CTL_MSG_HELLO, hello, strlen(hello)) < 0)
		die("control connection: %s", strerror(errno));
	ret = ctl_expect(r->ctl, CTL_MSG_ACK, r->buf, CTL_MAX_PAYLOAD + 1, START_MS);
	if (ret == -EREMOTEIO)
		return agent_refused(r->buf);
	if (ret < 0)
		die("the serve agent did not answer HELLO: %s", strerror(-ret));
	authenticate(r);

	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "workload", r->wl->name);
	cJSON_AddItemToObject(j, "config", setup_config(r));
	char *txt = cJSON_PrintUnformatted(j);

	ret = ctl_send(r->ctl, CTL_MSG_SETUP, txt, strlen(txt));
	free(txt);
	cJSON_Delete(j);
	if (ret == 0)
		ret = ctl_expect(r->ctl, CTL_MSG_READY, r->buf, CTL_MAX_PAYLOAD + 1, START_MS);
	if (ret == -EREMOTEIO)
		return agent_refused(r->buf);
	if (ret < 0)
		die("the serve agent did not answer SETUP: %s", strerror(-ret));

	j = cJSON_Parse(r->buf);
	const cJSON *port = cJSON_GetObjectItemCaseSensitive(j, "port");
	const cJSON *token = cJSON_GetObjectItemCaseSensitive(j, "token");

	if (!cJSON_IsNumber(port) || port->valueint <= 0 || port->valueint > 65535)
		die("the serve agent sent a READY without a port");
	if (!cJSON_IsString(token) || sscanf(token->valuestring, "%16llx",
					     (unsigned long long *)&r->token) != 1)
		die("the serve agent sent a READY without a token (an older sockbench?)");
	/* Data goes to the address the control connection reached, on the port it named. */
	r->data_len = sizeof(r->data);
	getpeername(r->ctl, (struct sockaddr *)&r->data, &r->data_len);
	((struct sockaddr_in *)&r->data)->sin_port = htons((uint16_t)port->valueint);
	cJSON_Delete(j);
	return 0;
}

/* Reach the agent and set the test up; while it is busy with another controller's test, try
 * again every half second for --busy-wait seconds. */
static void reach_agent(struct run *r, const char *host, const char *port)
{
	uint64_t until = now_ns() + (uint64_t)(r->o->busy_wait * 1e9);
	bool said = false;

	for (;;) {
		r->ctl = connect_agent(r->o, host, port);
		if (handshake(r) == 0)
			return;
		close(r->ctl);
		r->ctl = -1;
		if (interrupted || now_ns() >= until)
			die("the serve agent is busy: it is running another controller's test (waited "
			    "%.0f s; --busy-wait sets how long)", r->o->busy_wait);
		if (!said)
			fprintf(stderr, "sockbench: the serve agent is busy with another test; trying "
				"again for up to %.0f s\n", r->o->busy_wait);
		said = true;
		struct timespec step = {0, BUSY_RETRY_MS * 1000000L};

		nanosleep(&step, NULL);
	}
}

static void run_client(struct run *r, int i, int fd)
{
	struct client_report *rep = xcalloc(1, sizeof(*rep));
	long per = r->o->peers / r->nclients, extra = r->o->peers % r->nclients;
	struct client_ctx c = {
		.o = r->o,
		.index = i,
		.nsock = (int)(per + (i < extra)),
		.server = r->data,
		.server_len = r->data_len,
		.token = r->token,
		.sh = r->sh,
		.rep = rep,
	};

	hist_reset(&rep->lat);
	hist_reset(&rep->lat2);
	int ret = r->wl->client(&c);

	rep->err = -ret;
	write_full(fd, rep, sizeof(*rep));
	_exit(ret ? 1 : 0);
}

static void fork_clients(struct run *r)
{
	r->nclients = (int)r->o->clients;
	r->cpid = xcalloc((size_t)r->nclients, sizeof(*r->cpid));
	r->cpipe = xcalloc((size_t)r->nclients, sizeof(*r->cpipe));
	for (int i = 0; i < r->nclients; i++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0)
			die("pipe: %s", strerror(errno));
		fflush(NULL);
		r->cpid[i] = fork();
		if (r->cpid[i] < 0)
			die("fork client %d: %s", i + 1, strerror(errno));
		if (r->cpid[i] == 0) {
			child_setup();
			close(p[0]);
			close(r->ctl);
			run_client(r, i, p[1]);
		}
		close(p[1]);
		r->cpipe[i] = p[0];
	}
}

/* The first client that has exited, or -1. */
static int dead_client(struct run *r)
{
	for (int i = 0; i < r->nclients; i++) {
		if (r->cpid[i] > 0 && waitpid(r->cpid[i], NULL, WNOHANG) == r->cpid[i]) {
			r->cpid[i] = 0;
			return i;
		}
	}
	return -1;
}

/* A client that failed at setup left its reason in its report. */
static void __attribute__((noreturn)) client_failed(struct run *r, int i)
{
	struct client_report *rep = xcalloc(1, sizeof(*rep));

	if (read_full(r->cpipe[i], rep, sizeof(*rep), 1000) == 0 && rep->err)
		die("client %d: %s", i + 1, rep->msg[0] ? rep->msg : strerror(rep->err));
	die("client %d exited during setup", i + 1);
}

static void wait_ready(struct run *r)
{
	uint64_t deadline = now_ns() + (uint64_t)START_MS * 1000000;
	struct timespec step = {0, 1000000};

	while (atomic_load(&r->sh->ready) < r->nclients) {
		int dead = dead_client(r);

		if (dead >= 0)
			client_failed(r, dead);
		if (interrupted)
			die("interrupted during setup");
		if (now_ns() > deadline)
			die("the clients did not open their sockets within %d s", START_MS / 1000);
		nanosleep(&step, NULL);
	}
}

/* A fatal data-path error a client raised: the run cannot go on, and the user must know why. */
static const char *check_fatal(struct run *r)
{
	int e = atomic_load(&r->sh->fatal);

	if (!e)
		return NULL;
	r->failed = true;
	if (e == EADDRNOTAVAIL)
		snprintf(r->fatal, sizeof(r->fatal),
			 "connect() failed with EADDRNOTAVAIL after %ld connections: the client ran out "
			 "of local ports (TIME_WAIT holds them). Use --close server (the default) or "
			 "--close reset, or --src-addrs 16 to spread over more source addresses",
			 atomic_load(&r->sh->fatal_after));
	else
		snprintf(r->fatal, sizeof(r->fatal), "a client stopped the run: %s", strerror(e));
	return "a client hit a fatal error";
}

/* The clients' running counts, summed: any change is progress. */
static uint64_t progress_sum(const struct run *r)
{
	uint64_t sum = 0;

	for (int i = 0; i < r->nclients * PROGRESS_SLOTS; i++)
		sum += atomic_load_explicit(&r->sh->progress[i].v, memory_order_relaxed);
	return sum;
}

/* A client process stopped (SIGSTOP, a debugger)? Its number, or -1. */
static int stopped_client(const struct run *r)
{
	for (int i = 0; i < r->nclients; i++) {
		char path[64], buf[256];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)r->cpid[i]);
		if (r->cpid[i] <= 0 || !(f = fopen(path, "re")))
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		fclose(f);
		buf[n] = '\0';
		const char *st = strrchr(buf, ')');

		if (st && (st[2] == 'T' || st[2] == 't'))
			return i;
	}
	return -1;
}

/* A stall ended (or the window did) at `now`: keep it if it is the longest past the threshold,
 * with the side that made no progress. */
static void stall_end(struct run *r, uint64_t now)
{
	double s = ns_to_s(now - r->last_progress);

	if (!r->ping_at || s < STALL_S || s <= r->stall_s)
		return;
	r->stall_s = s;
	/* The agent's control thread answers at once unless its process is stopped. */
	double silent = ns_to_s((r->pong_at > r->ping_at ? r->pong_at : now) - r->ping_at);
	int c = stopped_client(r);

	if (silent > s / 2)
		snprintf(r->stall_who, sizeof(r->stall_who), "the server side stalled: the serve "
			 "agent answered nothing for %.1f s", silent);
	else if (c >= 0)
		snprintf(r->stall_who, sizeof(r->stall_who), "the client side stalled: client %d is "
			 "stopped", c + 1);
	else
		snprintf(r->stall_who, sizeof(r->stall_who), "the serve agent answered within %.1f s, "
			 "so the data path or the clients stalled", silent);
}

/* Each step of the window: progress, or a stall to time and explain. */
static void stall_watch(struct run *r)
{
	uint64_t now = now_ns(), sum = progress_sum(r);

	if (sum != r->last_sum) {
		stall_end(r, now);
		r->last_sum = sum;
		r->last_progress = now;
		r->ping_at = 0;
		return;
	}
	if (!r->ping_at && now - r->last_progress > STALL_PING_MS * 1000000ULL) {
		r->ping_at = now;
		r->pong_at = 0;
		if (ctl_send(r->ctl, CTL_MSG_PING, NULL, 0) == 0)
			r->pings++;
	}
}

/* A frame from the agent during the window: an answer to a PING, or the end of the test (a
 * NOTICE saying why, an ERROR, or the connection closing). NULL, or why it ended. */
static const char *agent_said(struct run *r)
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

	snprintf(why, sizeof(why), "the serve agent %s: %s",
		 type == CTL_MSG_NOTICE ? "stopped the test" : "ended the test",
		 cJSON_IsString(msg) ? msg->valuestring : ctl_type_name(type));
	cJSON_Delete(j);
	snprintf(r->fatal, sizeof(r->fatal), "%s", why);
	return why;
}

/* Let `seconds` pass, or until `*count` reaches `target` (count-based phases), unless something
 * ends the run first: returns NULL, or why it ended. */
static const char *watch(struct run *r, double seconds, _Atomic int *count, int target)
{
	uint64_t deadline = now_ns() + (uint64_t)(seconds * 1e9);
	struct pollfd p = {.fd = r->ctl, .events = POLLIN};
	int step = count ? 2 : STEP_MS, ticks = 0;
	static char why[120];

	for (uint64_t t = now_ns(); t < deadline; t = now_ns()) {
		int ms = (int)((deadline - t) / 1000000) + 1;
		const char *fatal;

		if (interrupted)
			return "interrupted by a signal";
		if (count && atomic_load(count) >= target)
			return NULL;
		if ((fatal = check_fatal(r)))
			return fatal;
		if (poll(&p, 1, ms < step ? ms : step) > 0 && (fatal = agent_said(r)))
			return fatal;
		if (++ticks % (STEP_MS / step) && count)
			continue; /* the checks below every STEP_MS */
		if (r->prof)
			prof_drain(r->prof);
		int dead = dead_client(r);

		if (dead >= 0) {
			r->failed = true;
			snprintf(why, sizeof(why), "client %d exited before the end", dead + 1);
			return why;
		}
		if (r->measuring)
			stall_watch(r);
	}
	if (interrupted)
		return "interrupted by a signal";
	if (count && atomic_load(count) < target) {
		snprintf(why, sizeof(why), "--time-limit %.0f s reached before every %s was done",
			 seconds, r->wl->unit);
		return why;
	}
	return NULL;
}

static void set_phase(struct run *r, int ph)
{
	atomic_store_explicit(&r->sh->phase, ph, memory_order_release);
}

static void mark_partial(struct run *r, const char *why)
{
	if (r->res.partial)
		return;
	r->res.partial = true;
	snprintf(r->res.partial_reason, sizeof(r->res.partial_reason), "%s", why);
}

/* The kernel's counters of the workload's protocol, plus the TcpExt ones that explain TCP
 * failures and the IP layer's byte counts (IpExt), which bulk workloads set beside theirs. */
struct kernel_read {
	struct snmp proto, ext, ip;
};

static bool read_kernel(const struct workload *wl, bool v6, struct kernel_read *k)
{
	/* UDP over IPv6 is counted in /proc/net/snmp6 (Udp6*); TCP's one row counts both. */
	bool ok = (v6 && !strcmp(wl->snmp_proto, "Udp") ? kstat_snmp6_read(NULL, wl->snmp_proto, &k->proto)
							 : kstat_snmp_read(NULL, wl->snmp_proto, &k->proto)) == 0;

	if (!strcmp(wl->snmp_proto, "Tcp"))
		ok &= kstat_snmp_read("/proc/net/netstat", "TcpExt", &k->ext) == 0;
	else
		memset(&k->ext, 0, sizeof(k->ext));
	if (v6 ? kstat_snmp6_read(NULL, "Ip", &k->ip) : kstat_snmp_read("/proc/net/netstat", "IpExt", &k->ip))
		memset(&k->ip, 0, sizeof(k->ip));
	return ok;
}

static void append_delta(struct snmp *out, const struct snmp *d, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n && out->n < SNMP_MAX; i++) {
		int64_t v = kstat_snmp_get(d, keys[i]);

		if (v < 0)
			continue;
		snprintf(out->name[out->n], sizeof(out->name[0]), "%s", keys[i]);
		out->v[out->n++] = (uint64_t)v;
	}
}

static void kernel_delta(struct run *r, const struct kernel_read *a, const struct kernel_read *b)
{
	static const char *const ext_keys[] = {"ListenOverflows", "ListenDrops", "TW",
					       "TWRecycled", "TCPAbortOnData", "TCPTimeouts"};
	static const char *const ip_keys[] = {"InOctets", "OutOctets"};
	struct snmp d;

	kstat_snmp_delta(&a->proto, &b->proto, &r->res.kernel);
	kstat_snmp_delta(&a->ext, &b->ext, &d);
	append_delta(&r->res.kernel, &d, ext_keys, ARRAY_SIZE(ext_keys));
	if (r->wl->units) {
		kstat_snmp_delta(&a->ip, &b->ip, &d);
		append_delta(&r->res.kernel, &d, ip_keys, ARRAY_SIZE(ip_keys));
	}
}

/* Warm-up, then the window; kernel figures are read right at its edges. A count-based run
 * waits for every client to finish its share of each phase, bounded by --time-limit. */
static void run_window(struct run *r)
{
	struct cpu_stat c0, c1;
	static struct kernel_read k0, k1;
	const char *why;
	double limit = r->o->time_limit;

	set_phase(r, PH_WARMUP);
	if (r->count_based)
		why = watch(r, limit, &r->sh->warm_done, r->nclients);
	else
		why = watch(r, r->o->warmup, NULL, 0);
	if (why) {
		mark_partial(r, why);
		return;
	}
	/* With traffic flowing across the edges (a time-based window), the kernel's figures are
	 * read just after each edge, so both lag the same way and the lags cancel. A count-based
	 * window has no traffic between the warm-up and its start: read them before it opens. */
	bool cpu_ok = false, k_ok = false;

	if (r->count_based) {
		cpu_ok = kstat_cpu_read(NULL, &c0) == 0;
		k_ok = read_kernel(r->wl, r->data.ss_family == AF_INET6, &k0);
	}
	if (ctl_send(r->ctl, CTL_MSG_BEGIN, NULL, 0) < 0 ||
	    ctl_expect(r->ctl, CTL_MSG_ACK, r->buf, CTL_MAX_PAYLOAD + 1, START_MS) < 0) {
		r->failed = true;
		mark_partial(r, "the serve agent did not acknowledge the window's start");
	}
	set_phase(r, PH_MEASURE);
	if (r->prof)
		prof_enable(r->prof);
	uint64_t t0 = now_ns();

	if (!r->count_based) {
		cpu_ok = kstat_cpu_read(NULL, &c0) == 0;
		k_ok = read_kernel(r->wl, r->data.ss_family == AF_INET6, &k0);
	}

	r->measuring = true;
	r->last_sum = progress_sum(r);
	r->last_progress = t0;
	if (r->count_based)
		why = watch(r, limit, &r->sh->done, r->nclients);
	else
		why = watch(r, r->o->duration, NULL, 0);
	r->res.duration_s = ns_to_s(now_ns() - t0);
	r->measuring = false;
	stall_end(r, now_ns());
	if (r->prof)
		prof_disable(r->prof);
	set_phase(r, PH_STOP);
	r->end_sent = ctl_send(r->ctl, CTL_MSG_END, NULL, 0) == 0;
	r->res.machine_ok = cpu_ok && kstat_cpu_read(NULL, &c1) == 0;
	r->res.kernel_ok = k_ok && read_kernel(r->wl, r->data.ss_family == AF_INET6, &k1);
	if (r->res.machine_ok)
		kstat_cpu_split(&c0, &c1, &r->res.machine);
	if (r->res.kernel_ok)
		kernel_delta(r, &k0, &k1);
	if (why)
		mark_partial(r, why);
	if (r->stall_s > 0) {
		char msg[300];

		snprintf(msg, sizeof(msg), "no progress for %.1f s of the window: %s", r->stall_s,
			 r->stall_who);
		mark_partial(r, msg);
		r->failed = true;
		if (!r->fatal[0])
			snprintf(r->fatal, sizeof(r->fatal), "%s", msg);
	}
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

static void collect_server(struct run *r)
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

	s->present = j && side_counters_from_json(cJSON_GetObjectItemCaseSensitive(j, "counters"),
						  &s->c) == 0;
	s->processes = 1;
	it = cJSON_GetObjectItemCaseSensitive(j, "user_s");
	s->user_s = cJSON_IsNumber(it) ? it->valuedouble : 0;
	it = cJSON_GetObjectItemCaseSensitive(j, "sys_s");
	s->sys_s = cJSON_IsNumber(it) ? it->valuedouble : 0;
	cJSON_Delete(j);
	if (!s->present) {
		r->failed = true;
		mark_partial(r, "the serve agent sent a malformed result");
	}
	ctl_send(r->ctl, CTL_MSG_BYE, NULL, 0);
}

static void add_client(struct result *res, const struct client_report *rep)
{
	struct side_result *s = &res->client;
	double user, sys, wall;

	s->present = true;
	s->processes++;
	if (rep->began && rep->ended) {
		cpu_mark_delta(&rep->begin, &rep->end, &user, &sys, &wall);
		s->user_s += user;
		s->sys_s += sys;
	}
	side_counters_add(&s->c, &rep->c);
	hist_merge(res->lat, &rep->lat);
	hist_merge(res->lat2, &rep->lat2);
}

static void collect_clients(struct run *r)
{
	struct client_report *rep = xmalloc(sizeof(*rep));

	for (int i = 0; i < r->nclients; i++) {
		if (read_full(r->cpipe[i], rep, sizeof(*rep), REPORT_MS) == 0) {
			add_client(&r->res, rep);
		} else {
			r->failed = true;
			mark_partial(r, "a client sent no result");
		}
		close(r->cpipe[i]);
		if (r->cpid[i] > 0) {
			kill(r->cpid[i], SIGKILL); /* it has reported or is stuck: either way, done */
			waitpid(r->cpid[i], NULL, 0);
		}
	}
	free(rep);
}

static void reap_agent(struct run *r)
{
	close(r->ctl);
	if (r->server_pid <= 0)
		return;
	for (int i = 0; i < 100; i++) {
		if (waitpid(r->server_pid, NULL, WNOHANG) == r->server_pid)
			return;
		struct timespec step = {0, 20000000};

		nanosleep(&step, NULL);
	}
	kill(r->server_pid, SIGKILL);
	waitpid(r->server_pid, NULL, 0);
}

bool run_interrupted(void)
{
	return interrupted;
}

void run_signals_keep(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

const char *run_status_name(enum run_status s)
{
	return s == RUN_WHOLE ? "whole" : s == RUN_PARTIAL ? "partial" : "failed";
}

/* Append what came on fd to buf (a bounded string); false at EOF. */
static bool take_into(int fd, char **buf, size_t *len, size_t *cap)
{
	char chunk[8192];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	if (*len + (size_t)n + 1 > *cap) {
		*cap = (*len + (size_t)n + 1) * 2;
		*buf = realloc(*buf, *cap);
		if (!*buf)
			die("out of memory");
	}
	memcpy(*buf + *len, chunk, (size_t)n);
	*len += (size_t)n;
	(*buf)[*len] = '\0';
	return true;
}

/* The last non-empty line of text, without "sockbench: ". */
static void last_line(const char *text, char *out, size_t len)
{
	const char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	for (start = end; start > text && start[-1] != '\n'; start--)
		;
	if (!strncmp(start, "sockbench: ", 11))
		start += 11;
	snprintf(out, len, "%.*s", (int)(end - start), start);
}

enum run_status run_isolated(const struct workload *wl, const struct opts *o, cJSON **doc,
			     char *why, size_t whylen)
{
	int out[2], err[2], status = 0;
	char *obuf = xmalloc(65536), *ebuf = xmalloc(4096);
	size_t olen = 0, elen = 0, ocap = 65536, ecap = 4096;
	bool told = false;

	*doc = NULL;
	why[0] = obuf[0] = ebuf[0] = '\0';
	fflush(NULL);
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		die("pipe: %s", strerror(errno));
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		struct result res;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(err[1], STDERR_FILENO);
		close(out[0]);
		close(err[0]);
		int rc = run_once(wl, o, &res);
		cJSON *j = out_result_json(&res);
		char *txt = cJSON_PrintUnformatted(j);

		write_full(out[1], txt, strlen(txt));
		_exit(rc);
	}
	close(out[1]);
	close(err[1]);
	struct pollfd p[2] = {{.fd = out[0], .events = POLLIN}, {.fd = err[0], .events = POLLIN}};

	while (p[0].fd >= 0 || p[1].fd >= 0) {
		if (interrupted && !told) { /* Ctrl-C reached us alone (kill): pass it on */
			kill(pid, SIGINT);
			told = true;
		}
		if (poll(p, 2, 100) <= 0)
			continue;
		for (int i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			bool more = i == 0 ? take_into(p[i].fd, &obuf, &olen, &ocap)
					   : take_into(p[i].fd, &ebuf, &elen, &ecap);

			if (!more) {
				close(p[i].fd);
				p[i].fd = -1;
			}
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*doc = olen ? cJSON_Parse(obuf) : NULL;
	last_line(ebuf, why, whylen);
	free(obuf);
	free(ebuf);
	bool exited0 = WIFEXITED(status) && WEXITSTATUS(status) == 0;

	if (!*doc) {
		if (!why[0])
			snprintf(why, whylen, "the run %s", WIFSIGNALED(status) ? "was killed" : "failed");
		return RUN_FAILED;
	}
	bool partial = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(*doc, "partial"));

	if (!exited0 || partial) {
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(*doc, "partial_reason");

		if (cJSON_IsString(r) && r->valuestring[0])
			snprintf(why, whylen, "%s", r->valuestring);
		return RUN_PARTIAL;
	}
	return RUN_WHOLE;
}

/* --profile: symbols, then an event per CPU; a refusal is reported and the run goes on. */
static void profile_open(struct run *r)
{
	char *err = r->res.profile_error;
	size_t len = sizeof(r->res.profile_error);

	r->ksyms = ksyms_load(NULL, err, len);
	if (r->ksyms) {
		r->prof = prof_create(r->ksyms, (int)r->o->profile_hz, r->o->profile_folded != NULL);
		if (!strcmp(r->o->profile_event, "cycles"))
			prof_use_cycles(r->prof);
		prof_set_pids(r->prof, r->cpid, r->nclients, r->server_pid > 0 ? r->server_pid : 0);
		if (prof_open(r->prof, err, len) == 0)
			return;
		prof_destroy(r->prof);
		r->prof = NULL;
	}
	fprintf(stderr, "sockbench: no profile: %s\n", err);
}

static void profile_close(struct run *r)
{
	if (r->prof) {
		prof_drain(r->prof);
		r->res.profile = prof_json(r->prof, (int)r->o->profile_top);
		if (r->folded && prof_fold_overflow(r->prof))
			fprintf(stderr, "sockbench: --profile-folded: %llu samples found no room in the "
				"folded table and are not in %s (the profile's shares count them)\n",
				(unsigned long long)prof_fold_overflow(r->prof), r->o->profile_folded);
		if (r->folded) {
			int bad = prof_write_folded(r->prof, r->folded);

			bad |= fflush(r->folded) | ferror(r->folded);
			int e = errno;

			bad |= fclose(r->folded);
			r->folded = NULL;
			if (bad) {
				/* A profile cut short is no profile: say so, fail, and leave no file. */
				snprintf(r->fatal, sizeof(r->fatal), "--profile-folded %s: %s",
					 r->o->profile_folded, strerror(e ? e : errno));
				unlink(r->o->profile_folded);
				r->failed = true;
			}
		}
		prof_destroy(r->prof);
		r->prof = NULL;
	}
	if (r->folded) { /* no profile to write */
		fclose(r->folded);
		unlink(r->o->profile_folded);
		r->folded = NULL;
	}
	ksyms_free(r->ksyms);
	r->ksyms = NULL;
}

void result_free(struct result *res)
{
	cJSON_Delete(res->profile);
	res->profile = NULL;
	free(res->lat);
	free(res->lat2);
	res->lat = res->lat2 = NULL;
}

/* An agent reached over loopback shares this machine's network stack, so the kernel's
 * counters count its side too (an agent in another network namespace is not on loopback). */
static bool on_loopback(const struct sockaddr_storage *a)
{
	static const struct in6_addr v6_lo = IN6ADDR_LOOPBACK_INIT;

	if (a->ss_family == AF_INET)
		return ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24 == 127;
	if (a->ss_family == AF_INET6) {
		const struct in6_addr *x = &((const struct sockaddr_in6 *)a)->sin6_addr;

		return !memcmp(x, &v6_lo, sizeof(*x)) ||
		       (IN6_IS_ADDR_V4MAPPED(x) && x->s6_addr[12] == 127);
	}
	return false;
}

int run_once(const struct workload *wl, const struct opts *o, struct result *res)
{
	struct run r = {.wl = wl, .o = o, .ctl = -1};
	char host[256], port[32];

	r.count_based = wl->count_based && wl->count_based(o);
	/* Output paths are checked before any work. */
	if (o->profile && o->profile_folded && !(r.folded = fopen(o->profile_folded, "we")))
		die_usage("--profile-folded %s: %s", o->profile_folded, strerror(errno));
	install_signals();
	r.buf = xmalloc(CTL_MAX_PAYLOAD + 1);
	if (o->server) {
		split_hostport(o->server, host, sizeof(host), port, sizeof(port));
	} else {
		snprintf(host, sizeof(host), "%s", o->ipv6 ? "::1" : "127.0.0.1");
		snprintf(port, sizeof(port), "%d", spawn_local_agent(&r));
	}
	reach_agent(&r, host, port);
	size_t head = (sizeof(*r.sh) + 63) / 64 * 64; /* the slots start on a cache line */
	size_t shlen = head + (size_t)o->clients * PROGRESS_SLOTS * sizeof(struct progress_slot);

	r.sh = mmap(NULL, shlen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r.sh == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	r.sh->progress = (struct progress_slot *)((char *)r.sh + head);
	fork_clients(&r);
	wait_ready(&r);

	r.res = (struct result){.wl = wl, .cfg = o, .warmup_s = o->warmup, .server_local = !o->server || on_loopback(&r.data)};
	r.res.lat = xmalloc(sizeof(*r.res.lat));
	r.res.lat2 = xmalloc(sizeof(*r.res.lat2));
	hist_reset(r.res.lat);
	hist_reset(r.res.lat2);
	if (o->profile)
		profile_open(&r);
	run_window(&r);
	profile_close(&r);
	set_phase(&r, PH_STOP);
	collect_server(&r);
	collect_clients(&r);
	reap_agent(&r);
	/* Every stop says why, on stderr as well as in the report. */
	if (r.fatal[0])
		fprintf(stderr, "sockbench: %s\n", r.fatal);
	else if (r.res.partial)
		fprintf(stderr, "sockbench: the run is partial: %s\n", r.res.partial_reason);
	*res = r.res;
	free(r.buf);
	free(r.cpid);
	free(r.cpipe);
	munmap(r.sh, shlen);
	return r.failed ? 1 : 0;
}

