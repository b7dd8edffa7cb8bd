/* fanout.c: --clients-on. The clients run on several hosts: this one (`local`, forked as in
 * any run) and serve agents in the client role, each running its share of --clients,
 * --peers and the counts against the one server agent. Every host opens and closes the
 * window on the coordinator's word (BEGIN and END, sent to all before any answer is awaited),
 * and tells its progress in a STATE every STATE_MS; a host whose control connection breaks
 * or that falls silent ends the window, and the others' results are kept. The hosts'
 * results are merged (fanout_collect.c).
 *
 * It uses the agent link (agent.c: reach and greet each host's agent) and the run's state
 * (state.c); agent.c never calls it.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/safe_text.h"
#include "base/util.h"
#include "link/ctl.h"
#include "link/session.h"
#include "run/agent.h"
#include "run/fanout.h"

#define SILENT_S 2.0 /* no STATE this long: the host is taken as gone */

/* The host's numeric address, as the server will see its traffic come from. */
static int resolve(struct run *r, struct remote_host *h)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_family = r->o->ipv6   ? AF_INET6
					      : r->o->ipv4 ? AF_INET
							   : AF_UNSPEC};
	struct addrinfo *ai;
	int e = getaddrinfo(h->at.host, h->at.port, &hints, &ai);

	if (e)
		return run_fail(r, EINVAL, true, "--clients-on %s: %s", h->name, gai_strerror(e));
	getnameinfo(ai->ai_addr, ai->ai_addrlen, h->addr, sizeof(h->addr), NULL, 0, NI_NUMERICHOST);
	freeaddrinfo(ai);
	return 0;
}

/* The options of host i of n (local first): share_of() of each total it splits. A shallow
 * copy: its strings are o's. */
static struct opts host_share(const struct opts *o, int n, int i)
{
	struct opts h = *o;

	h.clients = share_of(o->clients, n, i);
	h.peers = share_of(o->peers, n, i);
	h.conns = share_of(o->conns, n, i);
	h.warmup_conns = share_of(o->warmup_conns, n, i);
	h.rate = share_of(o->rate, n, i);
	h.bytes = share_of(o->bytes, n, i);
	return h;
}

int hosts_parse(struct run *r)
{
	const struct opts *o = r->o;
	char *list, *save = NULL;
	int n = 0, ret = 0;

	if (!o->clients_on)
		return 0;
	if (!o->server)
		return run_fail(r, EINVAL, true,
				"--clients-on needs --server HOST: the client hosts "
				"reach the server's agent at an address they can route to");
	r->fanout = true;
	r->hosts = xcalloc(HOSTS_MAX, sizeof(*r->hosts));
	list = xstrdup(o->clients_on);
	for (char *tok = strtok_r(list, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->client_hosts && n == o->client_hosts)
			break;
		if (!strcmp(tok, "local")) {
			if (r->local_part)
				ret = run_fail(r, EINVAL, true, "--clients-on names local twice");
			r->local_part = true;
			n++;
			continue;
		}
		if (r->nhosts == HOSTS_MAX) {
			ret =
			    run_fail(r, EINVAL, true, "--clients-on: at most %d hosts", HOSTS_MAX);
			break;
		}
		struct remote_host *h = &r->hosts[r->nhosts++];

		*h = (struct remote_host){.ctl = -1};
		snprintf(h->name, sizeof(h->name), "%s", tok);
		if ((ret = split_hostport(r, "--clients-on", tok, &h->at)) ||
		    (ret = resolve(r, h)))
			break;
		n++;
	}
	free(list);
	if (ret)
		return ret;
	if (n == 0)
		return run_fail(r, EINVAL, true,
				"--clients-on names no host: give HOST[:PORT] or "
				"local, separated by commas");
	if (o->client_hosts > n)
		return run_fail(r, EINVAL, true, "--client-hosts %ld: --clients-on names %d",
				o->client_hosts, n);
	if (o->clients < n)
		return run_fail(r, EINVAL, true,
				"--clients %ld over %d client hosts: every host needs "
				"one client at least: give --clients %d or more",
				o->clients, n, n);
	r->local_o = r->local_part ? host_share(o, n, 0) : *o;
	for (int k = 0; k < r->nhosts; k++)
		r->hosts[k].clients = (int)host_share(o, n, k + r->local_part).clients;
	return 0;
}

/* The SETUP of host k: the workload, its share of the config, the server's address and the
 * server agent's, which vouches for it. */
