/* Histogram: percentiles within 0.5% of the exact ones on random data (what docs/workloads.md
 * promises: a bucket is 1/128 of its value wide, its midpoint at most 0.39% off), merge, edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <math.h>
#include <cmocka.h>

#include "measure/hist.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Exact percentile with the same rank rule as hist_percentile: the ceil(p/100*n)-th value. */
static uint64_t exact(const uint64_t *sorted, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);

	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

static void check_data(uint64_t *v, size_t n)
{
	struct hist *h = malloc(sizeof(*h));
	static const double ps[] = {1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100};
	double sum = 0;

	hist_reset(h);
	for (size_t i = 0; i < n; i++) {
		hist_record(h, v[i]);
		sum += (double)v[i];
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	assert_int_equal(h->count, n);
	assert_int_equal(h->min, v[0]);
	assert_int_equal(h->max, v[n - 1]);
	assert_true(fabs(hist_mean(h) - sum / (double)n) < 1e-6 * sum / (double)n);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		double want = (double)exact(v, n, ps[i]);
		double got = (double)hist_percentile(h, ps[i]);

		if (fabs(got - want) > 0.005 * want)
			fail_msg("p%g: histogram %.0f, exact %.0f", ps[i], got, want);
	}
	free(h);
}

static void test_lognormal_latencies(void **state)
{
	(void)state;
	size_t n = 200000;
	uint64_t *v = malloc(n * sizeof(*v));

	srand(42);
	for (size_t i = 0; i < n; i++) {
		/* Sum of uniforms ~ normal; exp of it spans several decades (ns .. s). */
		double z = 0;

		for (int k = 0; k < 12; k++)
			z += (double)rand() / RAND_MAX;
		v[i] = (uint64_t)exp(11.0 + 2.5 * (z - 6.0)) + 1;
	}
	check_data(v, n);
	free(v);
}

static void test_uniform_small_and_large(void **state)
{
	(void)state;
	size_t n = 50000;
	uint64_t *v = malloc(n * sizeof(*v));

	srand(7);
	for (size_t i = 0; i < n; i++)
		v[i] = (uint64_t)rand() % 1000; /* exact region and first octaves */
	check_data(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = 1000000000ULL + (uint64_t)rand() * 10ULL; /* ~1 s */
	check_data(v, n);
	free(v);
}

static void test_index_monotonic_and_bounded(void **state)
{
	(void)state;
	unsigned prev = 0;

	for (uint64_t v = 1; v < (1ULL << 50); v = v * 1.01 + 1) {
		unsigned i = hist_index(v);

		assert_true(i >= prev);
		assert_true(i < HIST_BUCKETS);
		prev = i;
	}
	assert_int_equal(hist_index(UINT64_MAX), HIST_BUCKETS - 1);
}

static void test_merge_equals_combined(void **state)
{
	(void)state;
	struct hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)), *all = malloc(sizeof(*all));

	hist_reset(a);
	hist_reset(b);
	hist_reset(all);
	for (uint64_t v = 1; v < 100000; v += 7) {
		hist_record(v % 2 ? a : b, v * 13);
		hist_record(all, v * 13);
	}
	hist_merge(a, b);
	assert_int_equal(a->count, all->count);
	assert_int_equal(a->min, all->min);
	assert_int_equal(a->max, all->max);
	assert_memory_equal(a->buckets, all->buckets, sizeof(a->buckets));
	free(a);
	free(b);
	free(all);
}

/* Three client hosts' histograms, carried as text (hist_encode/hist_decode) and merged bucket
 * by bucket: the percentiles of the merge are those of every value recorded in one histogram
 * and, within the bucket precision, of the concatenated raw values; averaging the hosts'
 * percentiles would not be (one host is ten times slower here). */
