/* Open loop (workload/openloop.h): the schedule's times (constant: exact, no drift; Poisson:
 * its mean rate within 4 sigma of the count, with a fixed seed), the backlog, lag accounting
 * and its merge, the verdict, and the corrected latency against the service time on a
 * synthetic stall of the generator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "base/opts.h"
#include "measure/result.h"
#include "workload/openloop.h"

static void constant_exact(void **st)
{
	struct ol_sched s;

	(void)st;
	ol_sched_init(&s, 1000, ARRIVALS_CONSTANT, 1, 5000);
	for (uint64_t k = 0; k < 10000; k++) {
		assert_int_equal(s.next_ns, 5000 + k * 1000000);
		ol_sched_take(&s);
	}
	/* 3/s: 333,333,333.3 ns apart; every third lands on a whole second, whatever k is. */
	ol_sched_init(&s, 3, ARRIVALS_CONSTANT, 1, 0);
	for (uint64_t k = 0; k < 3000; k++) {
		if (k % 3 == 0)
			assert_int_equal(s.next_ns, k / 3 * 1000000000ULL);
		ol_sched_take(&s);
	}
}

/* The span of n exponential intervals of mean m has mean n m and sd sqrt(n) m: the rate they
 * give is within 4 sd of the asked one (a false failure 6 times in 100,000 seeds; the seed
 * is fixed, so it passes or fails for good). The same seed gives the same times. */
static void poisson_mean(void **st)
{
	const double rate = 10000, m = 1e9 / rate;
	const uint64_t n = 100000;
	struct ol_sched s, t;
	double sumsq = 0, prev = 0;

	(void)st;
	ol_sched_init(&s, rate, ARRIVALS_POISSON, 42, 0);
	ol_sched_init(&t, rate, ARRIVALS_POISSON, 42, 0);
	for (uint64_t k = 0; k < n; k++) {
		double d = (double)s.next_ns - prev;

		assert_int_equal(s.next_ns, t.next_ns);
		sumsq += d * d;
		prev = (double)s.next_ns;
		ol_sched_take(&s);
		ol_sched_take(&t);
	}
	double span = prev, sd = sqrt((double)n) * m;

	assert_true(fabs(span - (double)n * m) <= 4 * sd);
	/* Exponential: E[d^2] = 2 m^2 (a constant schedule would give m^2). */
	assert_true(fabs(sumsq / (double)n / (m * m) - 2) < 0.1);
	ol_sched_init(&t, rate, ARRIVALS_POISSON, 43, 0);
	ol_sched_init(&s, rate, ARRIVALS_POISSON, 42, 0);
	assert_true(t.next_ns != s.next_ns);
}

static void backlog(void **st)
{
	struct ol_sched s;

	(void)st;
	ol_sched_init(&s, 1000, ARRIVALS_CONSTANT, 1, 0);
	assert_int_equal(ol_sched_backlog(&s, 10500000), 11); /* due at 0, 1, ..., 10 ms */
	for (int k = 0; k < 11; k++)
		ol_sched_take(&s);
	assert_int_equal(ol_sched_backlog(&s, 10500000), 0);
	assert_int_equal(ol_sched_backlog(&s, 11000000), 1);
}

/* Lags of 0..999 us: p99 is 989-990 us (within a bucket), max 999 us; an early send is 0. Two
 * processes' lags add up as the larger, not the sum. */
static void lag_accounting(void **st)
{
	struct ol_lag l = {.h = malloc(sizeof(struct hist))};
	struct side_counters a = {0}, b = {0};

	(void)st;
	hist_reset(l.h);
	for (uint64_t i = 0; i < 1000; i++)
		ol_lag_note(&l, 1000000, 1000000 + i * 1000);
	ol_lag_note(&l, 5000, 4000);
	ol_lag_report(&l, &a);
	assert_true(a.lag_p99_ns >= 985000 && a.lag_p99_ns <= 994000);
	assert_int_equal(a.lag_max_ns, 999000);
	assert_int_equal(l.h->min, 0);
	b.lag_p99_ns = 5000;
	b.lag_max_ns = 2000000;
	b.scheduled = 10;
	a.scheduled = 5;
	side_counters_add(&a, &b);
	assert_true(a.lag_p99_ns >= 985000 && a.lag_p99_ns <= 994000);
	assert_int_equal(a.lag_max_ns, 2000000);
	assert_int_equal(a.scheduled, 15);
	free(l.h);
}

