/* vouch.c: see vouch.h. Both ends of the question: the server agent's answer from what its
 * session published, and the client agent's asking and checking. */
#include "link/vouch.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "link/ctl.h"
#include "link/handshake.h"
#include "link/sock_owner.h"
#include "measure/side.h"

/* ---- the server agent's side ---- */

void vouch_board_init(struct vouch_board *b)
{
	*b = (struct vouch_board){0};
	pthread_mutex_init(&b->lock, NULL);
}

const char *vouch_proto(const char *snmp_proto)
{
	return snmp_proto && !strcmp(snmp_proto, "Udp") ? "udp" : "tcp";
}

void vouch_publish(struct vouch_board *b, const struct server_ctx *s, const char *workload,
		   const char *proto)
{
	if (!b)
		return;
	pthread_mutex_lock(&b->lock);
	snprintf(b->workload, sizeof(b->workload), "%s", workload);
	snprintf(b->proto, sizeof(b->proto), "%s", proto);
	b->token = s->token;
	b->port = s->port;
	b->addr = s->local;
	b->peer = s->peer;
	b->nalso = s->nalso < VOUCH_PEERS_MAX ? s->nalso : VOUCH_PEERS_MAX;
	if (b->nalso)
		memcpy(b->also, s->also, (size_t)b->nalso * sizeof(b->also[0]));
	b->vouched = s->also_vouched;
	b->open = true;
	pthread_mutex_unlock(&b->lock);
}

void vouch_withdraw(struct vouch_board *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&b->lock);
	b->open = false;
	pthread_mutex_unlock(&b->lock);
}

static bool to_sockaddr(const char *s, struct sockaddr_storage *a)
{
	struct addrinfo hints = {.ai_flags = AI_NUMERICHOST}, *ai;

	if (!s || getaddrinfo(s, NULL, &hints, &ai))
		return false;
	memset(a, 0, sizeof(*a));
	memcpy(a, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return true;
}

/* The very address (not same_host's "all of 127/8 is one host"): a sink on 127.0.0.2 is not
 * the agent on 127.0.0.1. */
static bool ip_equal(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	/* A link-local address names a host only with its link: fe80::1%eth0 and fe80::1%eth1
	 * are two hosts. */
	return a->ss_family == AF_INET6 &&
	       !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) &&
	       ((const struct sockaddr_in6 *)a)->sin6_scope_id ==
		       ((const struct sockaddr_in6 *)b)->sin6_scope_id;
}

bool vouch_same_ip(const char *a, const char *b)
{
	struct sockaddr_storage x, y;

	return to_sockaddr(a, &x) && to_sockaddr(b, &y) && ip_equal(&x, &y);
}

/* What a signature covers: everything the client agent acts on, and its nonce. */
struct vouch_req {
	uint64_t token;
	int port;
	const char *addr, *nonce, *workload, *proto;
};

static void signed_text(char *buf, size_t len, const struct vouch_req *q)
{
	snprintf(buf, len, "nonce=%s token=%016llx workload=%s proto=%s addr=%s port=%d", q->nonce,
		 (unsigned long long)q->token, q->workload, q->proto, q->addr, q->port);
}

static bool short_name(const cJSON *s, size_t cap)
{
	return cJSON_IsString(s) && s->valuestring[0] && strlen(s->valuestring) < cap &&
	       strspn(s->valuestring, "abcdefghijklmnopqrstuvwxyz-") == strlen(s->valuestring);
}