static void test_hosts_merge_as_text(void **state)
{
	(void)state;
	size_t per = 30000, n = 3 * per;
	struct hist *host = malloc(sizeof(*host)), *merged = malloc(sizeof(*merged)),
		    *all = malloc(sizeof(*all)), *back = malloc(sizeof(*back));
	uint64_t *raw = malloc(n * sizeof(*raw));
	char *txt = malloc(HIST_TEXT_MAX);
	double p99_sum = 0;

	hist_reset(merged);
	hist_reset(all);
	srand(7);
	for (int k = 0; k < 3; k++) {
		hist_reset(host);
		for (size_t i = 0; i < per; i++) {
			uint64_t v = (uint64_t)(20000 + rand() % 20000) * (k == 2 ? 10 : 1);

			raw[k * per + i] = v;
			hist_record(host, v);
			hist_record(all, v);
		}
		p99_sum += (double)hist_percentile(host, 99);
		size_t len = hist_encode(host, txt, HIST_TEXT_MAX);

		assert_true(len < HIST_TEXT_MAX);
		assert_int_equal(hist_decode(back, txt, NULL), 0);
		assert_memory_equal(back->buckets, host->buckets, sizeof(host->buckets));
		assert_int_equal(back->count, host->count);
		assert_int_equal(back->min, host->min);
		assert_int_equal(back->max, host->max);
		assert_true(back->sum == host->sum);
		hist_merge(merged, back);
	}
	assert_memory_equal(merged->buckets, all->buckets, sizeof(all->buckets));
	qsort(raw, n, sizeof(*raw), cmp_u64);
	static const double ps[] = {50, 90, 99, 99.9};

	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		double want = (double)exact(raw, n, ps[i]), got = (double)hist_percentile(merged, ps[i]);

		assert_int_equal(hist_percentile(merged, ps[i]), hist_percentile(all, ps[i]));
		if (fabs(got - want) > 0.005 * want)
			fail_msg("merged p%g: %.0f, of the raw values %.0f", ps[i], got, want);
	}
	/* The mean of the hosts' p99s (two near 40 us, one near 400 us) is nowhere near it. */
	assert_true(fabs(p99_sum / 3 - (double)hist_percentile(merged, 99)) >
		    0.3 * (double)hist_percentile(merged, 99));
	/* Text that is not a histogram is refused. */
	assert_int_equal(hist_decode(back, "3 1 9 13 0:1 5:1", NULL), -EINVAL);	 /* 2 of 3 */
	assert_int_equal(hist_decode(back, "1 1 1 1 999999:1", NULL), -EINVAL);	 /* no such bucket */
	assert_int_equal(hist_decode(back, "2 1 2 3 1:1 0:1", NULL), -EINVAL);	 /* the same one twice */
	assert_int_equal(hist_decode(back, "x", NULL), -EINVAL);
	assert_int_equal(hist_decode(back, "2 1 2 3 1:1 1:1", NULL), 0);
	/* Every bucket full, with 20-digit counts: the text fits HIST_TEXT_MAX (and a client
	 * agent's RESULT holds two: link/client_side.c asserts it); with counts that keep the
	 * total under HIST_COUNT_MAX it comes back exactly. */
	struct hist *full = calloc(1, sizeof(*full));
	char *full_txt = malloc(HIST_TEXT_MAX);

	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		full->buckets[i] = UINT64_MAX / HIST_BUCKETS;
	full->count = UINT64_MAX / HIST_BUCKETS * HIST_BUCKETS;
	assert_true(hist_encode(full, full_txt, HIST_TEXT_MAX) < HIST_TEXT_MAX);
	full->count = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		full->count += full->buckets[i] = 1000000000000ULL + i;
	full->min = 0;
	full->max = UINT64_MAX; /* clamped into the last bucket, kept exact */
	full->sum = 1e30;
	assert_true(hist_encode(full, full_txt, HIST_TEXT_MAX) < HIST_TEXT_MAX);
	assert_int_equal(hist_decode(back, full_txt, NULL), 0);
	assert_memory_equal(back, full, sizeof(*full));
	free(full_txt);
	free(full);
	/* Sums that wrap around 2^64: counts that add to 2 only modulo 2^64, and a gap that
	 * wraps back to a bucket already taken; "-1" is 2^64 - 1 to strtoull. */
	assert_int_equal(hist_decode(back, "2 1 2 3 1:1 1:18446744073709551617", NULL), -EINVAL);
	assert_int_equal(hist_decode(back, "2 1 2 3 1:3 1:18446744073709551615", NULL), -EINVAL);
	assert_int_equal(hist_decode(back, "2 1 2 3 5:1 18446744073709551615:1", NULL), -EINVAL);
	assert_int_equal(hist_decode(back, "2 1 2 3 1:1 -1:1", NULL), -EINVAL);
	assert_int_equal(hist_decode(back, "2 1 2 3 1:-1 1:3", NULL), -EINVAL);
	free(host);
	free(merged);
	free(all);
	free(back);
	free(raw);
	free(txt);
}

