/* Sequence accounting of udp-stream's receiver: loss, reordering and duplicates, against a
 * brute-force model of random arrivals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "measure/seq.h"

static void test_in_order(void **state)
{
	struct seq_flow f = {0};

	(void)state;
	for (uint64_t s = 100; s < 5100; s++)
		seq_take(&f, s);
	assert_int_equal(f.got, 5000);
	assert_int_equal(seq_lost(&f), 0);
	assert_int_equal(f.reordered, 0);
	assert_int_equal(f.dups, 0);
}

static void test_gaps(void **state)
{
	struct seq_flow f = {0};

	(void)state;
	/* every 10th missing, and a jump of 5000 (past what is remembered) */
	for (uint64_t s = 0; s < 1000; s++)
		if (s % 10 != 3)
			seq_take(&f, s);
	seq_take(&f, 6000);
	assert_int_equal(f.got, 901);
	assert_int_equal(seq_lost(&f), 100 + 5000);
	assert_int_equal(f.reordered, 0);
}

/* What a draining receiver may still take: only the gaps between the lowest and the highest
 * it has seen, among those remembered; never one seen, the ends or beyond them. */
static void test_missing(void **state)
{
	struct seq_flow f = {0};

	(void)state;
	assert_false(seq_missing(&f, 0)); /* nothing seen: no gap */
	for (uint64_t s = 10; s <= 2000; s++)
		if (s != 15 && s != 1999 && s != 500)
			seq_take(&f, s);
	assert_true(seq_missing(&f, 1999));
	assert_false(seq_missing(&f, 1500));
	assert_false(seq_missing(&f, 9));    /* below the lowest: not a gap */
	assert_false(seq_missing(&f, 10));   /* the lowest */
	assert_false(seq_missing(&f, 2000)); /* the highest */
	assert_false(seq_missing(&f, 2001)); /* beyond it */
	assert_false(seq_missing(&f, 15));   /* a gap, but no longer remembered (2000 - 15 >= 1024) */
	assert_int_equal(seq_lost(&f), 3);
	seq_take(&f, 1999);
	assert_false(seq_missing(&f, 1999)); /* filled */
	assert_int_equal(seq_lost(&f), 2);
	/* every number of a random pattern against the bitmap's model */
	struct seq_flow g = {0};
	static unsigned char seen[3000];

	srand(7);
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < 2000; i++) {
		uint64_t s = 1000 + (uint64_t)(rand() % 2000);

		seq_take(&g, s);
		seen[s - 1000] = 1;
	}
	for (uint64_t s = 900; s < 3100; s++) {
		bool want = s > g.lo && s < g.hi && g.hi - s < SEQ_SEEN_BITS && !seen[s - 1000];

		assert_int_equal(seq_missing(&g, s), want);
	}
}

static void test_reorder_and_dups(void **state)
{
	struct seq_flow f = {0};

	(void)state;
	seq_take(&f, 1);
	seq_take(&f, 3);
	seq_take(&f, 2); /* late: fills the gap */
	seq_take(&f, 3); /* twice */
	seq_take(&f, 0); /* before the first: lowers the start */
	assert_int_equal(f.got, 4);
	assert_int_equal(seq_lost(&f), 0);
	assert_int_equal(f.reordered, 2);
	assert_int_equal(f.dups, 1);
	/* a number far behind what is remembered cannot be told from a duplicate: it counts as
	 * neither, so it hides no loss (one number, 100, never came) */
	for (uint64_t s = 4; s < 3000; s++)
		if (s != 100)
			seq_take(&f, s);
	seq_take(&f, 5);
	assert_int_equal(f.dups, 1);
	assert_int_equal(f.reordered, 2);
	assert_int_equal(f.unsure, 1);
	assert_int_equal(seq_lost(&f), 1);
	/* the lost one coming that late is counted apart too: the loss stays an upper bound */
	seq_take(&f, 100);
	assert_int_equal(f.unsure, 2);
	assert_int_equal(seq_lost(&f), 1);
	/* but one below the lowest ever seen was never seen: late and new, whatever its age */
	struct seq_flow g = {0};

	for (uint64_t s = 5000; s < 8000; s++)
		seq_take(&g, s);
	seq_take(&g, 10);
	assert_int_equal(g.reordered, 1);
	assert_int_equal(g.unsure, 0);
	assert_int_equal(g.lo, 10);
	assert_int_equal(g.got, 3001);
}