/* The window holds the arrivals due inside it, whatever the generator took by its edges:
 * 1000/s from 0; the window opens at 2.5 ms with 3 due and not taken, the generator takes 10
 * (0-9 ms), the window closes at 12.5 ms with 3 more due: 3..12 ms, 10 of them. */
static void window_edges(void **st)
{
	struct ol_gen g = {.lag.h = malloc(sizeof(struct hist))};
	struct side_counters c = {0};

	(void)st;
	hist_reset(g.lag.h);
	ol_sched_init(&g.sched, 1000, ARRIVALS_CONSTANT, 1, 0);
	ol_gen_follow(&g, false, 0, &c);
	ol_gen_follow(&g, true, 2500000, &c);
	for (int k = 0; k < 10; k++) {
		uint64_t due = ol_gen_take(&g);

		assert_int_equal(due, (uint64_t)k * 1000000);
		ol_lag_note(&g.lag, due, 2500000 + (uint64_t)k * 1000000);
	}
	ol_gen_follow(&g, false, 12500000, &c);
	assert_int_equal(c.scheduled, 10);
	assert_int_equal(c.issued, 10);
	assert_int_equal(c.lag_max_ns, 2500000);
	ol_gen_follow(&g, false, 20000000, &c); /* no edge: nothing added */
	assert_int_equal(c.scheduled, 10);
	free(g.lag.h);
}

/* A describe line's start: clients, what each carries, and the load, closed or open; cut to
 * the buffer, and the length it returns is what it wrote. */
static void describe_load(void **st)
{
	struct opts o = {.clients = 2, .window = 100};
	char buf[80];

	(void)st;
	assert_int_equal(ol_describe_load(&o, "", "outstanding", buf, sizeof(buf)), 27);
	assert_string_equal(buf, "2 clients x 100 outstanding");
	o.clients = 1;
	o.rate = 5000;
	ol_describe_load(&o, "3 flows x ", "in flight", buf, sizeof(buf));
	assert_string_equal(buf, "1 client x 3 flows x open loop at 5000/s (constant)");
	assert_int_equal(ol_describe_load(&o, "", "in flight", buf, 16), 15);
	assert_string_equal(buf, "1 client x open");
	assert_int_equal(ol_describe_load(&o, "3 flows x ", "in flight", buf, 8), 7);
	assert_string_equal(buf, "1 clien");
}