static void test_empty_and_single(void **state)
{
	(void)state;
	struct hist *h = malloc(sizeof(*h));

	hist_reset(h);
	assert_int_equal(hist_percentile(h, 50), 0);
	assert_true(hist_mean(h) == 0.0);
	hist_record(h, 123456);
	assert_int_equal(hist_percentile(h, 50), 123456); /* clamped to min/max */
	assert_int_equal(hist_percentile(h, 100), 123456);
	free(h);
}

/* The rank rule on ranks that are not whole numbers, and on one that is: n values 1000, 2000,
 * ... far apart (each its own bucket), so each percentile names one of them. The large random
 * sets above have p/100 * n whole for every p asked, where floor, round, ceil and "floor + 1"
 * rules all agree but the last; these tell all four apart. */
static void test_rank_rule(void **state)
{
	(void)state;
	static const struct {
		int n;
		double p;
		int rank; /* ceil(p/100 * n): the value that many from the bottom */
	} cases[] = {
		{7, 30, 3},  /* 2.1: ceil 3; floor and round 2 */
		{7, 50, 4},  /* 3.5: ceil and round 4; floor 3 */
		{10, 50, 5}, /* 5 exactly: ceil 5; floor + 1 would say 6 */
		{10, 99, 10}, /* 9.9 */
		{3, 10, 1},  /* 0.3: ceil 1; floor 0 (no such value) */
	};
	struct hist *h = malloc(sizeof(*h));

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hist_reset(h);
		for (int k = cases[i].n; k >= 1; k--) /* recorded out of order */
			hist_record(h, (uint64_t)k * 1000);
		double got = (double)hist_percentile(h, cases[i].p), want = cases[i].rank * 1000.0;

		if (fabs(got - want) > 0.005 * want)
			fail_msg("p%g of %d values: %.0f, want the %d-th, %.0f", cases[i].p, cases[i].n,
				 got, cases[i].rank, want);
	}
	free(h);
}

/* Censored values (requests that got no answer, at the time they waited): a percentile the
 * histogram calls exact is the true one, within a bucket, whatever the censored requests'
 * true latencies were; one it calls "at least" is at most the true one. 1,000 answered values
 * from 1 to 150 us, 30 censored at waits of 200-230 us whose true latencies are drawn above
 * their waits; then the same through merge and the text form. */
