/* side.c: the helpers of one side's data: error names, counters added up and carried as JSON
 * (agent to controller, client process to coordinator), the server's memory budget. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "measure/side.h"
#include "base/util.h"

const char *const err_kind_names[ERR_KINDS] = {
	[ERR_CONNECT] = "connect", [ERR_ADDRNOTAVAIL] = "addrnotavail", [ERR_RESET] = "reset",
	[ERR_SHORT] = "short",	   [ERR_TIMEOUT] = "timeout",		[ERR_SEND] = "send",
	[ERR_RECV] = "recv",	   [ERR_FOREIGN] = "foreign",
};

void *srv_alloc(struct server_ctx *s, size_t n)
{
	if (atomic_fetch_sub(&s->mem_left, (long)n) < (long)n) {
		atomic_fetch_add(&s->mem_left, (long)n);
		return NULL;
	}
	void *p = malloc_io(n); /* a page or more on a page: payload buffers (util.h) */

	if (!p)
		atomic_fetch_add(&s->mem_left, (long)n);
	return p;
}

void srv_free(struct server_ctx *s, void *p, size_t n)
{
	if (!p)
		return;
	free(p);
	atomic_fetch_add(&s->mem_left, (long)n);
}

bool same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		uint32_t x = ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr);
		uint32_t y = ntohl(((const struct sockaddr_in *)b)->sin_addr.s_addr);

		/* All of 127.0.0.0/8 is this machine (--src-addrs spreads over it). */
		return x == y || (x >> 24 == 127 && y >> 24 == 127);
	}
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
	return false;
}

/* One table for both directions, so a counter added to the struct is added here once. */
#define COUNTER_FIELDS(X)                                                                          \
	X(tx_packets) X(rx_packets) X(tx_bytes) X(rx_bytes) X(transactions) X(lost) X(late)       \
	X(connects) X(syscalls) X(recv_spin_ns) X(recv_spin_told) X(retrans) X(segs_out)          \
	X(zc_done) X(zc_copied) X(zc_unknown)                                                     \
	X(reordered) X(dups) X(seq_unsure) X(jitter_ns) X(jitter_flows) X(refused) X(idle_flows) X(listen_drops) X(unfinished) X(errors) \
	X(accept_queue_open) X(accept_queue_close)                                                \
	X(scheduled) X(issued) X(gen_dropped) X(lag_p99_ns) X(lag_max_ns) X(held_max_ns)         \
	X(ti_conns) X(ti_rtt_sum) X(ti_rtt_min) X(ti_rtt_max) X(ti_rttvar_sum) X(ti_minrtt_sum)    \
	X(ti_minrtt_min) X(ti_cwnd_sum) X(ti_cwnd_min) X(ti_cwnd_max) X(ti_rate_sum)               \
	X(ti_rate_max) X(ti_retrans)
/* The fields that add up as the largest of the parts, not their sum. */
#define MAX_FIELDS(X)                                                                              \
	X(recv_spin_ns) X(lag_p99_ns) X(lag_max_ns) X(held_max_ns) X(ti_rtt_max) X(ti_cwnd_max)    \
	X(ti_rate_max)
/* ... and as the smallest of the parts that have any (TCP_INFO's connections). */
#define MIN_FIELDS(X) X(ti_rtt_min) X(ti_minrtt_min) X(ti_cwnd_min)