static bool parse_req(const cJSON *j, struct vouch_req *q)
{
	const cJSON *token = cJSON_GetObjectItemCaseSensitive(j, "token");
	const cJSON *port = cJSON_GetObjectItemCaseSensitive(j, "port");
	const cJSON *addr = cJSON_GetObjectItemCaseSensitive(j, "addr");
	const cJSON *nonce = cJSON_GetObjectItemCaseSensitive(j, "nonce");
	const cJSON *wl = cJSON_GetObjectItemCaseSensitive(j, "workload");
	const cJSON *proto = cJSON_GetObjectItemCaseSensitive(j, "proto");
	unsigned long long t;
	char end;

	if (!cJSON_IsString(token) || strlen(token->valuestring) != 16 ||
	    sscanf(token->valuestring, "%16llx%c", &t, &end) != 1 || !cJSON_IsNumber(port) ||
	    port->valuedouble < 1 || port->valuedouble > 65535 || !cJSON_IsString(addr) ||
	    strlen(addr->valuestring) > 63 || !cJSON_IsString(nonce) ||
	    strlen(nonce->valuestring) != 2 * AUTH_CHALLENGE_LEN ||
	    strspn(nonce->valuestring, "0123456789abcdef") != 2 * AUTH_CHALLENGE_LEN ||
	    !short_name(wl, 16) || !short_name(proto, 4))
		return false;
	*q = (struct vouch_req){.token = t, .port = port->valueint, .addr = addr->valuestring,
				.nonce = nonce->valuestring, .workload = wl->valuestring,
				.proto = proto->valuestring};
	return true;
}

/* Why the board does not vouch for q from asker, or NULL when it does. */
static const char *refusal(const struct vouch_board *b, const struct vouch_req *q,
			   const struct sockaddr_storage *asker, char *why, size_t len)
{
	struct sockaddr_storage a;
	bool from_peer = same_host(asker, &b->peer);

	for (int i = 0; i < b->nalso && !from_peer; i++)
		from_peer = same_host(asker, &b->also[i]);
	if (!b->open)
		return "no test runs on this agent now: nothing to vouch for";
	/* Both compared whatever the first gives: the answer tells nothing of which was wrong. */
	if ((b->token ^ q->token) | (uint64_t)(b->port ^ q->port)) {
		snprintf(why, len, "no test on this agent has data port %d and that token",
			 q->port);
		return why;
	}
	/* The same port number over the other protocol is another service, maybe not ours. */
	if (strcmp(q->proto, b->proto) || strcmp(q->workload, b->workload)) {
		snprintf(why, len, "this agent's test is %s over %s, not %s over %s: its port "
			 "vouches for nothing else", b->workload, b->proto, q->workload, q->proto);
		return why;
	}
	if (!to_sockaddr(q->addr, &a) || !ip_equal(&a, &b->addr))
		return "this agent's test does not serve on that address";
	if (!from_peer)
		return "this agent's test takes no traffic from the asking host (not one of its "
		       "client hosts)";
	return NULL;
}

unsigned vouch_answer(struct vouch_board *b, const struct auth_key *key,
		      const struct sockaddr_storage *asker, const char *payload, char *reply,
		      size_t rlen)
{
	cJSON *j = cJSON_Parse(payload);
	struct vouch_req q;
	char why[200], text[256], mac[2 * 32 + 1] = "";
	const char *no = "a VOUCH needs token (16 hex digits), port, addr, workload, proto and "
			 "nonce (64 hex digits)";
	unsigned rtype = CTL_MSG_ERROR;
	int err = EPROTO;

	if (parse_req(j, &q)) {
		pthread_mutex_lock(&b->lock);
		no = refusal(b, &q, asker, why, sizeof(why));
		/* A yes opens the data sockets to the asker's host: only a host that asked. */
		for (int i = 0; !no && b->vouched && i < b->nalso; i++)
			if (same_host(asker, &b->also[i]))
				atomic_store(&b->vouched[i], true);
		pthread_mutex_unlock(&b->lock);
		err = EPERM;
	}
	if (no) {
		serve_error_json(reply, rlen, no, err, 0);
		goto out;
	}
	signed_text(text, sizeof(text), &q);
	if (key && auth_sign(key, text, mac, sizeof(mac))) {
		serve_error_json(reply, rlen, "cannot sign the answer", EIO, 0);
		goto out;
	}
	snprintf(reply, rlen,
		 "{\"vouch\":true,\"workload\":\"%s\",\"proto\":\"%s\",\"addr\":\"%s\","
		 "\"port\":%d,\"nonce\":\"%s\"%s%s%s}",
		 q.workload, q.proto, q.addr, q.port, q.nonce, key ? ",\"mac\":\"" : "", mac,
		 key ? "\"" : "");
	rtype = CTL_MSG_ACK;
out:
	cJSON_Delete(j);
	return rtype;
}

