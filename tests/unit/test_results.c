/* Results to JSON and back: every figure read from the document is the number the result
 * struct holds, and the effective config survives the trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include "measure/hist.h"
#include "report/out.h"
#include "multi/repeat.h"
#include "base/util.h"
#include "workload/workload.h"

static void near(double got, double want, double tol)
{
	if (fabs(got - want) > tol)
		fail_msg("got %.9g, want %.9g", got, want);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct opts o;
	struct hist *lat = xmalloc(sizeof(*lat)), *lat2 = xmalloc(sizeof(*lat2));
	struct result r = {.wl = &wl_udp_rr, .cfg = &o, .duration_s = 2.0, .warmup_s = 1,
			   .lat = lat, .lat2 = lat2, .server_local = true};
	double v[64];

	opts_defaults(&o, wl_udp_rr.overrides);
	o.window = 7;
	hist_reset(lat);
	hist_reset(lat2);
	for (uint64_t i = 1; i <= 1000; i++)
		hist_record(lat, i * 1000); /* 1..1000 us */
	r.client = (struct side_result){.present = true, .processes = 2, .user_s = 0.25, .sys_s = 1.75};
	r.client.c.transactions = 200000;
	r.client.c.tx_packets = r.client.c.rx_packets = 200000;
	r.client.c.syscalls = 500000;
	r.server = (struct side_result){.present = true, .processes = 1, .user_s = 0.5, .sys_s = 1.5};
	r.server.c.rx_packets = 200010;
	cJSON *doc = out_result_json(&r);

	figures_of(doc, v);
	near(v[0], 100000.0, 1e-3);				      /* transactions/s */
	near(json_path(doc, "latency_us.p50"), 500.0, 500.0 * 0.01); /* within the histogram's 1% */
	near(json_path(doc, "latency_us.max"), 1000.0, 1e-6);
	near(json_path(doc, "sides.client.cpu_us_per_transaction"), 10.0, 1e-3);
	near(json_path(doc, "sides.server.cpu_us_per_transaction"), 10.0, 1e-3);
	near(json_path(doc, "sides.client.syscalls_per_transaction"), 2.5, 1e-3);
	near(json_path(doc, "sides.client.user_s"), 0.25, 1e-9);
	near(json_path(doc, "packets_per_s"), 100005.0, 1e-3);
	near(json_path(doc, "config.window"), 7, 0);
	assert_true(isnan(json_path(doc, "connect_latency_us.p50"))); /* udp-rr has none */
	assert_true(isnan(json_path(doc, "sides.nope.x")));
	near(json_path(doc, "schema"), RESULT_SCHEMA, 0);

	/* The printed text parses back to the same figures. */
	char *txt = cJSON_Print(doc);
	cJSON *back = cJSON_Parse(txt);
	double w[64];

	figures_of(back, w);
	for (int f = 0; f < nfigures; f++)
		assert_true((isnan(v[f]) && isnan(w[f])) || v[f] == w[f]);
	cJSON_free(txt);
	cJSON_Delete(back);
	cJSON_Delete(doc);
	free(lat);
	free(lat2);
	opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