bool addr_is_this_host(const struct sockaddr_storage *a)
{
	static const struct in6_addr v6_lo = IN6ADDR_LOOPBACK_INIT;
	struct ifaddrs *ifs, *i;
	bool here = false;

	if (a->ss_family == AF_INET &&
	    ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24 == 127)
		return true;
	if (a->ss_family == AF_INET6) {
		const struct in6_addr *x = &((const struct sockaddr_in6 *)a)->sin6_addr;

		if (!memcmp(x, &v6_lo, sizeof(*x)) || (IN6_IS_ADDR_V4MAPPED(x) && x->s6_addr[12] == 127))
			return true;
	}
	/* The interfaces' own addresses (what `ip addr` lists): a bind test would pass any
	 * address where net.ipv4.ip_nonlocal_bind is set. */
	if (getifaddrs(&ifs))
		return false;
	for (i = ifs; i && !here; i = i->ifa_next) {
		struct sockaddr_storage s = {0};

		if (!i->ifa_addr || i->ifa_addr->sa_family != a->ss_family)
			continue;
		memcpy(&s, i->ifa_addr, a->ss_family == AF_INET ? sizeof(struct sockaddr_in)
								: sizeof(struct sockaddr_in6));
		here = same_host(&s, a);
	}
	freeifaddrs(ifs);
	return here;
}

bool peer_allowed(const struct server_ctx *s, const struct sockaddr_storage *a)
{
	if (same_host(a, &s->peer))
		return true;
	for (int i = 0; i < s->nalso; i++)
		if (same_host(a, &s->also[i]) && s->also_vouched &&
		    atomic_load_explicit(&s->also_vouched[i], memory_order_relaxed))
			return true;
	return false;
}

void side_counters_add(struct side_counters *a, const struct side_counters *b)
{
	struct side_counters m = *a;

#define ADD_(f) a->f += b->f;
	COUNTER_FIELDS(ADD_)
#undef ADD_
#define MAX_(f) a->f = m.f > b->f ? m.f : b->f;
	MAX_FIELDS(MAX_)
#undef MAX_
#define MIN_(f) a->f = !m.ti_conns ? b->f : !b->ti_conns ? m.f : m.f < b->f ? m.f : b->f;
	MIN_FIELDS(MIN_)
#undef MIN_
	for (int k = 0; k < ERR_KINDS; k++)
		a->err[k] += b->err[k];
}

cJSON *side_counters_to_json(const struct side_counters *c)
{
	cJSON *j = cJSON_CreateObject(), *e = cJSON_CreateObject();

#define TO_JSON_(f) cJSON_AddNumberToObject(j, #f, (double)c->f);
	COUNTER_FIELDS(TO_JSON_)
#undef TO_JSON_
	for (int k = 0; k < ERR_KINDS; k++)
		cJSON_AddNumberToObject(e, err_kind_names[k], (double)c->err[k]);
	cJSON_AddItemToObject(j, "err", e);
	return j;
}

static int get_u64(const cJSON *j, const char *key, uint64_t *v)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(j, key);

	if (!cJSON_IsNumber(it) || it->valuedouble < 0)
		return -EINVAL;
	*v = (uint64_t)it->valuedouble;
	return 0;
}

/* Counters newer than the control protocol's version 1: an agent built before them sends
 * none, and its result is still good (0: it measured none); present, they must be numbers. */
static int get_counter(const cJSON *j, const char *key, uint64_t *v)
{
	static const char *const newer[] = {"accept_queue_open", "accept_queue_close",
					    "recv_spin_ns", "recv_spin_told"};

	for (size_t k = 0; k < sizeof(newer) / sizeof(newer[0]); k++)
		if (!strcmp(key, newer[k]) && !cJSON_GetObjectItemCaseSensitive(j, key))
			return 0;
	return get_u64(j, key, v);
}

int side_counters_from_json(const cJSON *j, struct side_counters *c)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "err");
	int bad = 0;

	memset(c, 0, sizeof(*c));
	if (!cJSON_IsObject(j) || !cJSON_IsObject(e))
		return -EINVAL;
#define FROM_JSON_(f) bad |= get_counter(j, #f, &c->f);
	COUNTER_FIELDS(FROM_JSON_)
#undef FROM_JSON_
	for (int k = 0; k < ERR_KINDS; k++)
		bad |= get_u64(e, err_kind_names[k], &c->err[k]);
	return bad ? -EINVAL : 0;
}
