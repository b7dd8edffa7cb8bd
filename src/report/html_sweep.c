/* html_sweep.c: the report's section for a sweep document: the median rate at each point
 * with its interval (a line per value of a second flag), and B/A at each point.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/chart.h"
#include "report/html_priv.h"
#include "report/out.h"

void html_sweep_section(FILE *f, const cJSON *d)
{
	const cJSON *pts = html_jget(d, "points"), *e;
	int n = cJSON_GetArraySize(pts), i = 0;
	bool cmp = cJSON_IsString(html_jget(d, "compare"));

	if (n < 1)
		return;
	double *v = xcalloc(8 * (size_t)n, sizeof(double));
	double *x = v, *ya = v + n, *la = v + 2 * n, *ha = v + 3 * n, *yb = v + 4 * n, *lb = v + 5 * n;
	double *r = v + 6 * n, *lr = v + 7 * n, *hr = xcalloc((size_t)n, sizeof(double)),
	       *hb = xcalloc((size_t)n, sizeof(double));
	char **names = xcalloc((size_t)n, sizeof(*names));
	double top = 0, rlo = 1, rhi = 1;
	char xl[128] = "", blabel[160];

	cJSON_ArrayForEach(e, pts) {
		const cJSON *kv;
		FILE *m;
		size_t len;

		if (!(m = open_memstream(&names[i], &len)))
			die("out of memory");
		bool first = true;

		cJSON_ArrayForEach(kv, html_jget(e, "values")) {
			char *s = cJSON_PrintUnformatted(kv);

			fprintf(m, "%s%s=%s", first ? "" : " ", kv->string, s);
			first = false;
			free(s);
		}
		fclose(m);
		x[i] = i;
		ya[i] = html_jnum(e, "a.rate.median");
		la[i] = html_jnum(e, "a.rate.ci_low");
		ha[i] = html_jnum(e, "a.rate.ci_high");
		yb[i] = html_jnum(e, "b.rate.median");
		lb[i] = html_jnum(e, "b.rate.ci_low");
		hb[i] = html_jnum(e, "b.rate.ci_high");
		r[i] = html_jnum(e, "ratio");
		lr[i] = html_jnum(e, "ci_low");
		hr[i] = html_jnum(e, "ci_high");
		top = fmax(top, fmax(ha[i], cmp ? hb[i] : 0));
		if (!isnan(lr[i]))
			rlo = fmin(rlo, lr[i]), rhi = fmax(rhi, hr[i]);
		i++;
	}
	cJSON_ArrayForEach(e, html_jget(d, "params")) {
		const char *p = cJSON_IsString(e) ? e->valuestring : e->string ? e->string : "?";

		snprintf(xl + strlen(xl), sizeof(xl) - strlen(xl), "%s--%s", *xl ? ", " : "", p);
	}
	snprintf(blabel, sizeof(blabel), "B: A plus %s", html_jstr(d, "compare"));
	/* Two swept flags: the first (which varies fastest) along x, a line per value of the
	 * second, as `sweep --plot` draws it. Otherwise every point along x. */
	const cJSON *params = html_jget(d, "params");
	int k1 = n, groups = 1;

	if (cJSON_GetArraySize(params) == 2) {
		const char *p2 = cJSON_GetStringValue(cJSON_GetArrayItem(params, 1));
		const cJSON *v0 = html_jget(cJSON_GetArrayItem(pts, 0), "values");

		for (k1 = 1; k1 < n; k1++)
			if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(
						   html_jget(cJSON_GetArrayItem(pts, k1), "values"), p2 ? p2 : ""),
					   cJSON_GetObjectItemCaseSensitive(v0, p2 ? p2 : ""), true))
				break;
		groups = k1 < n && n % k1 == 0 ? n / k1 : 1;
		if (groups == 1)
			k1 = n;
	}
	char **xn = names, **gl = xcalloc((size_t)groups, sizeof(*gl));
	struct chart_series *s = xcalloc((size_t)groups + 1, sizeof(*s));
	struct chart_series *rs = xcalloc((size_t)groups, sizeof(*rs));

	if (groups > 1) {
		const char *p1 = cJSON_GetStringValue(cJSON_GetArrayItem(params, 0));
		const char *p2 = cJSON_GetStringValue(cJSON_GetArrayItem(params, 1));

		xn = xcalloc((size_t)k1, sizeof(*xn));
		for (int k = 0; k < k1; k++) {
			char *v = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(
				html_jget(cJSON_GetArrayItem(pts, k), "values"), p1 ? p1 : ""));

			xn[k] = xmalloc(96);
			snprintf(xn[k], 96, "%s=%s", p1 ? p1 : "?", v ? v : "?");
			free(v);
		}
		for (int g = 0; g < groups; g++) {
			char *v = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(
				html_jget(cJSON_GetArrayItem(pts, g * k1), "values"), p2 ? p2 : ""));

			gl[g] = xmalloc(96);
			snprintf(gl[g], 96, "%s=%s", p2 ? p2 : "?", v ? v : "?");
			free(v);
		}
		snprintf(xl, sizeof(xl), "--%s (a line per --%s)", p1 ? p1 : "?", p2 ? p2 : "?");
	}
	int ns = 0;

	for (int g = 0; g < groups; g++) {
		s[ns++] = (struct chart_series){.label = groups > 1 ? gl[g] : "A", .x = x,
						.y = ya + g * k1, .lo = la + g * k1, .hi = ha + g * k1,
						.n = k1};
		rs[g] = (struct chart_series){.label = groups > 1 ? gl[g] : "B / A", .x = x,
					      .y = r + g * k1, .lo = lr + g * k1, .hi = hr + g * k1,
					      .n = k1};
	}
	if (cmp && groups == 1)
		s[ns++] = (struct chart_series){.label = blabel, .x = x, .y = yb, .lo = lb, .hi = hb,
						.n = n};
	char yl[64], title[200];

	snprintf(yl, sizeof(yl), "%s/s", html_unit_of(d));
	snprintf(title, sizeof(title), "Median rate%s at each point of the sweep (%.0f runs a point), "
		 "whiskers: its interval", groups > 1 && cmp ? " of A" : "", html_jnum(d, "runs"));
	struct chart c = {.title = title, .xlabel = xl, .ylabel = yl, .xa = AX_LIN, .ya = AX_LIN,
			  .xmin = -0.5, .xmax = k1 - 0.5, .ymin = 0, .ymax = top > 0 ? top * 1.1 : 1,
			  .markers = true, .ref = NAN, .xnames = (const char *const *)xn,
			  .nxnames = k1};

	chart_lines(f, &c, s, ns);
	if (cmp) {
		struct chart rc = c;
		char rt[200];

		snprintf(rt, sizeof(rt), "B / A at each point (B: A plus %s; geometric mean of the "
			 "paired runs), whiskers: 95%% interval", html_jstr(d, "compare"));
		rc.title = rt;
		rc.ylabel = "B / A";
		rc.ymin = fmax(0, rlo - (rhi - rlo) * 0.1 - 0.05);
		rc.ymax = rhi + (rhi - rlo) * 0.1 + 0.05;
		rc.ref = 1;
		rc.ref_label = "no difference (B/A = 1)";
		chart_lines(f, &rc, rs, groups);
	}
	if (xn != names) {
		for (int k = 0; k < k1; k++)
			free(xn[k]);
		free(xn);
	}
	for (int g = 0; g < groups; g++)
		free(gl[g]);
	free(gl);
	free(s);
	free(rs);
	html_printf(
	    f,
	    "<table class=\"grid\"><tr><th>point</th><th>A median</th><th>A interval</th>%s</tr>\n",
	    cmp ? "<th>B median</th><th>B/A</th><th>95% interval</th>" : "");
	for (i = 0; i < n; i++) {
		html_printf(f, "<tr><td>");
		html_text(f, names[i]);
		html_printf(f, "</td><td>");
		html_num(f, ya[i]);
		html_printf(f, "</td><td>");
		html_num(f, la[i]);
		html_printf(f, " to ");
		html_num(f, ha[i]);
		if (cmp) {
			html_printf(f, "</td><td>");
			html_num(f, yb[i]);
			html_printf(f, "</td><td>%.3f</td><td>%.3f to %.3f", r[i], lr[i], hr[i]);
		}
		html_printf(f, "</td></tr>\n");
		free(names[i]);
	}
	html_printf(f, "</table>\n");
	free(names);
	free(v);
	free(hr);
	free(hb);
}
