/* Results to JSON and back: every figure read from the document is the number the result
 * struct holds, and the effective config survives the trip. A saved result read back is
 * untrusted input: what sockbench writes passes the check, a number out of range is refused
 * with its key named, control characters come back as \xNN, and the page's writer escapes
 * every string it is given; the charts and flame graphs survive crafted figures. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <cmocka.h>
#include <unistd.h>

#include "base/json_budget.h"
#include "base/result_file.h"
#include "base/safe_json.h"
#include "base/safe_text.h"
#include "measure/hist.h"
#include "report/chart.h"
#include "report/out.h"
#include "multi/repeat.h"
#include "base/util.h"
#include "workload/workload.h"

static void near(double got, double want, double tol)
{
	if (fabs(got - want) > tol)
		fail_msg("got %.9g, want %.9g", got, want);
}

static cJSON *a_result(struct opts *op);

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

/* A run's document as sockbench writes it (caller frees; o freed by the caller too). */
static cJSON *a_result(struct opts *o)
{
	static struct hist lat, lat2;
	struct result r = {.wl = &wl_udp_rr, .cfg = o, .duration_s = 2.0, .warmup_s = 1,
			   .lat = &lat, .lat2 = &lat2, .server_local = true};

	opts_defaults(o, wl_udp_rr.overrides);
	hist_reset(&lat);
	hist_reset(&lat2);
	for (uint64_t i = 1; i <= 1000; i++)
		hist_record(&lat, i * 1000);
	r.client = (struct side_result){.present = true, .processes = 1, .user_s = 0.5, .sys_s = 1};
	r.client.c.transactions = 200000;
	r.server = (struct side_result){.present = true, .processes = 1, .user_s = 0.5, .sys_s = 1};
	return out_result_json(&r);
}

static void refused(cJSON *doc, const char *why_has)
{
	char why[300] = "";

	assert_int_equal(result_file_check(doc, why, sizeof(why)), -EINVAL);
	if (!strstr(why, why_has))
		fail_msg("refused with '%s', not '%s'", why, why_has);
	cJSON_Delete(doc);
}

/* What sockbench writes passes; each number out of its range is refused, its key named. */
static void test_result_check(void **state)
{
	(void)state;
	struct opts o;
	char why[300] = "";
	cJSON *doc = a_result(&o);

	assert_int_equal(result_file_check(doc, why, sizeof(why)), 0);
	cJSON_ReplaceItemInObject(doc, "duration_s", cJSON_CreateNumber(INFINITY));
	refused(doc, "duration_s is not a finite number >= 0");
	opts_free(&o);
	doc = a_result(&o);
	cJSON_ReplaceItemInObject(doc, "rate", cJSON_CreateNumber(-1));
	refused(doc, "rate is not a finite number >= 0");
	opts_free(&o);
	doc = a_result(&o);
	cJSON_ReplaceItemInObject(doc, "errors", cJSON_CreateNumber(NAN));
	refused(doc, "errors is not a finite number");
	opts_free(&o);
	doc = a_result(&o);
	cJSON *pt = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "latency_us"),
							   "cdf"), 2);
	cJSON_ReplaceItemInArray(pt, 1, cJSON_CreateNumber(1.5));
	refused(doc, "latency_us.cdf[2][1] is not a number from 0 to 1");
	opts_free(&o);
	doc = a_result(&o);
	cJSON_AddNumberToObject(doc, "anything", 1e300);
	refused(doc, "anything is not a finite number");
	/* From text: 1e400 reads as infinity. */
	refused(cJSON_Parse("{\"results\": [{}, {\"duration_s\": 1e400}]}"),
		"results[1].duration_s is not a finite number >= 0");
	/* Nested past the depth allowed. */
	char deep[200] = "";

	for (int i = 0; i < 40; i++)
		strcat(deep, "[");
	for (int i = 0; i < 40; i++)
		strcat(deep, "]");
	refused(cJSON_Parse(deep), "nested deeper than 32 levels");
	opts_free(&o);
}

/* Keys and strings with control characters come back as safe text; others untouched. */
static void test_result_strings(void **state)
{
	(void)state;
	cJSON *doc = cJSON_Parse("{\"h\\u001b[2K\": \"a\\u001b]0;x\\u0007b\\u009bc\", "
				 "\"ok\": \"caf\\u00e9 \\u2014 d\"}");
	char why[64];

	assert_int_equal(result_file_check(doc, why, sizeof(why)), 0);
	assert_string_equal(doc->child->string, "h\\x1b[2K");
	assert_string_equal(doc->child->valuestring, "a\\x1b]0;x\\x07b\\xc2\\x9bc");
	assert_string_equal(cJSON_GetObjectItem(doc, "ok")->valuestring, "caf\xc3\xa9 \xe2\x80\x94 d");
	cJSON_Delete(doc);
}

