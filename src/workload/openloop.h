/* openloop.h: the open-loop driver's parts that the workloads share (--rate): the schedule of
 * sends (constant or Poisson arrivals from a seeded generator), the lag of the actual sends
 * behind it, the two latencies of an answer, and what a run of it reports: offered and
 * achieved rates and whether the generator held its load.
 *
 * Open loop, a request is due at its scheduled time whatever the answers do; its latency is
 * timed from that time (the corrected figure: a request that waited behind a stall counts the
 * wait, which a closed loop would omit) and, beside it, from its actual send (service time).
 * Memory and arithmetic only: the workload's client owns the sockets and the clock.
 */
#ifndef SB_OPENLOOP_H
#define SB_OPENLOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/hist.h"
#include "base/opts.h"
#include "measure/side.h"

struct result;
struct headline;

/* Requests in flight per client process under --rate, at most: a request due when this many
 * are unanswered is dropped by the generator (counted, and the run does not hold its load).
 * 65,536 is 0.65 s of a 100,000/s client's requests, answers in 100 ms at 655,000/s. */
#define OL_INFLIGHT_MAX 65536
/* The generator holds its load while it gets to (sends, or drops) at least 99% of what its
 * schedule put in the window and its p99 lag stays under 10 ms: past that, the tail the run reports is the
 * generator's own (its CPU, its scheduling), not the server's. */
#define OL_SENT_SHARE_MIN 0.99
/* --timeout under --rate unless given (udp-rr: the closed loop's is 200 ms, to replace
 * requests): an answer this late is still matched and timed, and the drain after the window
 * waits this long at most for the window's last requests. */
#define OL_TIMEOUT_MS 2000
#define OL_LAG_P99_MAX_NS 10000000ULL

struct ol_sched {
	uint64_t start_ns, next_ns; /* the first arrival; the next one due */
	double mean_ns;		    /* the mean interval */
	double t_ns;		    /* the next arrival, from start (Poisson: a running sum) */
	uint64_t k;		    /* arrivals taken so far */
	uint64_t rng;		    /* xorshift64* state, never 0 */
	bool poisson;
};

/* A schedule of rate arrivals per second (arrivals: ARRIVALS_CONSTANT or _POISSON), its first
 * due at start_ns (Poisson: one draw after it), drawn from seed (any value). Called in the
 * generator's own thread: it sets that thread's timer slack to 1 ns. */
void ol_sched_init(struct ol_sched *s, double rate, int arrivals, uint64_t seed,
		   uint64_t start_ns);
/* Take the arrival due now (s->next_ns) and move to the next. Constant: start + k x interval,
 * computed from k, so no error adds up. */
void ol_sched_take(struct ol_sched *s);
/* Arrivals due at or before now not yet taken (the backlog; Poisson: its expected size). */
uint64_t ol_sched_backlog(const struct ol_sched *s, uint64_t now);

/* The generator's own accounting over the window: every send's lag behind its due time. */
struct ol_lag {
	struct hist *h; /* caller allocates (setup, never the hot path) */
};
/* A request due at due went out at sent: its lag (0 when it went early or on time). */
static inline void ol_lag_note(struct ol_lag *l, uint64_t due, uint64_t sent)
{
	hist_record(l->h, sent > due ? sent - due : 0);
}
/* Into the process's counters: lag_p99_ns and lag_max_ns (the largest of those there). */
void ol_lag_report(const struct ol_lag *l, struct side_counters *c);

/* A generator: its schedule, its lag, and what the window holds of both. */
struct ol_gen {
	struct ol_sched sched;
	struct ol_lag lag;
	uint64_t taken, backlog_at_open; /* arrivals taken in the window; the backlog then */
	bool measuring;
};
/* Follow the window (measuring now or not): when it opens, start counting; when it closes,
 * put in c what the schedule held in it (scheduled: taken + the backlog then - the backlog at
 * its opening) and the lag of its sends (ol_lag_report). */
void ol_gen_follow(struct ol_gen *g, bool measuring, uint64_t now, struct side_counters *c);
/* Take the next arrival (due by now): its due time; counted in the window while measuring. */
static inline uint64_t ol_gen_take(struct ol_gen *g)
{
	uint64_t due = g->sched.next_ns;

	ol_sched_take(&g->sched);
	g->taken += g->measuring;
	return due;
}

/* An answer at done to a request due at due and sent at sent: the corrected latency (from
 * due) into lat, the service time (from sent) into svc. */
static inline void ol_record(struct hist *lat, struct hist *svc, uint64_t due, uint64_t sent,
			     uint64_t done)
{
	hist_record(lat, done > due ? done - due : 0);
	hist_record(svc, done > sent ? done - sent : 0);
}

/* The checks every open-loop workload makes: --arrivals needs --rate; --window and
 * --clients-on are refused with it (cap: what bounds the requests in flight instead, "65536 in
 * flight per client"). The reason (static text, or a static buffer this rewrites), or NULL. */
const char *ol_check(const struct opts *o, const char *cap, long window_default);
/* A describe line's start into buf: "CLIENTS client(s) x ", per ("2 flows x ", or ""), and the
 * load, "open loop at RATE/s (ARRIVALS)" under --rate, else "WINDOW " and closed (the closed
 * loop's words for its window: "in flight", "outstanding"). Returns the length written. */
size_t ol_describe_load(const struct opts *o, const char *per, const char *closed, char *buf,
			size_t len);
/* Did the generator hold its load? From the client side's counters of a window of seconds:
 * false, with the reason in why, when nothing was answered, it dropped requests, got to under
 * OL_SENT_SHARE_MIN of its schedule (issued against scheduled), or lagged past
 * OL_LAG_P99_MAX_NS at p99. Whose the lag is comes from run_delay_s, the time its threads
 * waited for a CPU over the window (-1: not known): at least the p99 lag, its own; else the
 * server held its sends up. */
bool ol_holding(const struct side_counters *c, double run_delay_s, char *why, size_t len);
struct side_result;
/* The run delay ol_holding compares one call with: a thread's, on average (the side's summed
 * over its threads: a thread can have waited only its own share of it). */
double ol_run_delay(const struct side_result *s);
/* The open-loop members of a run's report (offered and achieved rate, schedule lag, holding
 * load); nothing for a closed-loop run. */
void ol_headline(const struct result *r, struct headline *h);

#endif
