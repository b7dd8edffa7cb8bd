/* group.c: the client processes of one host (group.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "measure/kstat.h"
#include "workload/group.h"

void child_setup(int deathsig)
{
	/* The stops a terminal or timeout(1) sends the whole process group are the parent's:
	 * it ends the window and collects what this child measured. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, deathsig);
}

static void run_client(struct client_group *g, int i, int fd)
{
	struct client_report *rep = g->sh->reports ? &g->sh->reports[i] : xcalloc(1, sizeof(*rep));
	long per = g->o->peers / g->n, extra = g->o->peers % g->n;
	struct client_ctx c = {
	    .o = g->o,
	    .index = i,
	    .nsock = (int)(per + (i < extra)),
	    .server = g->server,
	    .server_len = g->server_len,
	    .token = g->token,
	    .sh = g->sh,
	    .rep = rep,
	};

	hist_reset(&rep->lat);
	hist_reset(&rep->lat2);
	mem_use_read(0, &rep->mem_before);
	int ret = g->wl->client(&c);

	if (!rep->mem_end.hwm_kb) /* a threaded client read it at its window's end */
		mem_use_read(0, &rep->mem_end);

	rep->err = -ret;
	write_full(fd, rep, sizeof(*rep)); /* from the shared memory too: one way of reporting */
	_exit(ret ? 1 : 0);
}

static size_t lines(size_t bytes)
{
	return (bytes + 63) / 64 * 64;
}

/* With -i, the clients' histograms go in the shared memory too: a report (two histograms,
 * 74 KiB) per client and a histogram (37 KiB) per thread. Anonymous shared pages are only
 * made when touched: a histogram touches its head, and the pages of the buckets its
 * latencies fall in, after hist_reset has zeroed it (all of it: 10 pages). */
static void live_place(struct client_group *g, size_t at, size_t n)
{
	char *base = (char *)g->sh;

	g->sh->reports = (struct client_report *)(base + at);
	at += lines(n * sizeof(struct client_report));
	g->sh->live = (struct hist *)(base + at);
	at += lines(n * (size_t)g->live_per * sizeof(struct hist));
	g->sh->threaded = (_Atomic bool *)(base + at);
	g->sh->live_per = g->live_per;
}

int group_start(struct client_group *g, int n, int close_fd, char *err, size_t errlen)
{
	size_t head = lines(sizeof(*g->sh)); /* the slots start on a cache line */
	size_t m = (size_t)(n ? n : 1), slots = lines(m * PROGRESS_SLOTS * sizeof(struct progress_slot));

	g->n = n;
	g->shlen = head + slots;
	if (g->live_per > 0)
		g->shlen += lines(m * sizeof(struct client_report)) +
			    lines(m * (size_t)g->live_per * sizeof(struct hist)) + lines(m);
	g->sh = mmap(NULL, g->shlen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g->sh == MAP_FAILED) {
		g->sh = NULL;
		snprintf(err, errlen, "mmap: %s", strerror(errno));
		return -errno;
	}
	g->sh->progress = (struct progress_slot *)((char *)g->sh + head);
	g->sh->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (g->live_per > 0)
		live_place(g, head + slots, m);
	g->pid = xcalloc((size_t)g->n + 1, sizeof(*g->pid));
	g->pipe = xcalloc((size_t)g->n + 1, sizeof(*g->pipe));
	for (int i = 0; i < g->n; i++)
		g->pipe[i] = -1;
	for (int i = 0; i < g->n; i++) {
		int p[2], e;

		if (pipe2(p, O_CLOEXEC) < 0) {
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			return -errno;
		}
		fflush(NULL);
		g->pid[i] = fork();
		if (g->pid[i] < 0) {
			e = errno;
			g->pid[i] = 0;
			close(p[0]);
			close(p[1]);
			snprintf(err, errlen, "fork client %d: %s", i + 1, strerror(e));
			return -e;
		}
		if (g->pid[i] == 0) {
			child_setup(SIGKILL);
			close(p[0]);
			if (close_fd >= 0)
				close(close_fd);
			run_client(g, i, p[1]);
		}
		close(p[1]);
		g->pipe[i] = p[0];
	}
	return 0;
}

int group_ready_ms(const struct opts *o, int base_ms)
{
	return base_ms + (int)(o->clients * o->flows / 2);
}

void group_set_phase(struct client_group *g, int ph)
{
	atomic_store_explicit(&g->sh->phase, ph, memory_order_release);
}

int group_dead(struct client_group *g)
{
	for (int i = 0; i < g->n; i++) {
		if (g->pid[i] > 0 && waitpid(g->pid[i], NULL, WNOHANG) == g->pid[i]) {
			g->pid[i] = 0;
			return i;
		}
	}
	return -1;
}

/* During set-up: the first client whose pipe has its report (one that failed writes it and
 * exits; it blocks in the write when the report is larger than the pipe), or -1. */
static int group_reporting(const struct client_group *g)
{
	for (int i = 0; i < g->n; i++) {
		struct pollfd p = {.fd = g->pipe[i], .events = POLLIN};

		if (g->pipe[i] >= 0 && poll(&p, 1, 0) == 1)
			return i;
	}
	return -1;
}

/* A client that failed at setup left its reason in its report. */
static int client_failed(struct client_group *g, int i, char *err, size_t errlen)
{
	struct client_report *rep = xcalloc(1, sizeof(*rep));
	int ret = -ECHILD;

	if (read_full(g->pipe[i], rep, sizeof(*rep), 1000) == 0 && rep->err) {
		snprintf(err, errlen, "client %d: %s", i + 1,
			 rep->msg[0] ? rep->msg : strerror(rep->err));
		ret = -rep->err;
	} else {
		snprintf(err, errlen, "client %d exited during setup", i + 1);
	}
	free(rep);
	return ret;
}

