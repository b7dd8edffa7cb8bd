/* The text report's numbers and the CSV writer, without a run: thousands separators at every
 * length and sign; --fields names checked against the fields there are; a CSV row's cells are
 * the document's members as the JSON prints them, in the columns asked for, empty for null or
 * absent; a --runs document gives a row per run, then the summary's statistics; -v prints
 * every warning the short report prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include "report/out.h"
#include "report/out_priv.h"
#include "base/util.h"
#include "base/opts.h"
#include "workload/workload.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures/"
#endif

static void test_num(void **state)
{
	static const struct {
		double v;
		int dec;
		const char *want;
	} t[] = {
		{0, 0, "0"},	       {999, 0, "999"},	       {1000, 0, "1,000"},
		{12345, 0, "12,345"}, {174960000, 0, "174,960,000"}, {1609.74, 1, "1,609.7"},
		{-1234567.5, 1, "-1,234,567.5"}, {100000, 2, "100,000.00"}, {0.25, 2, "0.25"},
		{NAN, 1, "-"},
	};
	char buf[48];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_string_equal(fmt_sep(buf, sizeof(buf), t[i].v, t[i].dec), t[i].want);
}

static void test_fields_check(void **state)
{
	char err[4400];

	(void)state;
	assert_int_equal(out_fields_check(NULL, "rate,latency_us.p99,sides.client.cpu_us_per_unit", err,
					  sizeof(err)), 0);
	assert_int_equal(out_fields_check(NULL, "run,workload,gbit_per_s", err, sizeof(err)), 0);
	assert_int_not_equal(out_fields_check(NULL, "rate,latency_us.p98", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "latency_us.p98 is not a field"));
	assert_non_null(strstr(err, "latency_us.p99")); /* the valid ones are listed */
	assert_int_not_equal(out_fields_check(NULL, "rate,,run", err, sizeof(err)), 0);
	assert_int_not_equal(out_fields_check(NULL, "rat", err, sizeof(err)), 0); /* no prefix match */
	assert_int_not_equal(out_fields_check(NULL, "rate,run,rate", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "--fields: rate is given twice"));
	assert_true(out_field_selected("rate,latency_us.p99", "latency_us.p99"));
	assert_false(out_field_selected("rate,latency_us.p99", "latency_us.p9"));
	assert_true(out_field_selected(NULL, "anything"));
}

/* Does the keys fixture of workload name (every path its JSON holds) list path? */
static bool fixture_has(const char *name, const char *path)
{
	char file[256], line[512];
	bool found = false;
	FILE *f;

	snprintf(file, sizeof(file), FIXTURES "keys/%s.keys", name);
	f = fopen(file, "r");
	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = !strcmp(line + (line[0] == '?'), path);
	}
	fclose(f);
	return found;
}

/* A workload's --fields are the paths its documents hold (tests/fixtures/keys, from real runs):
 * each field any workload has is taken exactly where that workload's keys list it. */
static void test_fields_of_workload(void **state)
{
	static char all[4400], err[4400];
	char *save = NULL;

	(void)state;
	assert_int_not_equal(out_fields_check(NULL, "?", all, sizeof(all)), 0);
	char *list = strstr(all, "docs/json.md): ");

	assert_non_null(list);
	for (char *w = strtok_r(list + 15, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		for (int i = 0; workloads[i]; i++) {
			const struct workload *wl = workloads[i];
			int f = figure_named(w, strlen(w)); /* a figure, listed by its name */
			bool has = !strcmp(w, "run") ||
				   fixture_has(wl->name, f >= 0 ? figures[f].path : w);

			if ((out_fields_check(wl, w, err, sizeof(err)) == 0) != has)
				fail_msg("%s --fields %s: %s, but its keys %s it", wl->name, w,
					 has ? err : "taken", has ? "hold" : "lack");
		}
	}
	assert_int_equal(out_fields_check(&wl_udp_rr, "rate,connect_latency_us.p50", err,
					  sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "connect_latency_us.p50 is not a field of udp-rr; the fields of "
				    "udp-rr"));
	assert_null(strstr(strstr(err, "the fields of"), "gbit_per_s"));
	assert_non_null(strstr(strstr(err, "the fields of"), "latency_p99_us"));
}

/* What f printed into a string (caller frees). */
static char *printed(void (*fn)(const cJSON *, const char *, FILE *), const cJSON *doc,
		     const char *fields)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(doc, fields, f);
	fclose(f);
	return buf;
}

