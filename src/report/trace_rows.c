/* trace_rows.c: see trace_rows.h. */
#include "report/trace_rows.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>

static const char *const stages[] = {"send", "device", "softirq", "socket", "wakeup", "receive"};
static const char *const what[] = {
	"send call(s) -> device queue", "device/backlog queue -> softirq",
	"softirq -> socket queue",	"socket queue -> read, awake",
	"woken -> running",		"read -> call returns",
};

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void fill(struct trace_row *r, const cJSON *dirs, const char *dir, const char *name,
		 double reads)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(dirs, dir),
							   name);
	double n = num(s, "count"), total = num(s, "total_us");

	r->seen = n > 0;
	r->p50 = r->seen ? num(s, "p50_us") : NAN;
	r->p99 = r->seen ? num(s, "p99_us") : NAN;
	r->mean = r->seen && reads > 0 && !isnan(total) ? total / reads : 0;
}

int trace_rows(const cJSON *trace, bool closed, struct trace_row *rows, double *sum)
{
	const cJSON *dirs = cJSON_GetObjectItemCaseSensitive(trace, "directions");
	const cJSON *pk = cJSON_GetObjectItemCaseSensitive(trace, "packets");
	double reads[2] = {num(pk, "read_by_server"), num(pk, "read_by_clients")};
	int n = 0;

	*sum = 0;
	if (!cJSON_IsObject(dirs))
		return 0;
	for (int d = 0; d < 2; d++) {
		const char *dir = d ? "answer" : "request";

		for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++, n++) {
			snprintf(rows[n].label, sizeof(rows[n].label), "%s %s", dir, stages[i]);
			rows[n].desc = what[i];
			rows[n].part = d ? TRACE_PART_ANSWER : TRACE_PART_REQUEST;
			fill(&rows[n], dirs, dir, stages[i], reads[d]);
		}
		if (d)
			continue;
		snprintf(rows[n].label, sizeof(rows[n].label), "server user space");
		rows[n].desc = "read returns -> answer's send";
		rows[n].part = TRACE_PART_SERVER;
		fill(&rows[n++], dirs, "answer", "user", reads[0]);
	}
	if (closed) {
		snprintf(rows[n].label, sizeof(rows[n].label), "client user space");
		rows[n].desc = "read returns -> its next send";
		rows[n].part = TRACE_PART_CLIENT;
		fill(&rows[n++], dirs, "request", "user", reads[1]);
	}
	for (int i = 0; i < n; i++)
		*sum += rows[i].mean;
	return n;
}

bool trace_one_packet_each_way(const cJSON *trace, double answered)
{
	const cJSON *pk = cJSON_GetObjectItemCaseSensitive(trace, "packets");

	return answered > 0 && fabs(num(pk, "read_by_server") / answered - 1) <= 0.01 &&
	       fabs(num(pk, "read_by_clients") / answered - 1) <= 0.01;
}
