/* TCP_INFO summary: sums, smallest and largest merged over processes (a side that read no
 * connection leaves the others' alone), and the JSON of it (null where nothing was read). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "measure/tcp_info_dist.h"
#include "measure/tcp_info_sum.h"

static double at(const cJSON *j, const char *a, const char *b)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(j, a);

	if (b)
		it = cJSON_GetObjectItemCaseSensitive(it, b);
	if (!cJSON_IsNumber(it))
		fail_msg("no number at %s.%s", a, b ? b : "");
	return it->valuedouble;
}

static void test_merge_and_json(void **state)
{
	(void)state;
	struct side_counters none = {0}, sum = {0};
	struct side_counters a = {.ti_conns = 2, .ti_rtt_sum = 300, .ti_rtt_min = 100,
				  .ti_rtt_max = 200, .ti_rttvar_sum = 40, .ti_minrtt_sum = 100,
				  .ti_minrtt_min = 40, .ti_cwnd_sum = 30, .ti_cwnd_min = 10,
				  .ti_cwnd_max = 20, .ti_rate_sum = 3000, .ti_rate_max = 2000,
				  .ti_retrans = 3};
	struct side_counters b = {.ti_conns = 1, .ti_rtt_sum = 50, .ti_rtt_min = 50,
				  .ti_rtt_max = 50, .ti_minrtt_sum = 45, .ti_minrtt_min = 45,
				  .ti_cwnd_sum = 40, .ti_cwnd_min = 40, .ti_cwnd_max = 40,
				  .ti_rate_sum = 500, .ti_rate_max = 500, .ti_retrans = 1};
	cJSON *j = tcp_info_sum_json(&none, NULL, 1);

	assert_true(cJSON_IsNull(j));
	cJSON_Delete(j);
	side_counters_add(&sum, &none); /* nothing read: no smallest of 0 */
	side_counters_add(&sum, &a);
	side_counters_add(&sum, &none);
	side_counters_add(&sum, &b);
	assert_int_equal(sum.ti_conns, 3);
	assert_int_equal(sum.ti_rtt_min, 50);
	assert_int_equal(sum.ti_rtt_max, 200);
	assert_int_equal(sum.ti_minrtt_min, 40);
	assert_int_equal(sum.ti_cwnd_min, 10);
	assert_int_equal(sum.ti_cwnd_max, 40);
	j = tcp_info_sum_json(&sum, NULL, 16);
	assert_int_equal(at(j, "connections", NULL), 3);
	assert_int_equal(at(j, "sample_every", NULL), 16);
	assert_true(at(j, "rtt_us", "mean") > 116.6 && at(j, "rtt_us", "mean") < 116.8);
	assert_int_equal(at(j, "rtt_us", "min"), 50);
	assert_int_equal(at(j, "rtt_us", "max"), 200);
	assert_true(at(j, "rttvar_us", "mean") > 13.2 && at(j, "rttvar_us", "mean") < 13.4);
	assert_int_equal(at(j, "min_rtt_us", "min"), 40);
	assert_true(at(j, "cwnd", "mean") > 23.2 && at(j, "cwnd", "mean") < 23.4);
	assert_int_equal(at(j, "delivery_rate_bytes_per_s", "max"), 2000);
	assert_int_equal(at(j, "retransmits", NULL), 4);
	cJSON_Delete(j);
}

/* Every value lands in a bucket whose middle is within 1/64 of it (exact below 64), the
 * buckets in order, the last one the largest 32-bit value's. */
static void test_dist_buckets(void **state)
{
	(void)state;
	unsigned last = 0;

	for (uint64_t v = 0; v <= UINT32_MAX; v = v < 5000 ? v + 1 : v + v / 977 + 1) {
		struct tcp_info_dist d = {0};
		uint32_t x = (uint32_t)v, got;
		unsigned i = tcp_info_dist_index(x);

		assert_true(i >= last && i < TCP_INFO_DIST_BUCKETS);
		last = i;
		tcp_info_dist_record(&d, 0, 0, 0);
		tcp_info_dist_record(&d, x, x, x);
		tcp_info_dist_record(&d, UINT32_MAX, UINT32_MAX, UINT32_MAX);
		got = tcp_info_dist_pct(&d.h[TI_RTT], 50); /* the middle one: x's bucket */
		if (x < TCP_INFO_DIST_EXACT)
			assert_int_equal(got, x);
		else
			assert_true(fabs((double)got - (double)x) <= (double)x / 64 + 1);
	}
	assert_int_equal(tcp_info_dist_index(UINT32_MAX), TCP_INFO_DIST_BUCKETS - 1);
}

/* Percentiles by rank over the connections taken, clamped to the smallest and the largest;
 * merged parts give what one would have; the text form comes back exact. */
