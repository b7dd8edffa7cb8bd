/* libFuzzer target: a saved result as `report` and `compare` read it, whoever wrote it. The
 * bytes go through the same check as a file (base/result_file.h: nesting, numbers, strings),
 * then, when they pass, through the report page (every kind of section, the charts, the flame
 * graph) and through compare with the document's runs split into A and B (the environment
 * diff, where the time moved, the table and the JSON). No crash, no hang, no leak, no undefined
 * behaviour; and what passed the check holds no number that is not finite and no string with
 * a control character. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/result_file.h"
#include "base/safe_text.h"
#include "multi/compare_priv.h"
#include "profile/moved.h"
#include "report/out.h"
#include "workload/workload.h"

static FILE *null_out(void)
{
	static FILE *f;

	if (!f) {
		f = fopen("/dev/null", "w");
		if (!f || !freopen("/dev/null", "w", stdout)) /* compare prints to stdout */
			abort();
	}
	return f;
}

/* The check's promise, walked independently of it (recursion is fine: it passed the depth). */
static void assert_clean(const cJSON *j)
{
	for (; j; j = j->next) {
		if (j->string && safe_text_needed(j->string))
			abort();
		if (cJSON_IsString(j) && safe_text_needed(j->valuestring))
			abort();
		if (cJSON_IsNumber(j) && !isfinite(j->valuedouble))
			abort();
		assert_clean(j->child);
	}
}

static void compare_halves(cJSON *doc)
{
	static struct side a, b;
	const cJSON *wl = cJSON_GetObjectItemCaseSensitive(doc, "workload");
	cJSON *results = cJSON_GetObjectItemCaseSensitive(doc, "results"), *it;
	int n = 0, k = cJSON_GetArraySize(results);

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.wl = b.wl = cJSON_IsString(wl) ? workload_find(wl->valuestring) : NULL;
	if (!a.wl)
		return;
	snprintf(a.label, sizeof(a.label), "a.json");
	snprintf(b.label, sizeof(b.label), "b.json");
	if (k >= 2) {
		cJSON_ArrayForEach(it, results) {
			struct side *s = n++ < k / 2 ? &a : &b;

			if (s->n < MAX_RUNS)
				s->docs[s->n++] = it;
		}
	} else {
		a.docs[a.n++] = b.docs[b.n++] = doc;
	}
	struct moved_set *mv = moved_of(a.docs, a.n, b.docs, b.n);

	/* The verdicts as compare makes them of two files: the primary figure, then the family. */
	struct verdict_plan plan = {.primary_fig = FIG_RATE};
	static struct verdict_row rows[NFIGURES];
	int nrows = compare_rows(&a, &b, false, rows, &plan);

	struct compare_report cr = {.a = &a, .b = &b, .rows = rows, .n = nrows, .plan = &plan,
				    .mv = mv, .mv_why = mv ? NULL : "none"};

	compare_print(&cr, false);
	compare_print(&cr, true);
	moved_free(mv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = null_out();
	char why[300];
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);

	if (!doc)
		return 0;
	if (result_file_check(doc, why, sizeof(why))) {
		if (!strstr(why, " is not ") && !strstr(why, "nested deeper"))
			abort(); /* a refusal names the key and what it should be */
		cJSON_Delete(doc);
		return 0;
	}
	assert_clean(doc);
	if (!report_check(doc)) {
		const char *name = "fuzz.json";

		if (out_report_html(&doc, &name, 1, f))
			abort();
	}
	compare_halves(doc);
	cJSON_Delete(doc);
	return 0;
}