int group_wait_ready(struct client_group *g, int ms, volatile sig_atomic_t *stop, char *err,
		     size_t errlen)
{
	uint64_t deadline = now_ns() + (uint64_t)ms * 1000000;
	struct timespec step = {0, 1000000};

	while (atomic_load(&g->sh->ready) < g->n) {
		int dead = group_reporting(g);

		if (dead < 0)
			dead = group_dead(g);
		if (dead >= 0)
			return client_failed(g, dead, err, errlen);
		if (stop && *stop) {
			snprintf(err, errlen, "interrupted during setup");
			return -EINTR;
		}
		if (now_ns() > deadline) {
			snprintf(err, errlen, "the clients did not open their sockets within %d s",
				 ms / 1000);
			return -ETIMEDOUT;
		}
		nanosleep(&step, NULL);
	}
	return 0;
}

uint64_t group_progress(const struct client_group *g)
{
	uint64_t sum = 0;

	for (int i = 0; i < g->n * PROGRESS_SLOTS; i++)
		sum += atomic_load_explicit(&g->sh->progress[i].v, memory_order_relaxed);
	return sum;
}

uint64_t group_units(const struct client_group *g)
{
	uint64_t sum = 0;

	for (int i = 0; i < g->n * PROGRESS_SLOTS; i++)
		sum += atomic_load_explicit(&g->sh->progress[i].units, memory_order_relaxed);
	return sum;
}

uint64_t group_bytes(const struct client_group *g)
{
	uint64_t sum = 0;

	for (int i = 0; i < g->n * PROGRESS_SLOTS; i++)
		sum += atomic_load_explicit(&g->sh->progress[i].bytes, memory_order_relaxed);
	return sum;
}

int group_live_hists(const struct client_group *g, const struct hist **out, int cap)
{
	int k = 0;

	for (int i = 0; g->sh->live && i < g->n; i++) {
		if (!atomic_load(&g->sh->threaded[i])) {
			if (k < cap)
				out[k++] = &g->sh->reports[i].lat;
			continue;
		}
		for (int t = 0; t < g->live_per && k < cap; t++)
			out[k++] = &g->sh->live[i * g->live_per + t];
	}
	return k;
}

uint64_t group_cpu_ticks(const struct client_group *g)
{
	uint64_t sum = 0, t;

	for (int i = 0; i < g->n; i++)
		if (g->pid[i] > 0 && kstat_task_ticks((int)g->pid[i], NULL, 0, &t))
			sum += t;
	return sum;
}

int group_stopped(const struct client_group *g)
{
	for (int i = 0; i < g->n; i++) {
		char path[64], buf[256];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)g->pid[i]);
		if (g->pid[i] <= 0 || !(f = fopen(path, "re")))
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

static void add_client(struct side_result *s, struct hist *lat, struct hist *lat2,
		       const struct client_report *rep)
{
	double user, sys, wall, slept, preempted;

	s->present = true;
	s->processes++;
	if (rep->began && rep->ended) {
		cpu_mark_delta(&rep->begin, &rep->end, &user, &sys, &wall);
		side_window_add(s, wall);
		s->user_s += user;
		s->sys_s += sys;
		cpu_mark_switches(&rep->begin, &rep->end, &slept, &preempted);
		s->vcsw += slept;
		s->ivcsw += preempted;
		s->run_delay_s += cpu_mark_run_delay(&rep->begin, &rep->end);
		s->threads += rep->end.threads;
	}
	s->mem_before_kb += rep->mem_before.rss_kb;
	s->vm_hwm_kb += rep->mem_end.hwm_kb;
	s->vm_rss_kb += rep->mem_end.rss_kb;
	side_counters_add(&s->c, &rep->c);
	knobs_seen_merge(&s->sock, &rep->sock);
	tcp_info_dist_merge(&s->ti, &rep->ti);
	hist_merge(lat, &rep->lat);
	hist_merge(lat2, &rep->lat2);
}

int group_collect(struct client_group *g, struct side_result *s, struct hist *lat,
		  struct hist *lat2, int ms)
{
	struct client_report *rep = xmalloc(sizeof(*rep));
	int missing = 0;

	for (int i = 0; i < g->n; i++) {
		if (g->pipe[i] >= 0 && read_full(g->pipe[i], rep, sizeof(*rep), ms) == 0)
			add_client(s, lat, lat2, rep);
		else
			missing++;
		if (g->pipe[i] >= 0)
			close(g->pipe[i]);
		g->pipe[i] = -1;
		if (g->pid[i] > 0) {
			kill(g->pid[i],
			     SIGKILL); /* it has reported or is stuck: either way, done */
			waitpid(g->pid[i], NULL, 0);
			g->pid[i] = 0;
		}
	}
	free(rep);
	return missing;
}

void group_free(struct client_group *g)
{
	for (int i = 0; g->pid && i < g->n; i++) {
		if (g->pid[i] > 0) {
			kill(g->pid[i], SIGKILL);
			waitpid(g->pid[i], NULL, 0);
		}
		if (g->pipe[i] >= 0)
			close(g->pipe[i]);
	}
	free(g->pid);
	free(g->pipe);
	if (g->sh && g->sh->wake_fd >= 0)
		close(g->sh->wake_fd);
	if (g->sh)
		munmap(g->sh, g->shlen);
	g->pid = NULL;
	g->pipe = NULL;
	g->sh = NULL;
	g->n = 0;
}