static void test_censored(void **state)
{
	(void)state;
	enum { ANSWERED = 1000, CENS = 30, N = ANSWERED + CENS };
	static const double ps[] = {1, 50, 90, 97, 97.1, 98, 99, 99.9, 99.99, 100};
	struct hist *h = malloc(sizeof(*h)), *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	const char *why;
	uint64_t truth[N];
	char *txt = malloc(HIST_TEXT_MAX);

	srand(7);
	hist_reset(h);
	hist_reset(a);
	hist_reset(b);
	for (int i = 0; i < ANSWERED; i++) {
		truth[i] = 1000 + (uint64_t)(rand() % 149000);
		hist_record(h, truth[i]);
		hist_record(i % 2 ? a : b, truth[i]);
	}
	for (int i = 0; i < CENS; i++) {
		uint64_t wait = 200000 + (uint64_t)(rand() % 30000);

		truth[ANSWERED + i] = wait + 1 + (uint64_t)(rand() % 5000000);
		hist_record_censored(h, wait);
		hist_record_censored(i % 2 ? a : b, wait);
	}
	assert_int_equal(h->censored, CENS);
	assert_true(h->cens_min >= 200000 && h->cens_min < 230000);
	qsort(truth, N, sizeof(truth[0]), cmp_u64);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		uint64_t got = hist_percentile(h, ps[i]), want = exact(truth, N, ps[i]);
		/* Exact exactly when the rank falls among the answered (1,000 of 1,030: p97.08). */
		bool cut = ceil(ps[i] / 100.0 * N) > ANSWERED;

		if (hist_at_least(h, got) != cut)
			fail_msg("p%g: at_least %d, the rank says %d", ps[i], hist_at_least(h, got), cut);
		if (!cut && fabs((double)got - (double)want) > 0.005 * (double)want)
			fail_msg("p%g: %llu, the truth %llu", ps[i], (unsigned long long)got,
				 (unsigned long long)want);
		if (cut && (double)got > 1.005 * (double)want)
			fail_msg("p%g: at least %llu is above the truth %llu", ps[i],
				 (unsigned long long)got, (unsigned long long)want);
	}
	assert_true(hist_at_least(h, h->max));
	/* Merged halves and the text form keep the censored count and the least wait. */
	hist_merge(a, b);
	assert_int_equal(a->censored, CENS);
	assert_int_equal(a->cens_min, h->cens_min);
	assert_true(hist_encode(a, txt, HIST_TEXT_MAX) < HIST_TEXT_MAX);
	assert_int_equal(hist_decode(b, txt, NULL), 0);
	assert_int_equal(b->censored, CENS);
	assert_int_equal(b->cens_min, h->cens_min);
	assert_memory_equal(b->buckets, h->buckets, sizeof(h->buckets));
	/* Without censored values nothing is "at least", and the text has no "!". */
	hist_reset(a);
	hist_record(a, 5);
	assert_false(hist_at_least(a, 5));
	hist_encode(a, txt, HIST_TEXT_MAX);
	assert_null(strchr(txt, '!'));
	/* Censored counts that cannot be: none, more than the count, a wait outside min..max. */
	assert_int_equal(hist_decode(b, "2 1 2 3 !0,1 1:1 1:1", NULL), -EINVAL);
	assert_int_equal(hist_decode(b, "2 1 2 3 !3,1 1:1 1:1", NULL), -EINVAL);
	assert_int_equal(hist_decode(b, "2 1 2 3 !1,9 1:1 1:1", NULL), -EINVAL);
	assert_int_equal(hist_decode(b, "2 1 2 3 !1 1:1 1:1", NULL), -EINVAL);
	assert_int_equal(hist_decode(b, "2 1 2 3 !1,2 1:1 1:1", NULL), 0);
	/* Two censored at 1 ms or more, one value in 1 ms's bucket (1780), two in 1 ns's: forged. */
	assert_int_equal(hist_decode(b, "3 1 1000000 1000002 !2,1000000 1:2 1779:1", &why), -EINVAL);
	assert_non_null(strstr(why, "fewer values at or above the least censored wait"));
	assert_int_equal(hist_decode(b, "3 1 1000000 1000002 !1,1000000 1:2 1779:1", NULL), 0);
	free(txt);
	free(h);
	free(a);
	free(b);
}

/* Censored waits among the answered values (failures at 40-60 us, answers 1-150 us): a
 * percentile is exact only below the least wait's bucket, whatever the rank. */
static void test_censored_interleaved(void **state)
{
	(void)state;
	struct hist *h = malloc(sizeof(*h));
	uint64_t cm;

	hist_reset(h);
	for (uint64_t v = 1000; v <= 150000; v += 150) /* 994 answered */
		hist_record(h, v);
	for (uint64_t v = 40000; v < 60000; v += 2000) /* 10 censored */
		hist_record_censored(h, v);
	cm = h->cens_min;
	assert_int_equal(cm, 40000);
	assert_int_equal(h->censored, 10);
	/* p10 (about 15 us) is under 40 us: exact; p50 (about 75 us) is over it: a bound, though
	 * its rank is far below the censored ones' count from the top. */
	assert_false(hist_at_least(h, hist_percentile(h, 10)));
	assert_true(hist_at_least(h, hist_percentile(h, 50)));
	/* The bucket, not the value: a value in 40 us's bucket but under it is a bound too; the
	 * bucket below is not. */
	assert_true(hist_at_least(h, cm - 1) == (hist_index(cm - 1) == hist_index(cm)));
	assert_false(hist_at_least(h, cm - cm / 64));
	/* Merge keeps the least wait from either side. */
	struct hist *a = malloc(sizeof(*a));

	hist_reset(a);
	hist_record_censored(a, 30000);
	hist_merge(h, a);
	assert_int_equal(h->cens_min, 30000);
	hist_reset(a);
	hist_record_censored(a, 90000);
	hist_merge(a, h);
	assert_int_equal(a->cens_min, 30000);
	assert_int_equal(a->censored, 12);
	free(a);
	free(h);
}

/* A client agent's histogram is untrusted (issue 39): text that no histogram encodes is refused
 * with why, each case breaking one rule, every other field consistent (so a decoder missing
 * that one rule accepts it); real ones, empty and clamped included, come back exactly. */