/* Random arrivals within a small displacement: our counts equal a model's. */
static void test_random_against_model(void **state)
{
	enum { N = 20000, SHIFT = 40 };
	uint64_t *order = malloc(N * 2 * sizeof(*order));
	unsigned char *seen = calloc(N, 1);
	size_t n = 0;
	uint64_t dups = 0, got = 0, lo = UINT64_MAX, hi = 0;
	struct seq_flow f = {0};

	(void)state;
	srand(7);
	for (uint64_t s = 0; s < N; s++) {
		if (rand() % 50 == 0)
			continue; /* lost */
		order[n++] = s;
		if (rand() % 200 == 0)
			order[n++] = s; /* duplicated */
	}
	for (size_t i = 0; i + 1 < n; i++) { /* local reordering */
		size_t j = i + (size_t)(rand() % SHIFT);

		if (j < n && rand() % 4 == 0) {
			uint64_t t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t s = order[i];

		seq_take(&f, s);
		if (seen[s]) {
			dups++;
			continue;
		}
		seen[s] = 1;
		got++;
		lo = s < lo ? s : lo;
		hi = s > hi ? s : hi;
	}
	assert_int_equal(f.got, got);
	assert_int_equal(f.dups, dups);
	assert_int_equal(seq_lost(&f), hi - lo + 1 - got);
	assert_true(f.reordered > 0);
	free(order);
	free(seen);
}

static void test_empty(void **state)
{
	struct seq_flow f = {0};

	(void)state;
	assert_int_equal(seq_lost(&f), 0);
}

/* The header round-trips; a number far from its flow's is not believed, so a forged 2^40
 * cannot make a loss of 2^40. */
static void test_header_and_bounds(void **state)
{
	struct seq_hdr h = {.seq = 1ULL << 40, .flow = 7, .magic = 0x574b4253, .token = 0xfeedULL,
			    .sent_ns = 123456789012345ULL}, g;
	struct seq_flow f = {0};
	uint8_t buf[SEQ_HDR_LEN];

	(void)state;
	seq_hdr_put(buf, &h);
	assert_int_equal(seq_hdr_get(buf, sizeof(buf) - 1, &g), -1);
	assert_int_equal(seq_hdr_get(buf, sizeof(buf), &g), 0);
	assert_true(g.seq == h.seq && g.flow == 7 && g.magic == h.magic && g.token == h.token &&
		    g.sent_ns == h.sent_ns);
	seq_hdr_stamp(buf, 42);
	assert_int_equal(seq_hdr_get(buf, sizeof(buf), &g), 0);
	assert_true(g.sent_ns == 42 && g.seq == h.seq && g.token == h.token);
	assert_true(seq_plausible(&f, 1ULL << 40)); /* nothing seen yet */
	for (uint64_t s = 0; s < 100; s++)
		seq_take(&f, s);
	assert_false(seq_plausible(&f, 1ULL << 40));
	assert_true(seq_plausible(&f, 99 + SEQ_MAX_GAP));
	assert_false(seq_plausible(&f, 100 + SEQ_MAX_GAP));
	assert_int_equal(seq_lost(&f), 0);
	/* Numbers at the very top of the range: no endless loop, no wrap. */
	struct seq_flow top = {0};

	seq_take(&top, UINT64_MAX - 3);
	seq_take(&top, UINT64_MAX);
	seq_take(&top, UINT64_MAX - 1);
	assert_true(top.hi == UINT64_MAX && top.got == 3 && seq_lost(&top) == 1);
}

/* RFC 3550's jitter: a constant transit gives none whatever the offset between the two
 * clocks; one step of D moves it D/16; transits alternating by D settle at D; a sender's
 * clock far ahead of the receiver's (negative transits) changes nothing. */
static void test_jitter(void **state)
{
	struct jitter a = {0}, b = {0}, c = {0};

	(void)state;
	for (uint64_t i = 0; i < 100; i++)
		jitter_take(&a, 1000000 * i, 1000000 * i + 5000);
	assert_true(a.j == 0 && a.n == 100);
	jitter_take(&a, 1000000 * 100, 1000000 * 100 + 5000 + 1600);
	assert_true(fabs(a.j - 100) < 1e-9);
	for (uint64_t i = 0; i < 400; i++) {
		uint64_t transit = i % 2 ? 3000 : 2000;

		jitter_take(&b, 1000000 * i, 1000000 * i + transit);
		jitter_take(&c, 1000000 * i + (1ULL << 50), 1000000 * i + transit); /* sender ahead */
	}
	assert_true(fabs(b.j - 1000) < 1 && fabs(c.j - b.j) < 1e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_and_bounds),
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_gaps),
		cmocka_unit_test(test_reorder_and_dups),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_random_against_model),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_jitter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