/* ---- the client agent's side ---- */

static bool numeric_str(const cJSON *s, char *out, size_t len)
{
	struct sockaddr_storage a;

	if (!cJSON_IsString(s) || strlen(s->valuestring) >= len || !to_sockaddr(s->valuestring, &a))
		return false;
	snprintf(out, len, "%s", s->valuestring);
	return true;
}

static bool port_num(const cJSON *p, int *port)
{
	if (!cJSON_IsNumber(p) || p->valuedouble < 1 || p->valuedouble > 65535)
		return false;
	*port = p->valueint;
	return true;
}

int vouch_target_parse(const char *payload, struct vouch_target *t, char *err, size_t errlen)
{
	cJSON *j = cJSON_Parse(payload);
	const cJSON *tg = cJSON_GetObjectItemCaseSensitive(j, "target");
	const cJSON *token = cJSON_GetObjectItemCaseSensitive(tg, "token");
	unsigned long long tok;
	int ret = -EINVAL;

	*t = (struct vouch_target){0};
	if (!numeric_str(cJSON_GetObjectItemCaseSensitive(tg, "addr"), t->addr, sizeof(t->addr)) ||
	    !port_num(cJSON_GetObjectItemCaseSensitive(tg, "port"), &t->port) ||
	    !cJSON_IsString(token) || sscanf(token->valuestring, "%16llx", &tok) != 1) {
		snprintf(err, errlen,
			 "a client-side SETUP needs target.addr (numeric), target.port and "
			 "target.token");
		goto out;
	}
	t->token = tok;
	if (!numeric_str(cJSON_GetObjectItemCaseSensitive(tg, "ctl_addr"), t->ctl_addr,
			 sizeof(t->ctl_addr)) ||
	    !port_num(cJSON_GetObjectItemCaseSensitive(tg, "ctl_port"), &t->ctl_port)) {
		snprintf(err, errlen,
			 "a client-side SETUP needs target.ctl_addr (numeric) and target.ctl_port: "
			 "the server agent, which must vouch for the target before any client "
			 "sends (an older controller? update it)");
		goto out;
	}
	ret = 0;
out:
	cJSON_Delete(j);
	return ret;
}

static bool string_is(const cJSON *s, const char *want)
{
	return cJSON_IsString(s) && !strcmp(s->valuestring, want);
}

/* Does the answer j echo q's nonce, port, workload and protocol? */
static bool echoes(const cJSON *j, const struct vouch_req *q)
{
	const cJSON *port = cJSON_GetObjectItemCaseSensitive(j, "port");

	return cJSON_IsNumber(port) && port->valuedouble == q->port &&
	       string_is(cJSON_GetObjectItemCaseSensitive(j, "nonce"), q->nonce) &&
	       string_is(cJSON_GetObjectItemCaseSensitive(j, "workload"), q->workload) &&
	       string_is(cJSON_GetObjectItemCaseSensitive(j, "proto"), q->proto);
}

void vouch_request(const struct vouch_target *t, const char *nonce, char *buf, size_t len)
{
	snprintf(buf, len,
		 "{\"token\":\"%016llx\",\"port\":%d,\"addr\":\"%s\",\"workload\":\"%s\","
		 "\"proto\":\"%s\",\"nonce\":\"%s\"}",
		 (unsigned long long)t->token, t->port, t->addr, t->workload, t->proto, nonce);
}