static void test_decode_forged(void **state)
{
	(void)state;
	static const struct {
		const char *txt, *why;
	} forged[] = {
		{"-1 5 5 92233720368547758075 5:18446744073709551615", "negative"}, /* 2^64 - 1 */
		{"1 5 5 -3.3e304 5:1", "negative"},			   /* mean -3.3e304 */
		{"+1 5 5 5 5:1", "not a latency histogram"},
		{"18446744073709551616 5 5 92233720368547758080 5:18446744073709551615", "past 2^64"},
		{"9007199254740993 5 5 45035996273704965 5:9007199254740993", "more values"}, /* 2^53+1 */
		{"1 5 5 nan 5:1", "finite"},
		{"1 5 5 inf 5:1", "finite"},
		{"1 5 5 infinity 5:1", "finite"},
		{"2 5 6 1e300 5:1 1:1", "mean"},
		{"2 5 6 3 5:1 1:1", "mean"},
		{"2 100 101 198 100:1 1:1", "mean"},	   /* 1% under the least */
		{"2 100 101 204 100:1 1:1", "mean"},	   /* 1% over the greatest */
		{"0 18446744073709551615 0 7", "none counted"},
		{"3 5 6 11 5:1 1:1", "add up"},
		{"2 5 6 11 5:1 1:18446744073709551615", "more values than the count"},
		{"2 6 5 11 5:1 1:1", "least value above"},
		{"2 1 6 7 5:1 1:1", "bucket"},	      /* the least value is 1, its bucket empty */
		{"2 5 1000 1005 5:1 1:1", "bucket"}, /* the greatest is 1000, its bucket empty */
		{"2 5 6 11 5:1 1:1 x", "not a latency histogram"},
		{"2 5 6 11 5:1 0:1", "twice"},
		{"1 5 5 5 9999:1", "past the last"},
		{"2 5 6 11 5:1 4603:1", "past the last"}, /* 5 + 4603: bucket 4608 of 0..4607 */
		{"", "not a latency histogram"},
	};
	struct hist *h = malloc(sizeof(*h)), *back = malloc(sizeof(*back));
	char *txt = malloc(HIST_TEXT_MAX);
	const char *why;
	int wrong = 0;

	for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
		why = NULL;
		if (hist_decode(back, forged[i].txt, &why) != -EINVAL) {
			print_error("accepted \"%s\": mean %g, count %llu\n", forged[i].txt,
				    hist_mean(back), (unsigned long long)back->count);
			wrong++;
		} else if (!why || !strstr(why, forged[i].why)) {
			print_error("\"%s\": refused for \"%s\", not \"%s\"\n", forged[i].txt,
				    why ? why : "(nothing said)", forged[i].why);
			wrong++;
		} else if (back->count || back->sum != 0) {
			print_error("\"%s\": refused, its figures left behind\n", forged[i].txt);
			wrong++;
		}
	}
	assert_int_equal(wrong, 0);
	/* Real ones: empty, one value, the extremes (2^64 - 1 is clamped into the last bucket,
	 * max exact), censored. */
	static const uint64_t vals[] = {0, 1, 255, 256, 1ULL << 50, UINT64_MAX};

	hist_reset(h);
	for (size_t i = 0; i <= sizeof(vals) / sizeof(vals[0]); i++) {
		hist_encode(h, txt, HIST_TEXT_MAX);
		if (hist_decode(back, txt, NULL))
			fail_msg("refused a real histogram \"%.200s\"", txt);
		assert_memory_equal(back, h, sizeof(*h));
		if (i < sizeof(vals) / sizeof(vals[0]))
			hist_record(h, vals[i]);
	}
	hist_record_censored(h, 1000);
	hist_encode(h, txt, HIST_TEXT_MAX);
	assert_int_equal(hist_decode(back, txt, NULL), 0);
	assert_memory_equal(back, h, sizeof(*h));
	free(txt);
	free(back);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lognormal_latencies),
		cmocka_unit_test(test_uniform_small_and_large),
		cmocka_unit_test(test_index_monotonic_and_bounded),
		cmocka_unit_test(test_merge_equals_combined),
		cmocka_unit_test(test_hosts_merge_as_text),
		cmocka_unit_test(test_empty_and_single),
		cmocka_unit_test(test_rank_rule),
		cmocka_unit_test(test_censored),
		cmocka_unit_test(test_censored_interleaved),
		cmocka_unit_test(test_decode_forged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
