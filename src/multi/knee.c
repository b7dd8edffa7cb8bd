/* knee.c: the knee of a workload driven open loop (--rate): the highest offered rate whose
 * chosen percentile stays within the SLO and whose run holds its load.
 *
 * A bounded search: a geometric ramp (x2) from a low rate until a run fails, bisection (at the
 * geometric middle) between the last rate that passed and the first that failed until they
 * are 15% apart, then two more runs at each of those two, so the verdict on the knee rests on
 * three runs with an interval of the median of its percentile (stats.h). Each run is a child
 * of its own (run_isolated), its window fitted to the budget. A run passes when it is whole,
 * holds its load, answered at least 98% of its offered rate (the rest is loss or a server
 * that cannot keep up), lost fewer requests than the percentile leaves above it (a lost
 * request is one slower than any limit), and its percentile is within the limit.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "multi/knee.h"
#include "multi/knee_priv.h"
#include "multi/repeat.h"
#include "multi/stats.h"
#include "multi/wl_help.h"
#include "workload/openloop.h"
#include "report/out.h"

#define PLANNED_RUNS 14		/* ramp, bisection and repeats of a typical search */
#define RUN_OVERHEAD_S 0.8	/* start, warm-up and teardown of a run, before one is measured */
#define WARMUP_S 0.5
#define MIN_RUN_S 0.5
#define ACHIEVED_MIN 0.98
#define BISECT_RATIO 1.15
/* A rate passes only if under this share of its window's requests went unanswered or failed
 * (and under what its percentile leaves above it): a server that drops one request in a
 * thousand is past its knee whatever its percentile says. */
#define KNEE_LOSS_MAX 0.001

const struct opt_def knee_flags[] = {
	{OWN_FLAG(STR, struct knee, slo, "slo", 0, 0, "pNN=LIMIT",
		  "percentile 50, 90, 99, 99.9 or 99.99 and its limit in us, ms or s"),
	 .def = "p99=1ms"},
	{OWN_FLAG(INT, struct knee, max_rate, "max-rate", 1, 100000000, "N",
		  "the highest rate tried"),
	 .def = "1000000"},
	{OWN_FLAG(INT, struct knee, min_rate, "min-rate", 1, 100000000, "N",
		  "the first rate of the ramp"),
	 .def = "1000"},
	{OWN_FLAG(DBL, struct knee, budget, "budget", 5, 86400, "S",
		  "total time; each run's window is fitted to it"),
	 .def = "60"},
	{OWN_FLAG(STR, struct knee, plot, "plot", 0, 0, "FILE.svg",
		  "p50, p99 and p99.9 against the offered rate (gnuplot)")},
	{0},
};

static void knee_usage(void)
{
	static const struct cmd_usage u = {
	    .cmd = "knee",
	    .args = "WORKLOAD",
	    .more = "[--json] [workload flags]",
	    .summary = "Finds the highest open-loop rate (--rate) whose percentile stays within the "
		       "SLO and whose run holds its load: a x2 ramp from --min-rate, bisection to "
		       "within 15%, then two more runs at the last rate that passed and the first "
		       "that failed.",
	};

	opts_usage_cmd(knee_flags, &u, stdout);
}

/* The SLO "pNN=VALUE[us|ms|s]" as a percentile (one the report gives: 50, 90, 99, 99.9,
 * 99.99) and a limit in microseconds: 0, or -1 when it is not one. */
static int knee_parse_slo(const char *s, double *pct, double *limit_us)
{
	char *end;

	if (s[0] != 'p')
		return -1;
	*pct = strtod(s + 1, &end);
	if (end == s + 1 || *end != '=' || !knee_pct_key(*pct))
		return -1;
	s = end + 1;
	*limit_us = strtod(s, &end);
	if (end == s || !(*limit_us > 0))
		return -1;
	if (!strcmp(end, "ms"))
		*limit_us *= 1e3;
	else if (!strcmp(end, "s"))
		*limit_us *= 1e6;
	else if (strcmp(end, "us") && *end)
		return -1;
	return 0;
}

static double jnum(const cJSON *d, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(d, a);

	if (b)
		x = cJSON_GetObjectItemCaseSensitive(x, b);
	return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

static void read_point(struct knee *k, struct knee_pt *p, const cJSON *d)
{
	const cJSON *sides = cJSON_GetObjectItemCaseSensitive(d, "sides"), *it;
	const cJSON *lat = cJSON_GetObjectItemCaseSensitive(d, "latency_us");
	const cJSON *why = cJSON_GetObjectItemCaseSensitive(d, "holding_load_reason");

	p->achieved = jnum(d, "achieved_rate", NULL);
	p->p50 = jnum(d, "latency_us", "p50");
	p->p99 = jnum(d, "latency_us", "p99");
	p->p999 = jnum(d, "latency_us", "p999");
	p->pslo = jnum(d, "latency_us", knee_pct_key(k->pct));
	p->lag99 = jnum(d, "schedule_lag_us", "p99");
	p->cpu_c = jnum(cJSON_GetObjectItemCaseSensitive(sides, "client"), "cpu_us_per_unit", NULL);
	p->cpu_s = jnum(cJSON_GetObjectItemCaseSensitive(sides, "server"), "cpu_us_per_unit", NULL);
	p->holding = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "holding_load"));
	snprintf(p->holding_why, sizeof(p->holding_why), "%s",
		 cJSON_IsString(why) ? why->valuestring : "the generator did not hold its load");
	/* Every request the window sent is in the latencies, the unanswered at their wait. */
	p->lost_share = jnum(d, "latency_us", "unanswered_share");
	if (isnan(p->lost_share))
		p->lost_share = 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(lat, "at_least"))
		if (cJSON_IsString(it) && !strcmp(it->valuestring, knee_pct_key(k->pct)))
			p->pslo_at_least = true;
}

