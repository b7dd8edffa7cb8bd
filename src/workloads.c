/* workloads.c: the table of workloads (adding one is one line here), and what their client
 * sides share. */
#include <cjson/cJSON.h>
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#include "workload.h"

const struct workload *const workloads[] = {
	&wl_udp_rr,
	&wl_tcp_crr,
	&wl_tcp_rr,
	&wl_tcp_stream,
	&wl_udp_stream,
	NULL,
};

const char *const err_kind_names[ERR_KINDS] = {
	[ERR_CONNECT] = "connect", [ERR_ADDRNOTAVAIL] = "addrnotavail", [ERR_RESET] = "reset",
	[ERR_SHORT] = "short",	   [ERR_TIMEOUT] = "timeout",		[ERR_SEND] = "send",
	[ERR_RECV] = "recv",	   [ERR_FOREIGN] = "foreign",
};

const struct workload *workload_find(const char *name)
{
	for (int i = 0; workloads[i]; i++)
		if (!strcmp(workloads[i]->name, name))
			return workloads[i];
	return NULL;
}

void *srv_alloc(struct server_ctx *s, size_t n)
{
	if (atomic_fetch_sub(&s->mem_left, (long)n) < (long)n) {
		atomic_fetch_add(&s->mem_left, (long)n);
		return NULL;
	}
	void *p = calloc(1, n ? n : 1);

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
	X(connects) X(syscalls) X(retrans) X(segs_out) X(zc_done) X(zc_copied) X(zc_unknown)      \
	X(reordered) X(dups) X(refused) X(listen_drops) X(errors)

void side_counters_add(struct side_counters *a, const struct side_counters *b)
{
#define ADD_(f) a->f += b->f;
	COUNTER_FIELDS(ADD_)
#undef ADD_
	for (int k = 0; k < ERR_KINDS; k++)
		a->err[k] += b->err[k];
}

int client_follow_phase(struct client_ctx *c)
{
	int ph = atomic_load_explicit(&c->sh->phase, memory_order_acquire);
	struct client_report *rep = c->rep;

	atomic_store_explicit(&c->sh->progress[c->index * PROGRESS_SLOTS].v,
			      rep->c.transactions + rep->c.rx_packets + rep->c.tx_packets,
			      memory_order_relaxed);
	if (ph >= PH_MEASURE && !rep->began) {
		cpu_mark_take(&rep->begin);
		rep->began = true;
	}
	if (ph == PH_STOP && rep->began && !rep->ended) {
		cpu_mark_take(&rep->end);
		rep->ended = true;
	}
	return ph;
}

static int ncpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
}

/* --pin: the n-th CPU counting from the first (clients) or from the last (server threads). */
int pin_self(int n, bool from_last)
{
	int nc = ncpus(), cpu = from_last ? nc - 1 - n % nc : n % nc;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) ? -1 : cpu;
}

long share_of(long total, int parts, int i)
{
	return total / parts + (i < total % parts);
}

/* The CPU marks of a threaded client are taken by its threads, at the moments the window
 * opens and closes for them, so the process's main thread can sleep in pthread_join. */
static void mark_begin(struct client_thread *t)
{
	bool no = false;

	if (atomic_compare_exchange_strong(&t->g->began, &no, true)) {
		cpu_mark_take(&t->c->rep->begin);
		t->c->rep->began = true;
	}
}

static void mark_end(struct client_thread *t)
{
	bool no = false;

	if (atomic_compare_exchange_strong(&t->g->ended, &no, true)) {
		cpu_mark_take(&t->c->rep->end);
		t->c->rep->ended = true;
	}
}

void thread_progress(struct client_thread *t, uint64_t units)
{
	atomic_store_explicit(&t->c->sh->progress[t->c->index * PROGRESS_SLOTS +
						  t->index % PROGRESS_SLOTS].v,
			      units, memory_order_relaxed);
}