static void test_safe_text(void **state)
{
	(void)state;
	char out[64];

	assert_string_equal(safe_text(out, sizeof(out), "a\x7f\r\n\tz"), "a\\x7f\\x0d\\x0a\\x09z");
	/* A lone C1 byte, a cut sequence, an overlong '<' and a surrogate: not UTF-8 text. */
	assert_string_equal(safe_text(out, sizeof(out), "\x9b\xc3"), "\\x9b\\xc3");
	assert_string_equal(safe_text(out, sizeof(out), "\xc0\xbc"), "\\xc0\\xbc");
	assert_string_equal(safe_text(out, sizeof(out), "\xed\xa0\x80"), "\\xed\\xa0\\x80");
	assert_string_equal(safe_text(out, sizeof(out), "\xc2\xa0\xf0\x9f\x98\x80"),
			    "\xc2\xa0\xf0\x9f\x98\x80");
	assert_string_equal(safe_text(out, 6, "ab\x1b"), "ab"); /* cut before a whole \xNN */
	assert_false(safe_text_needed("plain \xc3\xa9"));
	assert_true(safe_text_needed("\x1b"));
}

/* A log line's text: a newline never ends it; a quoted value's end is plain, even cut short. */
static void test_safe_text_log(void **state)
{
	(void)state;
	char out[64];

	assert_string_equal(safe_text_log(out, sizeof(out), "a\nb\r\tc\x1b]0;t\x07\xc2\x9b\\\""),
			    "a\\nb\\r\\tc\\x1b]0;t\\x07\\xc2\\x9b\\\"");
	assert_string_equal(safe_text_quoted(out, sizeof(out), "k=\"v\"\\\n"),
			    "\"k=\\\"v\\\"\\\\\\n\"");
	assert_string_equal(safe_text_quoted(out, 6, "abcdef"), "\"abc\"");
	assert_string_equal(safe_text_quoted(out, 6, "ab\ncd"), "\"ab\""); /* not half of \n */
	assert_string_equal(safe_text_quoted(out, 2, "ab"), "");
	assert_string_equal(safe_text_log(out, 4, "a\nb"), "a\\n");
	assert_string_equal(safe_text_log(out, sizeof(out), "caf\xc3\xa9"), "caf\xc3\xa9");
}

/* A peer's document made safe text whole: keys and strings at any depth; a constant key and a
 * referenced string are not the tree's to replace (nor to free). */
static void test_safe_json(void **state)
{
	(void)state;
	cJSON *j = cJSON_Parse("{\"a\\u001b\":[{\"b\":\"x\\u009by\\u007f\"}],\"n\":1}");

	assert_non_null(j);
	cJSON_AddItemToObjectCS(j, "c", cJSON_CreateStringReference("r\x1b"));
	assert_int_equal(safe_json_tree(j), 0);
	assert_string_equal(j->child->string, "a\\x1b");
	assert_string_equal(j->child->child->child->valuestring, "x\\xc2\\x9by\\x7f");
	assert_string_equal(cJSON_GetObjectItem(j, "c")->valuestring, "r\x1b");
	cJSON_Delete(j);
}

/* A parse counted against a budget: it takes what malloc gave, past the budget it fails as
 * over (not as text that is not JSON) with its partial tree given back, and the least a text
 * takes counts its values by the commas outside strings. */
static void test_json_budget(void **state)
{
	(void)state;
	const char *keys = "{\"a,b\":\"x\\\",\",\"c\":1}"; /* {"a,b":"x\",","c":1} */
	struct json_budget b;
	size_t node = sizeof(cJSON);
	cJSON *d;

	assert_int_equal(json_budget_least("[0,0,0]", 7), 3 * node);
	assert_int_equal(json_budget_least(keys, strlen(keys)), 2 * node);
	assert_int_equal(json_budget_least("a,b,c", 5), 0);
	json_budget_begin(&b, 1 << 20);
	d = cJSON_Parse("[0,0,0,0]");
	json_budget_end();
	assert_non_null(d);
	assert_false(b.over || b.refused);
	assert_true(b.peak >= 5 * (node + 8) && b.peak < 5 * (node + 32));
	cJSON_Delete(d); /* after json_budget_end: freed as any other memory */
	json_budget_begin(&b, 4 * (node + 8));
	d = cJSON_Parse("[0,0,0,0]");
	json_budget_end();
	assert_null(d);
	assert_true(b.over);
	assert_false(b.refused);
	assert_int_equal(b.used, 0);
}