/* A lossy point: the limit it is over, where it is, and whether its percentile falls among
 * the requests it lost. */
static void lost_why(const struct knee *k, const struct knee_pt *p, char *why, size_t len)
{
	char over[32] = "", among[48] = "";

	if (p->lost_share > KNEE_LOSS_MAX)
		snprintf(over, sizeof(over), " (over %g%%)", 100 * KNEE_LOSS_MAX);
	if (p->lost_share * 100 >= 100 - k->pct)
		snprintf(among, sizeof(among), ": the p%g falls among them", k->pct);
	snprintf(why, len, "lost %.3f%% of requests%s%s", 100 * p->lost_share, over, among);
}

static bool passes(const struct knee *k, const struct knee_pt *p, char *why, size_t len)
{
	if (p->status == RUN_FAILED)
		return false; /* why: the run's own */
	char held[sizeof(p->holding_why)];

	memcpy(held, p->holding_why, sizeof(held));
	if (!p->holding)
		snprintf(why, len, "not holding: %s", held);
	else if (p->status != RUN_WHOLE)
		snprintf(why, len, "partial");
	else if (!(p->achieved >= ACHIEVED_MIN * p->offered))
		snprintf(why, len, "answered %.0f/s of %.0f/s", p->achieved, p->offered);
	else if (p->lost_share * 100 >= 100 - k->pct || p->lost_share > KNEE_LOSS_MAX)
		lost_why(k, p, why, len);
	else if (p->pslo_at_least)
		snprintf(why, len, "p%g at least %.0f us: its rank falls among requests with no answer",
			 k->pct, p->pslo);
	else if (!(p->pslo <= k->limit_us) && p->lag99 >= k->limit_us / 2)
		/* Half the limit is the generator's own lateness: the run says more of the load
		 * generator (its CPU, its wake-ups) than of the server's answers. */
		snprintf(why, len, "p%g %.0f us over %.0f us, the generator's own lag p99 %.0f us: "
			 "its schedule, not the server", k->pct, p->pslo, k->limit_us, p->lag99);
	else if (!(p->pslo <= k->limit_us))
		snprintf(why, len, "p%g %.0f us over %.0f us", k->pct, p->pslo, k->limit_us);
	else
		return true;
	return false;
}

static double left_s(const struct knee *k)
{
	return k->budget - ns_to_s(now_ns() - k->t0);
}

/* One run at rate; false when there is no room or time for it (or a signal came). */
static bool measure(struct knee *k, double rate, bool *pass)
{
	struct knee_pt *p = &k->pt[k->n];
	cJSON *doc = NULL;

	if (k->n == MAX_PTS || left_s(k) < k->run_s + WARMUP_S + k->overhead_s || run_interrupted())
		return false;
	progress_line("knee: run", NULL, k->n, PLANNED_RUNS, k->t0);
	*p = (struct knee_pt){.offered = rate};
	k->o.rate = (long)rate;
	k->o.duration = k->run_s;
	k->o.warmup = WARMUP_S;
	uint64_t t = now_ns();

	p->status = run_isolated(k->wl, &k->o, &doc, p->why, sizeof(p->why));
	if (doc)
		read_point(k, p, doc);
	cJSON_Delete(doc);
	p->pass = passes(k, p, p->why, sizeof(p->why));
	double o = ns_to_s(now_ns() - t) - k->run_s - WARMUP_S;

	k->overhead_s = o > k->overhead_s ? o : k->overhead_s;
	k->n++;
	*pass = p->pass;
	return true;
}

/* Ramp, bisect, repeat; *lo: the highest rate that passed (0: none), *hi: the lowest that
 * failed (0: none up to --max-rate). */
static void search(struct knee *k, double *lo, double *hi)
{
	bool pass;

	*lo = *hi = 0;
	for (double r = (double)k->min_rate; r <= (double)k->max_rate; r *= 2) {
		if (!measure(k, r, &pass))
			return;
		if (!pass) {
			*hi = r;
			break;
		}
		*lo = r;
	}
	while (*lo && *hi && *hi / *lo > BISECT_RATIO) {
		double mid = round(sqrt(*lo * *hi));

		if (!measure(k, mid, &pass))
			return;
		*(pass ? lo : hi) = mid;
	}
	for (int rep = 0; rep < 2; rep++)
		for (int side = 0; side < 2; side++)
			if ((side ? *hi : *lo) && !measure(k, side ? *hi : *lo, &pass))
				return;
}