static char *client_setup(const struct run *r, int k)
{
	struct opts share = host_share(r->o, r->nhosts + r->local_part, k + r->local_part);
	cJSON *j = cJSON_CreateObject(), *c = setup_config(r, &share);

	cJSON_DeleteItemFromObjectCaseSensitive(c, "sysctl"); /* the server's host's only */
	cJSON_AddStringToObject(j, "workload", r->wl->name);
	cJSON_AddStringToObject(j, "role", "client");
	cJSON_AddItemToObject(j, "config", c);
	cJSON_AddItemToObject(j, "target", server_target(r));
	char *txt = cJSON_PrintUnformatted(j);

	cJSON_Delete(j);
	return txt;
}

/* Connect, greet, SETUP, READY. 0 or -errno (why in r). */
static int reach_host(struct run *r, struct remote_host *h, int k)
{
	char who[320];
	int ret, fd = connect_agent(r, h->at.host, h->at.port);

	if (fd < 0)
		return fd;
	h->ctl = fd;
	snprintf(who, sizeof(who), "the client host %s", h->name);
	if ((ret = agent_greet(r, fd, who)))
		return ret == -EBUSY
			   ? run_fail(r, EBUSY, false, "busy with another controller's test")
			   : ret;
	char *txt = client_setup(r, k);

	ret = ctl_send(fd, CTL_MSG_SETUP, txt, strlen(txt));
	free(txt);
	if (ret == 0)
		ret = ctl_expect(fd, CTL_MSG_READY, r->buf, CTL_MAX_PAYLOAD + 1, START_MS + 2000);
	if (ret == -EREMOTEIO) {
		ret = agent_refused(r);
		return ret == -EBUSY
			   ? run_fail(r, EBUSY, false, "busy with another controller's test")
			   : ret;
	}
	if (ret < 0)
		return run_fail(r, -ret, false, "did not answer SETUP: %s", strerror(-ret));
	h->heard_at = now_ns();
	return 0;
}

/* Every client host, in turn: each one's clients warm up as soon as they are ready. A
 * refusal names the host. */
int hosts_reach(struct run *r)
{
	for (int k = 0; k < r->nhosts; k++) {
		int ret = reach_host(r, &r->hosts[k], k);

		if (ret) {
			char msg[sizeof(r->error->msg)];

			snprintf(msg, sizeof(msg), "client host %.100s: %.200s", r->hosts[k].name,
				 r->error->msg);
			snprintf(r->error->msg, sizeof(r->error->msg), "%s", msg);
			return ret;
		}
	}
	return 0;
}

static void take_state(struct remote_host *h, const char *payload)
{
	cJSON *j = cJSON_Parse(payload);
	const cJSON *it;

#define GET(key, field)                                                                            \
	if (cJSON_IsNumber(it = cJSON_GetObjectItemCaseSensitive(j, key)))                         \
		h->field = (__typeof__(h->field))it->valuedouble;
	GET("progress", progress)
	GET("warm_done", warm_done)
	GET("done", done)
	GET("dead", dead)
	GET("stopped", stopped)
	GET("fatal", fatal)
	GET("fatal_after", fatal_after)
#undef GET
	cJSON_Delete(j);
}

/* One frame from host h; type in *type. 0, or -errno (the connection broke). STATE is
 * taken here. */
int host_recv(struct run *r, struct remote_host *h, unsigned *type, int ms)
{
	int ret = ctl_recv(h->ctl, type, r->buf, CTL_MAX_PAYLOAD + 1, ms);

	if (ret < 0)
		return ret;
	h->heard_at = now_ns();
	if (*type == CTL_MSG_STATE)
		take_state(h, r->buf);
	return 0;
}

/* The server served the clients of a host whose units this run does not count (lost, or short
 * of clients): its per-unit figures would divide that work by the others' units. */
void withhold_server_units(struct run *r, const char *host)
{
	if (!r->res.server_units_withheld[0])
		snprintf(r->res.server_units_withheld, sizeof(r->res.server_units_withheld),
			 "server per-unit figures withheld: it also served the clients of %.100s, whose "
			 "units are not all counted", host);
}

const char *host_gone(struct run *r, struct remote_host *h, const char *fmt, const char *arg)
{
	static char why[400];
	char what[300];

	h->gone = true;
	r->failed = true;
	snprintf(what, sizeof(what), fmt, arg);
	snprintf(why, sizeof(why), "the client host %.100s %.280s", h->name, what);
	snprintf(h->why, sizeof(h->why), "%s", why);
	withhold_server_units(r, h->name);
	if (!r->fatal[0])
		snprintf(r->fatal, sizeof(r->fatal), "%.299s", why);
	return why;
}

