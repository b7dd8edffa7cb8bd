/* Interval reports (measure/interval.c): snapshots of histograms that only grow, their
 * differences, and the interval made of two snapshots: the intervals' counts add up to the
 * run's, each interval's percentiles are those of its own values and stay inside what was
 * measured, rate and CPU come from the edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "measure/interval.h"

static struct hist *hnew(void)
{
	struct hist *h = malloc(sizeof(*h));

	hist_reset(h);
	return h;
}

/* Two clients record; snapshots at three edges; the diffs hold each interval's values only. */
static void test_snapshots_diff(void **state)
{
	(void)state;
	struct hist *a = hnew(), *b = hnew(), *s0 = hnew(), *s1 = hnew(), *s2 = hnew(), *d = hnew();
	const struct hist *live[2] = {a, b};

	ivl_hist_read(s0, live, 2);
	assert_int_equal(s0->count, 0);
	for (int i = 0; i < 1000; i++) { /* interval 1: 10 us */
		hist_record(a, 10000);
		hist_record(b, 10000);
	}
	ivl_hist_read(s1, live, 2);
	assert_int_equal(s1->count, 2000);
	for (int i = 0; i < 500; i++) /* interval 2: 1 ms, one client only */
		hist_record(b, 1000000);
	ivl_hist_read(s2, live, 2);
	ivl_hist_diff(d, s1, s0);
	assert_int_equal(d->count, 2000);
	assert_true(llabs((long long)hist_percentile(d, 99) - 10000) <= 40);
	ivl_hist_diff(d, s2, s1);
	assert_int_equal(d->count, 500);
	assert_true(llabs((long long)hist_percentile(d, 50) - 1000000) <= 4000);
	/* inside what was measured: min and max are the later snapshot's */
	assert_true(hist_percentile(d, 50) >= s2->min && hist_percentile(d, 99) <= s2->max);
	free(a), free(b), free(s0), free(s1), free(s2), free(d);
}

/* A torn read (a bucket read before a record, the count after) cannot go negative: a bucket
 * that looks lower later counts 0, and the diff's count is its buckets' sum. */
static void test_diff_never_negative(void **state)
{
	(void)state;
	struct hist *cur = hnew(), *prev = hnew(), *d = hnew();

	prev->buckets[5] = 10;
	prev->count = 10;
	cur->buckets[5] = 9; /* cannot happen with counts that only grow; still safe */
	cur->buckets[7] = 3;
	cur->count = 12;
	cur->min = 5;
	cur->max = 7;
	ivl_hist_diff(d, cur, prev);
	assert_int_equal(d->count, 3);
	assert_int_equal(d->buckets[5], 0);
	free(cur), free(prev), free(d);
}

/* Sum of the intervals' samples and units = the last snapshot's: nothing lost at the edges. */
static void test_intervals_add_up(void **state)
{
	(void)state;
	struct hist *h = hnew(), *tmp = hnew();
	const struct hist *live[1] = {h};
	struct ivl_snap *s = calloc(6, sizeof(*s));
	double samples = 0, units = 0;

	hist_reset(&s[0].lat);
	s[0].has_lat = true;
	for (int k = 1; k < 6; k++) {
		for (int i = 0; i < 100 * k; i++)
			hist_record(h, (uint64_t)(1000 + i));
		s[k].t_ns = (uint64_t)k * 500000000ULL;
		s[k].units = s[k - 1].units + 100 * k;
		s[k].has_lat = true;
		ivl_hist_read(&s[k].lat, live, 1);
	}
	for (int k = 1; k < 6; k++) {
		struct interval iv;

		ivl_make(&iv, &s[k - 1], &s[k], &(struct ivl_run){0, 100, "Udp", tmp});
		assert_true(fabs(iv.len_s - 0.5) < 1e-9);
		assert_true(fabs(iv.t_s - 0.5 * k) < 1e-9);
		assert_true(fabs(iv.rate - 200.0 * k) < 1e-6);
		samples += iv.samples;
		units += iv.units;
	}
	assert_true(samples == (double)h->count);
	assert_true(units == s[5].units);
	free(h), free(tmp), free(s);
}

/* CPU from ticks over the interval's length; the server's only where both edges read it;
 * kernel counters by protocol; a stream has no latencies (null). */
static void test_cpu_and_kernel(void **state)
{
	(void)state;
	struct ivl_snap *a = calloc(2, sizeof(*a)), *b = a + 1;
	struct hist *tmp = hnew();
	struct interval iv;

	a->t_ns = 0;
	b->t_ns = 500000000ULL;
	a->client_ticks = 100;
	b->client_ticks = 140; /* 0.4 s of 0.5 s at 100 Hz: 80% */
	a->server_ok = true;
	b->server_ok = false;
	a->machine_ok = b->machine_ok = true;
	b->machine.t[CPU_USER] = 30;
	b->machine.t[CPU_IDLE] = 70;
	a->kernel_ok = b->kernel_ok = true;
	b->retrans = 4;
	b->udp_drops = 9;
	ivl_make(&iv, a, b, &(struct ivl_run){0, 100, "Tcp", tmp});
	assert_true(fabs(iv.cpu_client_pct - 80) < 1e-9);
	assert_true(isnan(iv.cpu_server_pct));
	assert_true(fabs(iv.machine_busy_pct - 30) < 1e-9);
	assert_true(iv.retransmits == 4 && isnan(iv.udp_drops));
	assert_true(isnan(iv.samples) && isnan(iv.p99_us));
	ivl_make(&iv, a, b, &(struct ivl_run){0, 100, "Udp", tmp});
	assert_true(iv.udp_drops == 9 && isnan(iv.retransmits));
	free(a), free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshots_diff),
		cmocka_unit_test(test_diff_never_negative),
		cmocka_unit_test(test_intervals_add_up),
		cmocka_unit_test(test_cpu_and_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
