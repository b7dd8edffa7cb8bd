/* TCP_INFO summary: sums, smallest and largest merged over processes (a side that read no
 * connection leaves the others' alone), and the JSON of it (null where nothing was read). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_and_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