int vouch_reply_check(const struct vouch_target *t, const struct auth_key *key, const char *nonce,
		      const struct ctl_frame *answer, char *err, size_t errlen)
{
	unsigned type = answer->type;
	cJSON *j = cJSON_Parse(answer->payload);
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(j, "error");
	const cJSON *mac = cJSON_GetObjectItemCaseSensitive(j, "mac");
	struct vouch_req q = {.token = t->token, .port = t->port, .addr = t->addr, .nonce = nonce,
			      .workload = t->workload, .proto = t->proto};
	char text[256];
	int ret = -EPROTO;

	if (type == CTL_MSG_ERROR) {
		snprintf(err, errlen, "%.200s",
			 cJSON_IsString(msg) ? msg->valuestring : "it says no");
		ret = -EPERM;
	} else if (type != CTL_MSG_ACK ||
		   !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "vouch")) || !echoes(j, &q)) {
		snprintf(err, errlen, "its answer is not a vouch for this target and nonce");
	} else if (key) {
		signed_text(text, sizeof(text), &q);
		if (!cJSON_IsString(mac) || !auth_sign_ok(key, text, mac->valuestring)) {
			snprintf(err, errlen, "its answer is not signed with this agent's secret");
			ret = -EACCES;
		} else {
			ret = 0;
		}
	} else {
		ret = 0;
	}
	cJSON_Delete(j);
	return ret;
}

/* The control connection to the server agent, or -errno with err. */
static int dial(const struct vouch_target *t, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV},
			*ai;
	struct timeval tv = {.tv_sec = VOUCH_MS / 1000};
	char port[16];
	int fd, e;

	snprintf(port, sizeof(port), "%d", t->ctl_port);
	if (getaddrinfo(t->ctl_addr, port, &hints, &ai)) {
		snprintf(err, errlen, "target.ctl_addr %s is not a numeric address", t->ctl_addr);
		return -EINVAL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)); /* bounds connect too */
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
			e = errno;
			close(fd);
			fd = -e;
		}
	} else {
		fd = -errno;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		snprintf(err, errlen, "no sockbench agent answers there (%s)", strerror(-fd));
	return fd;
}

/* HELLO, and AUTH when the server agent asks: 0, or -errno with err. */
static int greet(int fd, const struct auth_key *key, char *buf, size_t cap, char *err,
		 size_t errlen)
{
	static const char hello[] = "{\"protocol\":1,\"vouch\":true}";
	char mac[2 * 32 + 1], msg[100];
	cJSON *j;
	int ret = ctl_send(fd, CTL_MSG_HELLO, hello, strlen(hello));

	if (ret == 0)
		ret = ctl_expect(fd, CTL_MSG_ACK, buf, cap, VOUCH_MS);
	if (ret < 0) {
		snprintf(err, errlen, "no sockbench agent answers there (%s)", strerror(-ret));
		return ret;
	}
	j = cJSON_Parse(buf);
	const cJSON *ch = cJSON_GetObjectItemCaseSensitive(j, "challenge");

	ret = 0;
	if (cJSON_IsString(ch) && !key) {
		snprintf(err, errlen, "it has a secret and this agent has none: start this agent "
			 "with the same --auth-file");
		ret = -EACCES;
	} else if (!cJSON_IsString(ch) && key) {
		snprintf(err, errlen, "it has no secret and this agent has one (--auth-file): the "
			 "agents of a test must share one secret");
		ret = -EACCES;
	} else if (key && auth_answer(key, ch->valuestring, mac, sizeof(mac))) {
		snprintf(err, errlen, "it sent a malformed challenge");
		ret = -EPROTO;
	} else if (key) {
		snprintf(msg, sizeof(msg), "{\"mac\":\"%s\"}", mac);
		ret = ctl_send(fd, CTL_MSG_AUTH, msg, strlen(msg));
		if (ret == 0)
			ret = ctl_expect(fd, CTL_MSG_ACK, buf, cap, VOUCH_MS);
		if (ret < 0) {
			snprintf(err, errlen, "it did not take this agent's secret");
			ret = -EACCES;
		}
	}
	cJSON_Delete(j);
	return ret < 0 ? ret : 0;
}

