/* clients.c: the client processes: forked, waited for, watched during the window (a dead or
 * stopped client, a fatal error one raised, a stall), and their reports gathered. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "base/util.h"
#include "link/ctl.h"
#include "run/run_priv.h"

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

int fork_clients(struct run *r)
{
	r->nclients = (int)r->o->clients;
	r->cpid = xcalloc((size_t)r->nclients, sizeof(*r->cpid));
	r->cpipe = xcalloc((size_t)r->nclients, sizeof(*r->cpipe));
	for (int i = 0; i < r->nclients; i++)
		r->cpipe[i] = -1;
	for (int i = 0; i < r->nclients; i++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0)
			return run_fail(r, errno, false, "pipe: %s", strerror(errno));
		fflush(NULL);
		r->cpid[i] = fork();
		if (r->cpid[i] < 0) {
			int e = errno;

			r->cpid[i] = 0;
			close(p[0]);
			close(p[1]);
			return run_fail(r, e, false, "fork client %d: %s", i + 1, strerror(e));
		}
		if (r->cpid[i] == 0) {
			child_setup();
			close(p[0]);
			close(r->ctl);
			run_client(r, i, p[1]);
		}
		close(p[1]);
		r->cpipe[i] = p[0];
	}
	return 0;
}

/* The first client that has exited, or -1. */
int dead_client(struct run *r)
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
static int client_failed(struct run *r, int i)
{
	struct client_report *rep = xcalloc(1, sizeof(*rep));
	int ret;

	if (read_full(r->cpipe[i], rep, sizeof(*rep), 1000) == 0 && rep->err)
		ret = run_fail(r, rep->err, false, "client %d: %s", i + 1,
			       rep->msg[0] ? rep->msg : strerror(rep->err));
	else
		ret = run_fail(r, ECHILD, false, "client %d exited during setup", i + 1);
	free(rep);
	return ret;
}

int wait_ready(struct run *r)
{
	uint64_t deadline = now_ns() + (uint64_t)START_MS * 1000000;
	struct timespec step = {0, 1000000};

	while (atomic_load(&r->sh->ready) < r->nclients) {
		int dead = dead_client(r);

		if (dead >= 0)
			return client_failed(r, dead);
		if (run_sig)
			return run_fail(r, EINTR, false, "interrupted during setup");
		if (now_ns() > deadline)
			return run_fail(r, ETIMEDOUT, false, "the clients did not open their sockets "
					"within %d s", START_MS / 1000);
		nanosleep(&step, NULL);
	}
	return 0;
}

/* A fatal data-path error a client raised: the run cannot go on, and the user must know why. */
const char *check_fatal(struct run *r)
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
uint64_t progress_sum(const struct run *r)
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
void stall_end(struct run *r, uint64_t now)
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
void stall_watch(struct run *r)
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

static void add_client(struct result *res, const struct client_report *rep)
{
	struct side_result *s = &res->client;
	double user, sys, wall, slept, preempted;

	s->present = true;
	s->processes++;
	if (rep->began && rep->ended) {
		cpu_mark_delta(&rep->begin, &rep->end, &user, &sys, &wall);
		s->user_s += user;
		s->sys_s += sys;
		cpu_mark_switches(&rep->begin, &rep->end, &slept, &preempted);
		s->vcsw += slept;
		s->ivcsw += preempted;
	}
	side_counters_add(&s->c, &rep->c);
	hist_merge(res->lat, &rep->lat);
	hist_merge(res->lat2, &rep->lat2);
}

void collect_clients(struct run *r)
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
