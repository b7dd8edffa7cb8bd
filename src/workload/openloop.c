/* openloop.c: the schedule of an open-loop client, its lag, and its verdict (openloop.h). */
#include "workload/openloop.h"

#include <math.h>
#include <stdio.h>
#include <sys/prctl.h>

#include "base/opts.h"
#include "base/util.h"
#include "measure/result.h"

/* xorshift64*, seeded through splitmix64 so that no seed gives the zero state. */
static uint64_t ol_rand(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1DULL;
}

static uint64_t ol_seed(uint64_t seed)
{
	uint64_t z = seed + 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return z ? z : 1;
}

/* An exponential interval of mean m: -m ln U, U uniform on (0, 1] from the top 53 bits. */
static double ol_exp(uint64_t *x, double m)
{
	double u = ((double)(ol_rand(x) >> 11) + 1.0) / 9007199254740992.0;

	return -m * log(u);
}

void ol_sched_init(struct ol_sched *s, double rate, int arrivals, uint64_t seed,
		   uint64_t start_ns)
{
	/* The generator's thread sleeps until its next due time: with the default timer slack
	 * (50 us) each wake may come that much late, and the lag is counted in every latency. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	*s = (struct ol_sched){.start_ns = start_ns, .mean_ns = 1e9 / rate, .rng = ol_seed(seed),
			       .poisson = arrivals == ARRIVALS_POISSON};
	s->t_ns = s->poisson ? ol_exp(&s->rng, s->mean_ns) : 0;
	s->next_ns = start_ns + (uint64_t)s->t_ns;
}

void ol_sched_take(struct ol_sched *s)
{
	s->k++;
	if (s->poisson)
		s->t_ns += ol_exp(&s->rng, s->mean_ns);
	else
		s->t_ns = (double)s->k * s->mean_ns;
	s->next_ns = s->start_ns + (uint64_t)llround(s->t_ns);
}

uint64_t ol_sched_backlog(const struct ol_sched *s, uint64_t now)
{
	if (s->next_ns > now)
		return 0;
	return (uint64_t)((double)(now - s->next_ns) / s->mean_ns) + 1;
}

void ol_lag_report(const struct ol_lag *l, struct side_counters *c)
{
	uint64_t p99 = hist_percentile(l->h, 99);

	if (!l->h->count)
		return;
	c->lag_p99_ns = p99 > c->lag_p99_ns ? p99 : c->lag_p99_ns;
	c->lag_max_ns = l->h->max > c->lag_max_ns ? l->h->max : c->lag_max_ns;
}

void ol_gen_follow(struct ol_gen *g, bool measuring, uint64_t now, struct side_counters *c)
{
	if (measuring && !g->measuring) {
		g->taken = 0;
		g->backlog_at_open = ol_sched_backlog(&g->sched, now);
	} else if (!measuring && g->measuring) {
		uint64_t due = g->taken + ol_sched_backlog(&g->sched, now);

		c->scheduled += due > g->backlog_at_open ? due - g->backlog_at_open : 0;
		c->issued += g->taken;
		ol_lag_report(&g->lag, c);
	}
	g->measuring = measuring;
}

/* Whose the lateness of the sends is. One send or connect of the generator that took half the
 * p99 lag or more (a full send buffer, an exchange the server did not answer) is the server's,
 * unless a thread of it waited runnable for a CPU (schedstat run delay over the window, on
 * average: run_delay_s) at least that long: then the call was long because it was off its CPU
 * (measured here: two busy loops beside a niced generator made a 372 ms send, with 2.6 s of run
 * delay over 3 threads; a stopped server a 223 ms one, with 0.15 s). Else the lag is the
 * generator's own. */
static const char *lag_blame(const struct side_counters *c, double run_delay_s, char *buf,
			     size_t len)
{
	if (c->held_max_ns && 2 * c->held_max_ns >= c->lag_p99_ns &&
	    run_delay_s * 1e9 < (double)c->held_max_ns)
		snprintf(buf, len, "one of its calls waited %.1f ms on the server (a full send "
			 "buffer, an exchange not answered): the server held it up and set the tail",
			 (double)c->held_max_ns / 1e6);
	else if (run_delay_s >= 0)
		snprintf(buf, len, "its threads waited %.1f ms each runnable for a CPU (schedstat), and "
			 "its longest call %.1f ms: its own CPU or scheduling, not the server, set the "
			 "tail", run_delay_s * 1e3, (double)c->held_max_ns / 1e6);
	else
		snprintf(buf, len, "no call of it waited on the server that long: its own CPU or "
			 "scheduling, not the server, set the tail");
	return buf;
}

bool ol_holding(const struct side_counters *c, double run_delay_s, char *why, size_t len)
{
	double sched = (double)c->scheduled, sent = (double)c->issued;
	char blame[200], v[32], w[32];

	snprintf(why, len, "%s", "");
	if (!c->transactions && c->lost) {
		snprintf(why, len, "no request of the window was answered (%s unanswered or "
			 "failed)", fmt_sep(v, sizeof(v), (double)c->lost, 0));
		return false;
	}
	if (c->gen_dropped) {
		snprintf(why, len, "the generator dropped %s requests: %d in flight per client is "
			 "its limit", fmt_sep(v, sizeof(v), (double)c->gen_dropped, 0),
			 OL_INFLIGHT_MAX);
		return false;
	}
	if (sched > 0 && sent < OL_SENT_SHARE_MIN * sched) {
		snprintf(why, len, "the generator fell behind its schedule: it got to %s of the %s "
			 "requests due in the window (%.1f%%); %s", fmt_sep(v, sizeof(v), sent, 0),
			 fmt_sep(w, sizeof(w), sched, 0), 100 * sent / sched,
			 lag_blame(c, run_delay_s, blame, sizeof(blame)));
		return false;
	}
	if (c->lag_p99_ns > OL_LAG_P99_MAX_NS) {
		snprintf(why, len, "the generator's sends lagged their schedule by %.1f ms at p99 "
			 "(over %.0f ms); %s", (double)c->lag_p99_ns / 1e6, OL_LAG_P99_MAX_NS / 1e6,
			 lag_blame(c, run_delay_s, blame, sizeof(blame)));
		return false;
	}
	return true;
}

double ol_run_delay(const struct side_result *s)
{
	return s->threads > 1 ? s->run_delay_s / s->threads : s->run_delay_s;
}

void ol_headline(const struct result *r, struct headline *h)
{
	const struct side_counters *c = &r->client.c;
	char why[400], v[32];

	if (!result_open_loop(r))
		return;
	bool ok = ol_holding(c, ol_run_delay(&r->client), why, sizeof(why));
	double d = r->duration_s;

	headline_row(h, "offered rate (/s)", (double)r->cfg->rate, 0, "%s arrivals",
		     OPT_WORD(r->cfg, arrivals));
	headline_row(h, "achieved rate (/s)", result_per_s(c->transactions, d), 0,
		     "answered; sent %s/s",
		     fmt_sep(v, sizeof(v), result_per_s(c->tx_packets, d), 0));
	headline_row(h, "schedule lag p99 (us)", (double)c->lag_p99_ns / 1e3, 1, "max %s",
		     fmt_sep(v, sizeof(v), (double)c->lag_max_ns / 1e3, 1));
	headline_row(h, "holding load", NAN, 0, "%s%s%s", ok ? "yes" : "NO", ok ? "" : ": ", why);
	headline_key(h, "offered_rate", (double)r->cfg->rate, 3);
	headline_key(h, "achieved_rate", result_per_s(c->transactions, d), 3);
	headline_key(h, "sent_rate", result_per_s(c->tx_packets, d), 3);
	headline_key(h, "scheduled", (double)c->scheduled, 0);
	headline_key(h, "dropped_by_generator", (double)c->gen_dropped, 0);
	headline_key(h, "schedule_lag_us.p99", (double)c->lag_p99_ns / 1e3, 3);
	headline_key(h, "schedule_lag_us.max", (double)c->lag_max_ns / 1e3, 3);
	headline_key_bool(h, "holding_load", ok);
	headline_key_text(h, "holding_load_reason", ok ? NULL : why);
}

/* By value, not by OPT_IS_SET: an agent's options come from the controller's config, which
 * names every key (the controller has checked what was given). */
size_t ol_describe_load(const struct opts *o, const char *per, const char *closed, char *buf,
			size_t len)
{
	int k = snprintf(buf, len, "%ld client%s x %s", o->clients, o->clients > 1 ? "s" : "", per);

	if (k >= 0 && (size_t)k < len && o->rate)
		k += snprintf(buf + k, len - (size_t)k, "open loop at %ld/s (%s)", o->rate,
			      OPT_WORD(o, arrivals));
	else if (k >= 0 && (size_t)k < len)
		k += snprintf(buf + k, len - (size_t)k, "%ld %s", o->window, closed);
	return k < 0 ? 0 : (size_t)k < len ? (size_t)k : len - 1;
}

const char *ol_check(const struct opts *o, const char *cap, long window_default)
{
	static char why[200];

	if (!o->rate)
		return o->arrivals ? "--arrivals needs --rate (the closed loop has no schedule)"
				   : NULL;
	if (o->window != window_default) {
		snprintf(why, sizeof(why), "--window is the closed loop's: with --rate every request "
			 "is sent on its schedule, up to %s", cap);
		return why;
	}
	if (o->clients_on)
		return "--rate is not applicable with --clients-on yet";
	return NULL;
}