static int ask(int fd, const struct vouch_target *t, const struct auth_key *key, char *err,
	       size_t errlen)
{
	char nonce[2 * AUTH_CHALLENGE_LEN + 1], req[300];
	size_t cap = 4096;
	char *buf = xmalloc(cap);
	unsigned type;
	int ret = greet(fd, key, buf, cap, err, errlen);

	if (ret)
		goto out;
	auth_challenge(nonce, sizeof(nonce));
	vouch_request(t, nonce, req, sizeof(req));
	ret = ctl_send(fd, CTL_MSG_VOUCH, req, strlen(req));
	if (ret == 0)
		ret = ctl_recv(fd, &type, buf, cap, VOUCH_MS);
	if (ret < 0)
		snprintf(err, errlen, "it did not answer VOUCH (%s)", strerror(-ret));
	else
		ret = vouch_reply_check(t, key, nonce, &(struct ctl_frame){type, buf}, err, errlen);
out:
	free(buf);
	return ret;
}

static bool loopback(const char *addr)
{
	struct sockaddr_storage a;

	if (!to_sockaddr(addr, &a))
		return false;
	if (a.ss_family == AF_INET)
		return (ntohl(((struct sockaddr_in *)&a)->sin_addr.s_addr) >> 24) == 127;
	return a.ss_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&a)->sin6_addr);
}

/* Unsigned, a yes is only as good as who says it: an agent on this host must be root's or
 * this agent's own user's (any user may listen on 127.x above 1024), and on loopback the
 * kernel must show whose it is. 0, or -EPERM with why. */
static int trusted_owner(int fd, const struct vouch_target *t, char *why, size_t len)
{
	uid_t uid;
	int ret = sock_owner_uid(fd, &uid);

	if (ret == -ENOENT && !loopback(t->ctl_addr))
		return 0; /* another host: its address is the data's, as checked */
	if (ret < 0) {
		snprintf(why, len, "cannot tell which user runs the agent on this host (%s): "
			 "without --auth-file none is trusted", strerror(-ret));
		return -EPERM;
	}
	if (uid != 0 && uid != geteuid()) {
		snprintf(why, len, "it runs as user %u, neither root nor this agent's user (%u): "
			 "without --auth-file another user's agent on this host vouches for nothing "
			 "(give both agents the same --auth-file)", (unsigned)uid, (unsigned)geteuid());
		return -EPERM;
	}
	return 0;
}

int vouch_ask(const struct vouch_target *t, const struct auth_key *key, char *err, size_t errlen)
{
	char why[300] = "";
	int fd, ret;

	/* Unsigned, a yes proves only that something at ctl_addr answered: so that must be
	 * where the data goes. */
	if (!key && !vouch_same_ip(t->addr, t->ctl_addr)) {
		snprintf(err, errlen, "refused to send to %s: not the address of the server agent "
			 "(%s), and without --auth-file no other can be vouched for", t->addr,
			 t->ctl_addr);
		return -EPERM;
	}
	/* Unsigned, any user of that host who can listen on a port can say yes: not for the
	 * ports below 1024, where only root listens, unless root's agent answered there too. */
	if (!key && t->port < 1024 && t->ctl_port >= 1024) {
		snprintf(err, errlen, "refused to send to port %d of %s: without --auth-file an agent "
			 "on a port anyone may open (%d) cannot vouch for a privileged port", t->port,
			 t->addr, t->ctl_port);
		return -EPERM;
	}
	fd = dial(t, why, sizeof(why));
	ret = fd < 0 ? fd : key ? 0 : trusted_owner(fd, t, why, sizeof(why));
	if (ret == 0)
		ret = ask(fd, t, key, why, sizeof(why));
	if (fd >= 0)
		close(fd);
	if (ret)
		snprintf(err, errlen,
			 "the server agent at %s port %d did not vouch for %s port %d: %s",
			 t->ctl_addr, t->ctl_port, t->addr, t->port, why);
	return ret;
}