static void test_dist_pct_merge_text(void **state)
{
	(void)state;
	struct tcp_info_dist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b)),
			     *all = calloc(1, sizeof(*all)), *back = calloc(1, sizeof(*back));
	char *txt = malloc(TCP_INFO_DIST_TEXT_MAX);

	for (uint32_t v = 1; v <= 100; v++) { /* rtt 1..100, min_rtt 1000.., cwnd 10 */
		tcp_info_dist_record(v % 3 ? a : b, v, 1000 + v, 10);
		tcp_info_dist_record(all, v, 1000 + v, 10);
	}
	tcp_info_dist_merge(a, b);
	assert_memory_equal(a, all, sizeof(*a));
	assert_int_equal(tcp_info_dist_count(a), 100);
	assert_int_equal(tcp_info_dist_pct(&a->h[TI_RTT], 50), 50);
	assert_int_equal(tcp_info_dist_pct(&a->h[TI_RTT], 99), 99);
	assert_int_equal(tcp_info_dist_pct(&a->h[TI_RTT], 100), 100);
	assert_true(abs((int)tcp_info_dist_pct(&a->h[TI_MIN_RTT], 90) - 1090) <= 1090 / 64);
	assert_int_equal(tcp_info_dist_pct(&a->h[TI_CWND], 99), 10);
	assert_int_equal(a->h[TI_MIN_RTT].min, 1001);
	assert_int_equal(a->h[TI_MIN_RTT].max, 1100);
	size_t n = tcp_info_dist_encode(a, txt, TCP_INFO_DIST_TEXT_MAX);

	assert_true(n < TCP_INFO_DIST_TEXT_MAX && n == strlen(txt));
	assert_int_equal(tcp_info_dist_decode(back, txt), 0);
	assert_memory_equal(back, a, sizeof(*a));
	memset(a, 0, sizeof(*a));
	tcp_info_dist_encode(a, txt, TCP_INFO_DIST_TEXT_MAX);
	assert_int_equal(tcp_info_dist_decode(back, txt), 0);
	assert_memory_equal(back, a, sizeof(*a));
	free(a), free(b), free(all), free(back), free(txt);
}

/* Text that is not a spread is refused: counts that do not add up, a bucket past the last,
 * a sign, a value past 32 bits, a figure missing or one too many. */
static void test_dist_decode_bad(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"2 5 9 5:1;0 0 0;0 0 0",	  "1 5 5 5:1 0:1;1 5 5 5:1;1 5 5 5:1",
		"1 5 5 896:1;0 0 0;0 0 0",  "1 5 5 -5:1;0 0 0;0 0 0",
		"1 5 5 5:4294967296;0 0 0;0 0 0", "0 0 0;0 0 0", "0 0 0;0 0 0;0 0 0;0 0 0",
		"1 9 5 5:1;0 0 0;0 0 0",	  "0 0 0; 0 0 0;0 0 0",	"",
	};
	struct tcp_info_dist *d = calloc(1, sizeof(*d));

	assert_int_equal(tcp_info_dist_decode(d, "1 5 5 5:1;0 0 0;0 0 0"), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (tcp_info_dist_decode(d, bad[i]) != -EINVAL)
			fail_msg("taken: \"%s\"", bad[i]);
	free(d);
}

/* The JSON's percentiles: there where the spread holds every connection read, in order and
 * within the smallest and the largest; absent where it holds fewer (a part did not come). */
static void test_json_percentiles(void **state)
{
	(void)state;
	struct side_counters c = {.ti_conns = 3, .ti_rtt_sum = 60, .ti_rtt_min = 10,
				  .ti_rtt_max = 30, .ti_minrtt_sum = 15, .ti_minrtt_min = 4,
				  .ti_cwnd_sum = 30, .ti_cwnd_min = 10, .ti_cwnd_max = 10};
	struct tcp_info_dist *d = calloc(1, sizeof(*d));
	cJSON *j;

	tcp_info_dist_record(d, 10, 4, 10);
	tcp_info_dist_record(d, 20, 5, 10);
	j = tcp_info_sum_json(&c, d, 16);
	assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "rtt_us"),
						     "p50"));
	cJSON_Delete(j);
	tcp_info_dist_record(d, 30, 6, 10);
	j = tcp_info_sum_json(&c, d, 16);
	assert_int_equal(at(j, "rtt_us", "p50"), 20);
	assert_int_equal(at(j, "rtt_us", "p90"), 30);
	assert_int_equal(at(j, "rtt_us", "p99"), 30);
	assert_int_equal(at(j, "rtt_us", "min"), 10);
	assert_int_equal(at(j, "min_rtt_us", "p50"), 5);
	assert_int_equal(at(j, "min_rtt_us", "max"), 6);
	assert_int_equal(at(j, "cwnd", "p99"), 10);
	cJSON_Delete(j);
	free(d);
}

/* A server's result round trips; one from an agent built before the accept queue's counters
 * (no such keys) still parses, with 0 for them; any other counter missing, or a new one that
 * is not a number, makes it malformed. */
static void test_counters_json_older_agent(void **state)
{
	struct side_counters c = {.connects = 7, .accept_queue_open = 3, .accept_queue_close = 5},
			     back;
	cJSON *j = side_counters_to_json(&c);

	(void)state;
	assert_int_equal(side_counters_from_json(j, &back), 0);
	assert_int_equal(back.connects, 7);
	assert_int_equal(back.accept_queue_open, 3);
	assert_int_equal(back.accept_queue_close, 5);
	cJSON_DeleteItemFromObjectCaseSensitive(j, "accept_queue_open");
	cJSON_DeleteItemFromObjectCaseSensitive(j, "accept_queue_close");
	assert_int_equal(side_counters_from_json(j, &back), 0);
	assert_int_equal(back.connects, 7);
	assert_int_equal(back.accept_queue_open + back.accept_queue_close, 0);
	cJSON_AddStringToObject(j, "accept_queue_close", "five");
	assert_int_equal(side_counters_from_json(j, &back), -EINVAL);
	cJSON_DeleteItemFromObjectCaseSensitive(j, "accept_queue_close");
	cJSON_DeleteItemFromObjectCaseSensitive(j, "syscalls");
	assert_int_equal(side_counters_from_json(j, &back), -EINVAL);
	cJSON_Delete(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_and_json),
		cmocka_unit_test(test_dist_buckets),
		cmocka_unit_test(test_dist_pct_merge_text),
		cmocka_unit_test(test_dist_decode_bad),
		cmocka_unit_test(test_json_percentiles),
		cmocka_unit_test(test_counters_json_older_agent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
