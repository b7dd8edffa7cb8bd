/* harness.c: what the client sides of the workloads share: phase following, CPU marks at the window's edges, threads with their shares. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/util.h"
#include "workload/workload.h"

bool stream_receivers_here(const struct opts *o)
{
	bool server_receives = !o->reverse || o->bidir, clients_receive = o->reverse || o->bidir;

	return !(server_receives && o->server) &&
	       !(clients_receive && (o->clients_on || o->client_hosts));
}

int client_follow_phase(struct client_ctx *c)
{
	int ph = atomic_load_explicit(&c->sh->phase, memory_order_acquire);
	struct client_report *rep = c->rep;

	struct progress_slot *slot = &c->sh->progress[c->index * PROGRESS_SLOTS];

	/* A failure is progress too (the server answered, with a refusal): a run whose every
	 * unit fails fast is not a stall, and says so (run.c's load check). */
	atomic_store_explicit(&slot->v, rep->c.transactions + rep->c.rx_packets + rep->c.tx_packets +
						rep->c.errors + rep->c.lost,
			      memory_order_relaxed);
	atomic_store_explicit(&slot->units, rep->c.transactions, memory_order_relaxed);
	atomic_store_explicit(&slot->bytes, rep->c.rx_bytes + rep->c.tx_bytes, memory_order_relaxed);
	if (ph >= PH_MEASURE && !rep->began) {
		cpu_mark_take(&rep->begin);
		rep->began = true;
	}
	if (ph >= PH_DRAIN && rep->began && !rep->ended) {
		cpu_mark_take(&rep->end);
		rep->ended = true;
	}
	return ph;
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

void thread_progress(struct client_thread *t, uint64_t units, uint64_t bytes)
{
	struct progress_slot *slot =
		&t->c->sh->progress[t->c->index * PROGRESS_SLOTS + t->index % PROGRESS_SLOTS];

	atomic_store_explicit(&slot->v, units, memory_order_relaxed);
	atomic_store_explicit(&slot->units, t->cnt.transactions, memory_order_relaxed);
	atomic_store_explicit(&slot->bytes, bytes, memory_order_relaxed);
}

void drain_register(struct client_ctx *c, int units)
{
	atomic_fetch_add(&c->sh->drain_units, units);
}

void drain_done(struct client_ctx *c)
{
	atomic_fetch_add(&c->sh->drained, 1);
}

int thread_phase(struct client_thread *t)
{
	int ph = atomic_load_explicit(&t->c->sh->phase, memory_order_acquire);

	thread_progress(t, t->cnt.transactions + t->cnt.rx_bytes + t->cnt.tx_bytes + t->cnt.errors,
			t->cnt.rx_bytes + t->cnt.tx_bytes);
	if (ph == PH_MEASURE && !t->saw_measure) {
		t->saw_measure = true;
		mark_begin(t);
	}
	if (ph >= PH_DRAIN && t->saw_measure && !t->g->count_based)
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

void client_share_done(struct shared *sh, bool warm)
{
	uint64_t one = 1;

	atomic_fetch_add(warm ? &sh->warm_done : &sh->done, 1);
	/* Non-blocking, and the counter cannot fill (two adds a process a run): never waits. A
	 * failed write costs only the wake: the coordinator still looks every STEP_MS. */
	if (sh->wake_fd >= 0)
		(void)!write(sh->wake_fd, &one, sizeof(one));
}

/* The last thread of the process to finish a share tells the coordinator. */
void thread_warm_done(struct client_thread *t)
{
	if (atomic_fetch_add(&t->g->warm, 1) + 1 == t->g->n)
		client_share_done(t->c->sh, true);
}

void thread_done(struct client_thread *t)
{
	if (atomic_fetch_add(&t->g->done, 1) + 1 == t->g->n) {
		if (t->saw_measure)
			mark_end(t);
		client_share_done(t->c->sh, false);
	}
}

/* A client thread: pinned first (--pin, --cpus: the process's threads one CPU each, counting on
 * from the threads of the clients before it), then the workload's function. */
static void *thread_start(void *arg)
{
	struct client_thread *t = arg;

	cpus_pin(t->c->o, t->c->index * t->g->n + t->index, false);
	return t->fn(t);
}

/* Run fn in n threads, join them, and add every thread's counts to the report. */
static int client_threads_run(struct client_ctx *c, struct client_thread *t, int n,
			      long warm_units, long units, void *(*fn)(void *))
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
		t[i].lat = &t[i].lat_own;
		if (c->sh->live && n <= c->sh->live_per)
			t[i].lat = &c->sh->live[c->index * c->sh->live_per + i];
		hist_reset(t[i].lat);
		hist_reset(&t[i].lat2);
	}
	if (c->sh->live && n <= c->sh->live_per) /* before any thread records */
		atomic_store(&c->sh->threaded[c->index], true);
	/* One thread: run it here, and the process stays single-threaded, which the kernel and
	 * libc make cheaper on every call (no file reference taken, since no other thread shares
	 * the fd table; no cancellation-point switching). */
	if (n == 1) {
		t[0].fn = fn;
		thread_start(&t[0]);
		side_counters_add(&c->rep->c, &t[0].cnt);
		hist_merge(&c->rep->lat, t[0].lat);
		hist_merge(&c->rep->lat2, &t[0].lat2);
		tcp_info_dist_merge(&c->rep->ti, &t[0].ti);
		n = started = 0;
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
		hist_merge(&c->rep->lat, t[i].lat);
		hist_merge(&c->rep->lat2, &t[i].lat2);
		tcp_info_dist_merge(&c->rep->ti, &t[i].ti);
	}
	/* The window has closed; the flows are still open (their callers free them). */
	mem_use_read(0, &c->rep->mem_end);
	/* Threads that stopped early (a fatal error) still leave a closed window. */
	if (c->rep->began && !c->rep->ended) {
		cpu_mark_take(&c->rep->end);
		c->rep->ended = true;
	}
	free(tid);
	return ret;
}

void client_ready(struct client_ctx *c, int ret)
{
	if (!ret)
		atomic_fetch_add(&c->sh->ready, 1);
}

int client_go(struct client_ctx *c, int ret, const struct client_run *r)
{
	if (r->drain)
		drain_register(c, r->drain);
	client_ready(c, ret);
	return ret ? ret : client_threads_run(c, r->t, r->n, r->warm, r->units, r->fn);
}

int client_wait_phase(struct client_ctx *c, int ph)
{
	struct timespec ms1 = {0, 1000000};
	int now;

	while ((now = client_follow_phase(c)) < ph)
		nanosleep(&ms1, NULL);
	return now;
}

int client_ready_wait(struct client_ctx *c, int ret)
{
	client_ready(c, ret);
	if (!ret)
		client_wait_phase(c, PH_WARMUP);
	return ret;
}