static void verdict(void **st)
{
	struct side_counters c = {.scheduled = 10000, .issued = 9950, .lag_p99_ns = 50000};
	char why[400];

	(void)st;
	assert_true(ol_holding(&c, -1, why, sizeof(why)));
	assert_string_equal(why, "");
	c.issued = 9899; /* under 99% of the schedule */
	assert_false(ol_holding(&c, -1, why, sizeof(why)));
	assert_non_null(strstr(why, "fell behind"));
	assert_non_null(strstr(why, "it got to 9,899 of the 10,000 requests")); /* separators */
	c.issued = 10000;
	c.lag_p99_ns = OL_LAG_P99_MAX_NS + 1;
	assert_false(ol_holding(&c, -1, why, sizeof(why)));
	assert_non_null(strstr(why, "p99"));
	/* Whose the lag is (p99 20 ms): a call blocked on the server for half of it or more is
	 * the server's, whatever the run delay; shorter, the generator's, with its run delay. */
	c.lag_p99_ns = 20000000;
	c.held_max_ns = 10000000;
	assert_false(ol_holding(&c, 0.005, why, sizeof(why)));
	assert_non_null(strstr(why, "the server held it up"));
	assert_null(strstr(why, "its own CPU"));
	c.held_max_ns = 9999999;
	assert_false(ol_holding(&c, 0.005, why, sizeof(why)));
	assert_non_null(strstr(why, "its own CPU"));
	assert_non_null(strstr(why, "5.0 ms each runnable"));
	/* A long call while the threads waited longer for a CPU: off its CPU, not held up. */
	c.held_max_ns = 15000000;
	assert_false(ol_holding(&c, 0.015, why, sizeof(why)));
	assert_non_null(strstr(why, "its own CPU"));
	assert_false(ol_holding(&c, 0.0149, why, sizeof(why)));
	assert_non_null(strstr(why, "the server held it up"));
	c.held_max_ns = 0;
	/* The run delay a call is held against is a thread's, on average: 0.9 s over 3 threads
	 * is 0.3 s each (a 0.5 s call is then the server's), over none the sum. */
	struct side_result s3 = {.run_delay_s = 0.9, .threads = 3}, s0 = {.run_delay_s = 0.9};

	assert_true(fabs(ol_run_delay(&s3) - 0.3) < 1e-12);
	assert_true(fabs(ol_run_delay(&s0) - 0.9) < 1e-12);
	c.held_max_ns = 500000000;
	c.lag_p99_ns = 600000000;
	assert_false(ol_holding(&c, ol_run_delay(&s3), why, sizeof(why)));
	assert_non_null(strstr(why, "the server held it up"));
	assert_false(ol_holding(&c, s3.run_delay_s, why, sizeof(why))); /* the sum would say CPU */
	assert_non_null(strstr(why, "its own CPU"));
	c.held_max_ns = 0;
	c.lag_p99_ns = 0;
	c.gen_dropped = 1;
	assert_false(ol_holding(&c, -1, why, sizeof(why)));
	assert_non_null(strstr(why, "dropped"));
	/* Nothing answered, only lost: never holding, whatever else says. */
	c.gen_dropped = 0;
	c.lost = 5;
	assert_false(ol_holding(&c, 0, why, sizeof(why)));
	assert_non_null(strstr(why, "no request"));
	c.transactions = 1;
	assert_true(ol_holding(&c, 0, why, sizeof(why)));
}

/* 2000/s for 3 s; the generator stalls from 1.0 to 1.3 s (what a closed loop's sender would
 * be doing while its server stalled): the 600 requests due then go at 1.3 s, each answered
 * 100 us after it went. From the scheduled time, the top 1% (60 requests) waited at least
 * 300 - 60 x 0.5 = 270 ms; from the actual send, every answer took 100 us (+0.4%, a bucket). */
static void corrected_vs_service(void **st)
{
	struct hist *lat = malloc(sizeof(*lat)), *svc = malloc(sizeof(*svc));
	struct ol_lag l = {.h = malloc(sizeof(struct hist))};
	struct ol_sched s;
	struct side_counters c = {0};
	char why[400];

	(void)st;
	hist_reset(lat);
	hist_reset(svc);
	hist_reset(l.h);
	ol_sched_init(&s, 2000, ARRIVALS_CONSTANT, 1, 0);
	while (s.next_ns < 3000000000ULL) {
		uint64_t due = s.next_ns;
		uint64_t sent = due >= 1000000000 && due < 1300000000 ? 1300000000 : due;

		ol_sched_take(&s);
		ol_lag_note(&l, due, sent);
		ol_record(lat, svc, due, sent, sent + 100000);
		c.scheduled++;
		c.issued++;
	}
	assert_int_equal(lat->count, 6000);
	assert_true(hist_percentile(lat, 99) >= 270000000 * 0.996);
	assert_true(hist_percentile(lat, 50) <= 100000 * 1.004);
	assert_true(hist_percentile(svc, 99.99) <= 100000 * 1.004);
	assert_true(svc->max == 100000);
	ol_lag_report(&l, &c);
	assert_false(ol_holding(&c, -1, why, sizeof(why))); /* the stall was the generator's */
	free(lat);
	free(svc);
	free(l.h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(constant_exact),      cmocka_unit_test(poisson_mean),
		cmocka_unit_test(backlog),	       cmocka_unit_test(lag_accounting),
		cmocka_unit_test(verdict), cmocka_unit_test(describe_load), cmocka_unit_test(window_edges),	       cmocka_unit_test(corrected_vs_service),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