/* html_printf: the format is markup, every conversion is text. */
static void test_html_printf(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	html_printf(f, "<td class=\"%s\">%-6s|%.2s|%d %.1f%% %5.1f %lu %c</td>", "a\"b",
		    "<i>", "&x", -3, 2.25, 1.0, 7ul, '<');
	html_text(f, "'");
	fclose(f);
	assert_string_equal(buf, "<td class=\"a&quot;b\">&lt;i&gt;   |&amp;x|-3 2.2% "
				 "  1.0 7 &lt;</td>&#39;");
	free(buf);
}

static void on_alarm(int sig)
{
	(void)sig;
	_exit(3); /* a hang is a failure, not a stuck test run */
}

/* A denormal CDF point (its decade is 0), an infinite or reversed range: ticks end. */
static void test_chart_ranges(void **state)
{
	(void)state;
	double x[2] = {1e-323, 5}, y[2] = {0.5, 1};
	struct chart_series s = {.label = "s", .x = x, .y = y, .n = 2};
	double lims[][2] = {{1e-323 / 1.15, 5.75}, {0, INFINITY}, {-5, NAN}, {7, 3}, {-1e308, 1e308}};
	FILE *f = fopen("/dev/null", "w");

	signal(SIGALRM, on_alarm);
	alarm(10);
	for (size_t i = 0; i < sizeof(lims) / sizeof(lims[0]); i++)
		for (int a = AX_LIN; a <= AX_LOG; a++) {
			struct chart c = {.title = "t", .xlabel = "x", .ylabel = "y", .xa = a, .ya = a,
					  .xmin = lims[i][0], .xmax = lims[i][1], .ymin = lims[i][0],
					  .ymax = lims[i][1], .ref = NAN};
			struct chart_bar b = {"b", lims[i][0], lims[i][0], lims[i][1], NULL, NULL};

			chart_lines(f, &c, &s, 1);
			struct chart_bar_opts o = {.title = "t", .xlabel = "x", .ref = 1.0,
						   .ref_label = "r", .xa = (enum chart_axis)a};

			chart_bars(f, &o, &b, 1);
		}
	alarm(0);
	fclose(f);
}

/* One stack of 100,000 frames: drawn (cut at 512 rows, and said), no recursion to overflow. */
static void test_flame_deep(void **state)
{
	(void)state;
	size_t n = 100000, cap = n * 8;
	char *st = xmalloc(cap), *buf = NULL;
	size_t o = 0, len = 0;

	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(st + o, cap - o, "%sf%zu", i ? ";" : "", i);
	cJSON *prof = cJSON_CreateObject(), *stacks = cJSON_AddArrayToObject(prof, "stacks");
	cJSON *e = cJSON_CreateObject();

	cJSON_AddStringToObject(e, "stack", st);
	cJSON_AddNumberToObject(e, "samples", 1e6);
	cJSON_AddItemToArray(stacks, e);
	/* and 100,000 stacks side by side under one frame: a hash, not a list, finds each */
	for (size_t i = 0; i < n; i++) {
		char s[32];

		snprintf(s, sizeof(s), "client;g%zu", i);
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "stack", s);
		cJSON_AddNumberToObject(e, "samples", 1);
		cJSON_AddItemToArray(stacks, e);
	}
	FILE *f = open_memstream(&buf, &len);

	signal(SIGALRM, on_alarm);
	alarm(20);
	assert_int_equal(out_flamegraph(prof, "t", "id", false, f), 0);
	alarm(0);
	fclose(f);
	assert_non_null(strstr(buf, "stacks deeper than 512 frames cut"));
	assert_non_null(strstr(buf, "data-d=\"512\" data-s=\"1000000\" data-n=\"f511\""));
	assert_null(strstr(buf, "data-n=\"f512\""));
	free(buf);
	free(st);
	cJSON_Delete(prof);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_result_check),
		cmocka_unit_test(test_result_strings),
		cmocka_unit_test(test_safe_text),
		cmocka_unit_test(test_safe_text_log),
		cmocka_unit_test(test_safe_json),
		cmocka_unit_test(test_json_budget),
		cmocka_unit_test(test_html_printf),
		cmocka_unit_test(test_chart_ranges),
		cmocka_unit_test(test_flame_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