/* CSV injection (OWASP): a text cell starting with = + - @ (or a tab or CR) is quoted and
 * prefixed with ', so a spreadsheet shows it as text; a number, negative too, stays a number;
 * quotes and commas are RFC 4180's. */
static void test_csv_formula(void **state)
{
	static const char *const cases[][2] = {
		{"=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""},
		{"+1+2", "\"'+1+2\""},
		{"-1+2", "\"'-1+2\""},
		{"@SUM(A1)", "\"'@SUM(A1)\""},
		{"\t=1", "\\x09=1"}, /* the tab is \x09 (safe_text): no longer a formula's start */
		{"-", "\"'-\""},
		{"-1", "-1"},
		{"-2.5", "-2.5"},
		{"1e3", "1e3"},
		{"-1.5E-3", "-1.5E-3"},
		{"udp-rr", "udp-rr"},
		{"a,b", "\"a,b\""},
		{"", ""},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		out_csv_text(f, cases[i][0]);
		fclose(f);
		if (strcmp(buf, cases[i][1]))
			fail_msg("cell '%s': wrote %s, not %s", cases[i][0], buf, cases[i][1]);
		free(buf);
	}
	/* The same through a row: text columns neutralised, numbers as numbers. */
	cJSON *doc = cJSON_Parse("{\"workload\":\"=cmd|' /C calc'!A0\",\"unit\":\"-x\","
				 "\"rate\":-1.5,\"duration_s\":2}");
	char *s = printed(out_csv_run, doc, "workload,unit,rate,duration_s");

	assert_string_equal(s, "workload,unit,rate,duration_s\n\"'=cmd|' /C calc'!A0\",\"'-x\",-1.5,2\n");
	free(s);
	cJSON_Delete(doc);
}

static void test_csv_run(void **state)
{
	cJSON *doc = cJSON_Parse("{\"workload\":\"udp-rr\",\"partial\":false,\"duration_s\":5.001,"
				 "\"unit\":\"transaction\",\"rate\":119745.123,\"loss_pct\":null,"
				 "\"latency_us\":{\"p50\":1355.8,\"p99\":5619.7},"
				 "\"sides\":{\"client\":{\"cpu_us_per_unit\":7.86},"
				 "\"server\":{\"cpu_us_per_unit\":7.54}}}");
	char *s;

	(void)state;
	s = printed(out_csv_run, doc, "rate,latency_us.p99,run,loss_pct,gbit_per_s,workload");
	assert_string_equal(s, "rate,latency_us.p99,run,loss_pct,gbit_per_s,workload\n"
			       "119745.123,5619.7,1,,,udp-rr\n");
	free(s);
	/* The default: the head, then each figure the document has, in the figure table's order. */
	s = printed(out_csv_run, doc, NULL);
	assert_string_equal(s, "run,workload,partial,duration_s,unit,rate,latency_us.p50,"
			       "latency_us.p99,sides.client.cpu_us_per_unit,"
			       "sides.server.cpu_us_per_unit\n"
			       "1,udp-rr,false,5.001,transaction,119745.123,1355.8,5619.7,7.86,7.54\n");
	free(s);
	cJSON_Delete(doc);
}

static void test_csv_runs(void **state)
{
	cJSON *doc = cJSON_Parse(
		"{\"kind\":\"runs\",\"workload\":\"tcp-rr\",\"summary\":{\"rate\":{\"median\":15,"
		"\"min\":10,\"max\":20,\"stddev\":7.0710678,\"ci_low\":10,\"ci_high\":20}},"
		"\"results\":[{\"workload\":\"tcp-rr\",\"rate\":10,\"unit\":\"transaction\"},"
		"{\"workload\":\"tcp-rr\",\"rate\":20,\"unit\":\"transaction\"}]}");
	char *s;

	(void)state;
	s = printed(out_csv_runs, doc, "unit,rate,workload");
	assert_string_equal(s, "run,unit,rate,workload\n"
			       "1,transaction,10,tcp-rr\n"
			       "2,transaction,20,tcp-rr\n"
			       "median,,15,tcp-rr\n"
			       "min,,10,tcp-rr\n"
			       "max,,20,tcp-rr\n"
			       "stddev,,7.0710678,tcp-rr\n"
			       "ci_low,,10,tcp-rr\n"
			       "ci_high,,20,tcp-rr\n");
	free(s);
	cJSON_Delete(doc);
}

/* The lines of the report of r, verbose or not, that start with prefix, one string. */
static char *report_lines(struct result *r, struct opts *o, bool verbose, const char *prefix)
{
	char *buf = NULL, *out = xcalloc(1, 1 << 16), *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	o->verbose = verbose;
	out_table(r, f);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, prefix, strlen(prefix)))
			strcat(strcat(out, line), "\n");
	free(buf);
	return out;
}