long knee_lower_min_rate(const struct knee *k)
{
	double lowest = INFINITY, got = INFINITY, s;
	bool ran = false;

	for (int i = 0; i < k->n; i++)
		lowest = k->pt[i].offered < lowest ? k->pt[i].offered : lowest;
	for (int i = 0; i < k->n; i++) {
		if (k->pt[i].offered != lowest || k->pt[i].status == RUN_FAILED)
			continue;
		ran = true;
		if (k->pt[i].achieved < got) /* NaN: not taken */
			got = k->pt[i].achieved;
	}
	if (!ran) /* no run of it measured anything (no agent, ...): its rate is not why */
		return 0;
	s = lowest / 2;
	/* It answered that much less: the knee is under what it answered, but no lower than a
	 * tenth of the lowest (a ramp from there is back at the lowest in four runs), where it
	 * answered nearly nothing. */
	if (got < ACHIEVED_MIN * lowest && got / 2 < s)
		s = got / 2 > lowest / 10 ? got / 2 : lowest / 10;
	return s < 1 ? 1 : (long)s;
}

static int by_offered(const void *a, const void *b)
{
	double x = ((const struct knee_pt *)a)->offered, y = ((const struct knee_pt *)b)->offered;

	return x < y ? -1 : x > y;
}

int cmd_knee(int argc, char **argv)
{
	struct knee *k;
	char err[512], **rest;
	int nrest;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		knee_usage();
		return argc < 2 ? 2 : 0;
	}
	k = xcalloc(1, sizeof(*k));
	rest = xcalloc((size_t)argc + 3, sizeof(char *));
	k->wl = workload_or_exit("knee", argv[1]);
	wl_help_or_return("knee", k->wl, argc - 2, argv + 2);
	opts_own_defaults(knee_flags, k);
	/* The workload's flags are checked as an open-loop run's (the search sets the rate). */
	char first[24];

	snprintf(first, sizeof(first), "%ld", k->min_rate);
	nrest = opts_take(knee_flags, k, &(struct opts_words){argc - 2, argv + 2}, rest + 3, err,
			  sizeof(err));
	if (nrest < 0)
		die_usage("knee: %s", err);
	if (knee_parse_slo(k->slo, &k->pct, &k->limit_us))
		die_usage("knee: --slo %s: give a percentile of 50, 90, 99, 99.9 or 99.99 and a limit, "
			  "as p99=1ms (us, ms or s)", k->slo);
	if (!opt_find(k->wl->opts, "rate", 4) || k->wl->units)
		die_usage("knee: %s has no open-loop mode (--rate): try udp-rr", k->wl->name);
	if (k->min_rate > k->max_rate)
		die_usage("knee: --min-rate %ld is over --max-rate %ld", k->min_rate, k->max_rate);
	rest[0] = argv[1];
	rest[1] = "--rate";
	rest[2] = first;
	workload_parse_or_exit(k->wl, nrest + 3, rest, &k->o);
	bool json = k->o.json;

	/* Unless given: a request unanswered 4 x the limit (100 ms at least, the open loop's
	 * default at most) is past any SLO and counted at that wait, so a rate that loses
	 * requests does not wait out the default in every run's drain. */
	if (!OPT_IS_SET(&k->o, timeout)) {
		double ms = 4 * k->limit_us / 1e3;

		k->o.timeout = (long)(ms < 100 ? 100 : ms > OL_TIMEOUT_MS ? OL_TIMEOUT_MS : ms);
		k->o.set[OPT_ID_timeout] = true;
	}

	k->run_s = k->budget / PLANNED_RUNS - WARMUP_S - RUN_OVERHEAD_S;
	k->run_s = k->run_s < MIN_RUN_S ? MIN_RUN_S : k->run_s;
	k->overhead_s = RUN_OVERHEAD_S;
	k->t0 = now_ns();
	run_signals_keep();

	double lo, hi;

	search(k, &lo, &hi);
	progress_clear();
	qsort(k->pt, (size_t)k->n, sizeof(k->pt[0]), by_offered);
	int rc = json ? knee_print_json(k, lo, hi) : knee_print_table(k, lo, hi);
	long lower = rc ? knee_lower_min_rate(k) : 0;

	char low[32];

	if (json && lower > 0 && lower < k->min_rate) /* the table says it in its last line */
		fprintf(stderr, "sockbench: knee: the lowest rate tried, %s/s, failed already: try "
			"--min-rate %ld\n", fmt_sep(low, sizeof(low), (double)k->min_rate, 0), lower);

	if (k->plot && knee_plot(k))
		rc = 1;
	opts_free(&k->o);
	free(k->slo);
	free(k->plot);
	free(rest);
	free(k);
	return rc;
}