const char *hosts_watch(struct run *r)
{
	for (int k = 0; k < r->nhosts; k++) {
		struct remote_host *h = &r->hosts[k];
		unsigned type;

		if (h->gone)
			continue;
		while (wait_readable(h->ctl, 0) > 0) {
			if (host_recv(r, h, &type, 1000) < 0)
				return host_gone(r, h, "%s",
						 "closed its control connection (its agent "
						 "died?)");
			if (type == CTL_MSG_ERROR || type == CTL_MSG_NOTICE) {
				cJSON *j = cJSON_Parse(r->buf);
				const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "error");
				char text[256];
				const char *why = host_gone(
				    r, h, "ended the test: %s",
				    safe_text(text, sizeof(text), cJSON_IsString(m) ? m->valuestring : "?"));

				cJSON_Delete(j);
				return why;
			}
		}
		if (h->dead) {
			char n[16];

			snprintf(n, sizeof(n), "%d", h->dead);
			return host_gone(r, h, "lost its client %s: it exited before the end", n);
		}
		if (h->fatal) {
			r->failed = true;
			return host_gone(r, h, "hit a fatal error: %s", strerror(h->fatal));
		}
		uint64_t now = now_ns();

		if (now > h->heard_at && ns_to_s(now - h->heard_at) > SILENT_S) {
			char s[16];

			snprintf(s, sizeof(s), "%.1f", ns_to_s(now - h->heard_at));
			return host_gone(r, h, "sent nothing for %s s (stopped, or cut off)", s);
		}
	}
	return NULL;
}

/* Wait for host h's ACK (STATEs may come first). */
static bool host_ack(struct run *r, struct remote_host *h)
{
	unsigned type;

	for (int left = 64; left > 0; left--) {
		if (host_recv(r, h, &type, START_MS) < 0)
			return false;
		if (type == CTL_MSG_ACK)
			return true;
		if (type != CTL_MSG_STATE)
			return false;
	}
	return false;
}

void hosts_begin(struct run *r)
{
	for (int k = 0; k < r->nhosts; k++) {
		struct remote_host *h = &r->hosts[k];

		h->begin_sent = now_ns();
		if (!h->gone && ctl_send(h->ctl, CTL_MSG_BEGIN, NULL, 0) < 0)
			host_gone(r, h, "%s", "could not be told to open the window");
	}
	for (int k = 0; k < r->nhosts; k++) {
		struct remote_host *h = &r->hosts[k];

		if (h->gone)
			continue;
		if (!host_ack(r, h)) {
			mark_partial(
			    r, host_gone(r, h, "%s", "did not acknowledge the window's start"));
			continue;
		}
		h->begin_acked = now_ns();
		h->began = true;
	}
}

void hosts_drain_begin(struct run *r)
{
	for (int k = 0; k < r->nhosts; k++) {
		struct remote_host *h = &r->hosts[k];

		if (!h->gone && h->began && ctl_send(h->ctl, CTL_MSG_CLOSE, NULL, 0) < 0)
			mark_partial(r, host_gone(r, h, "%s", "could not be told the window closed"));
	}
}

void hosts_drain_wait(struct run *r, uint64_t end_ns)
{
	for (int k = 0; k < r->nhosts; k++) {
		struct remote_host *h = &r->hosts[k];
		unsigned type = CTL_MSG_STATE;
		int ret = 0;

		while (!h->gone && h->began && type == CTL_MSG_STATE && !run_sig) {
			uint64_t now = now_ns();

			/* Past the bound the host is ended with the others (its clients count what
			 * is left as lost; an ACK after it is skipped when its RESULT is read). A
			 * frame begun is read whole: the control stream stays in step. */
			if (now >= end_ns ||
			    wait_readable(h->ctl, (int)((end_ns - now) / 1000000) + 1) <= 0)
				break;
			ret = host_recv(r, h, &type, 1000);
			if (ret < 0 || (type != CTL_MSG_ACK && type != CTL_MSG_STATE))
				mark_partial(r, host_gone(r, h, "%s", "broke off in the drain after the "
							  "window"));
		}
	}
}

void hosts_end(struct run *r)
{
	for (int k = 0; k < r->nhosts; k++) {
		struct remote_host *h = &r->hosts[k];

		if (!h->gone && ctl_send(h->ctl, CTL_MSG_END, NULL, 0) < 0)
			host_gone(r, h, "%s", "could not be told to close the window");
	}
}

uint64_t hosts_progress(const struct run *r)
{
	uint64_t sum = 0;

	for (int k = 0; k < r->nhosts; k++)
		sum += r->hosts[k].progress;
	return sum;
}

int hosts_count(const struct run *r, bool warm)
{
	int sum = 0;

	for (int k = 0; k < r->nhosts; k++)
		sum += warm ? r->hosts[k].warm_done : r->hosts[k].done;
	return sum;
}

void hosts_close(struct run *r)
{
	for (int k = 0; r->hosts && k < r->nhosts; k++)
		if (r->hosts[k].ctl >= 0)
			close(r->hosts[k].ctl);
	free(r->hosts);
	r->hosts = NULL;
	r->nhosts = 0;
}