int thread_phase(struct client_thread *t)
{
	int ph = atomic_load_explicit(&t->c->sh->phase, memory_order_acquire);

	thread_progress(t, t->cnt.transactions + t->cnt.rx_bytes + t->cnt.tx_bytes);
	if (ph == PH_MEASURE && !t->saw_measure) {
		t->saw_measure = true;
		mark_begin(t);
	}
	if (ph == PH_STOP && t->saw_measure && !t->g->count_based)
		mark_end(t);
	return ph;
}

int thread_wait_phase(struct client_thread *t, int ph)
{
	struct timespec ms1 = {0, 1000000};
	int now;

	while ((now = thread_phase(t)) < ph)
		nanosleep(&ms1, NULL);
	return now;
}

/* The last thread of the process to finish a share tells the coordinator. */
void thread_warm_done(struct client_thread *t)
{
	if (atomic_fetch_add(&t->g->warm, 1) + 1 == t->g->n)
		atomic_fetch_add(&t->c->sh->warm_done, 1);
}

void thread_done(struct client_thread *t)
{
	if (atomic_fetch_add(&t->g->done, 1) + 1 == t->g->n) {
		if (t->saw_measure)
			mark_end(t);
		atomic_fetch_add(&t->c->sh->done, 1);
	}
}

/* A client thread: pinned first with --pin (the process's threads one CPU each, counting on
 * from the threads of the clients before it), then the workload's function. */
static void *thread_start(void *arg)
{
	struct client_thread *t = arg;

	if (t->c->o->pin)
		pin_self(t->c->index * t->g->n + t->index, false);
	return t->fn(t);
}

int client_threads_run(struct client_ctx *c, struct client_thread *t, int n, long warm_units,
		       long units, void *(*fn)(void *))
{
	struct thread_group g = {.n = n, .count_based = units > 0};
	pthread_t *tid = calloc((size_t)n, sizeof(*tid));
	int started = 0, ret = 0;
	long my_warm = share_of(warm_units, (int)c->o->clients, c->index);
	long mine = share_of(units, (int)c->o->clients, c->index);

	if (!tid)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		t[i].c = c;
		t[i].g = &g;
		t[i].index = i;
		t[i].warm_share = share_of(my_warm, n, i);
		t[i].share = share_of(mine, n, i);
		hist_reset(&t[i].lat);
		hist_reset(&t[i].lat2);
	}
	for (; started < n; started++) {
		t[started].fn = fn;
		if (pthread_create(&tid[started], NULL, thread_start, &t[started])) {
			ret = -EAGAIN;
			atomic_store(&c->sh->fatal, EAGAIN);
			break;
		}
	}
	for (int i = 0; i < started; i++) {
		pthread_join(tid[i], NULL);
		side_counters_add(&c->rep->c, &t[i].cnt);
		hist_merge(&c->rep->lat, &t[i].lat);
		hist_merge(&c->rep->lat2, &t[i].lat2);
	}
	/* Threads that stopped early (a fatal error) still leave a closed window. */
	if (c->rep->began && !c->rep->ended) {
		cpu_mark_take(&c->rep->end);
		c->rep->ended = true;
	}
	free(tid);
	return ret;
}

int client_wait_phase(struct client_ctx *c, int ph)
{
	struct timespec ms1 = {0, 1000000};
	int now;

	while ((now = client_follow_phase(c)) < ph)
		nanosleep(&ms1, NULL);
	return now;
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

int side_counters_from_json(const cJSON *j, struct side_counters *c)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "err");
	int bad = 0;

	memset(c, 0, sizeof(*c));
	if (!cJSON_IsObject(j) || !cJSON_IsObject(e))
		return -EINVAL;
#define FROM_JSON_(f) bad |= get_u64(j, #f, &c->f);
	COUNTER_FIELDS(FROM_JSON_)
#undef FROM_JSON_
	for (int k = 0; k < ERR_KINDS; k++)
		bad |= get_u64(e, err_kind_names[k], &c->err[k]);
	return bad ? -EINVAL : 0;
}
