/* html_trace.c: --trace on the report page: where a round trip goes, each stage's mean per
 * round trip as a bar in the round trip's order (the request's stages, the server's user
 * space, the answer's, the client's), p50 and p99 in each bar's hover, and the sum beside the
 * measured mean where the stages make up a round trip (trace_rows.c). */
#include <math.h>
#include <stdio.h>

#include "report/html_priv.h"
#include "report/out.h"
#include "report/trace_rows.h"

static const char *const part_colour[] = {
	[TRACE_PART_REQUEST] = "#2166ac", [TRACE_PART_SERVER] = "#7b3294",
	[TRACE_PART_ANSWER] = "#b35806",  [TRACE_PART_CLIENT] = "#1b7837",
};

void html_trace_chart(FILE *f, const struct cJSON *d)
{
	const struct cJSON *t = html_jget(d, "trace");
	struct trace_row rows[TRACE_ROWS];
	struct chart_bar b[TRACE_ROWS];
	char notes[TRACE_ROWS][96], title[200];
	double sum, answered = html_jnum(d, "latency_us.count") - html_jnum(d, "latency_us.unanswered");
	int n = trace_rows(t, !(html_jnum(d, "config.rate") > 0), rows, &sum);

	if (!n)
		return;
	for (int i = 0; i < n; i++) {
		snprintf(notes[i], sizeof(notes[i]), "%s; p50 %.1f us, p99 %.1f us", rows[i].desc,
			 rows[i].p50, rows[i].p99);
		b[i] = (struct chart_bar){rows[i].label, rows[i].mean, NAN, NAN,
					  part_colour[rows[i].part], notes[i]};
	}
	if (trace_one_packet_each_way(t, answered))
		snprintf(title, sizeof(title), "Where a round trip goes (--trace): %.1f of the %.1f us "
			 "measured", sum, html_jnum(d, "latency_us.mean"));
	else
		snprintf(title, sizeof(title), "Where a packet's time goes (--trace): per packet, not "
			 "one each way a round trip");
	struct chart_bar_opts o = {.title = title,
				   .xlabel = "microseconds per round trip (each stage's mean)",
				   .ref = NAN};

	chart_bars(f, &o, b, n);
}