/* A tcp-stream whose server side sent no result, with errors, retransmits and steal: the short
 * report warns of each (the server named, no -100%), and -v prints every one of its lines. */
static void test_verbose_warnings(void **state)
{
	const struct workload *wl = workload_find("tcp-stream");
	struct opts o;
	struct hist lat, lat2;
	struct result r = {.wl = wl, .cfg = &o, .lat = &lat, .lat2 = &lat2, .duration_s = 2.5,
			   .partial = true, .server_local = true, .kernel_ok = true,
			   .machine_ok = true, .kread_open_us = -1, .kread_close_us = -1,
			   .softirq_inline_s = -1, .softirq_ksoftirqd_s = -1, .drain_s = -1};

	(void)state;
	opts_defaults(&o, wl->overrides);
	hist_reset(&lat);
	hist_reset(&lat2);
	snprintf(r.partial_reason, sizeof(r.partial_reason), "interrupted by SIGTERM");
	r.client.present = true;
	r.client.c.errors = 5;
	r.client.c.segs_out = 1000;
	r.machine.steal = 12;
	r.kernel = (struct snmp){.n = 2, .name = {"OutSegs", "RetransSegs"}, .v = {208901, 7}};
	char *brief = report_lines(&r, &o, false, "  warning: ");
	char *full = report_lines(&r, &o, true, "  warning: ");
	int n = 0;

	assert_non_null(strstr(brief, "errors: client 5"));
	assert_non_null(strstr(brief, "the server side sent no result"));
	assert_non_null(strstr(brief, "7 segments retransmitted"));
	assert_non_null(strstr(brief, "(steal)"));
	assert_null(strstr(brief, "-100"));
	for (char *line = brief, *end; (end = strchr(line, '\n')); line = end + 1, n++) {
		*end = '\0';
		if (!strstr(full, line))
			fail_msg("-v lacks \"%s\"", line);
	}
	assert_int_equal(n, 4);
	free(brief);
	free(full);
	opts_free(&o);
}

/* The headline reads the same in the short report and in -v's: the rate, then the count and
 * the window in parentheses, with thousands separators. */
static void test_same_headline(void **state)
{
	const struct workload *wl = workload_find("tcp-rr");
	struct opts o;
	struct hist lat, lat2;
	struct result r = {.wl = wl, .cfg = &o, .lat = &lat, .lat2 = &lat2, .duration_s = 2.0,
			   .kread_open_us = -1, .kread_close_us = -1, .softirq_inline_s = -1,
			   .softirq_ksoftirqd_s = -1, .drain_s = -1};

	(void)state;
	opts_defaults(&o, wl->overrides);
	hist_reset(&lat);
	hist_reset(&lat2);
	r.client.present = true;
	r.client.c.transactions = 2694516;
	char *brief = report_lines(&r, &o, false, "  transactions");
	char *full = report_lines(&r, &o, true, "  transactions");

	assert_string_equal(brief, "  transactions/s                    1,347,258  "
				   "(2,694,516 in 2.000 s)\n");
	assert_non_null(strstr(full, brief));
	free(brief);
	free(full);
	opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_num),
		cmocka_unit_test(test_fields_check),
		cmocka_unit_test(test_fields_of_workload),
		cmocka_unit_test(test_csv_formula),
		cmocka_unit_test(test_csv_run),
		cmocka_unit_test(test_csv_runs),
		cmocka_unit_test(test_verbose_warnings),
		cmocka_unit_test(test_same_headline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
