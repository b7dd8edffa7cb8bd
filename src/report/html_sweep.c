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

/* A sweep's points as its charts and its table draw them: each point's name, A's median rate
 * with its interval, B's, and B/A with its interval. */
struct sweep_points {
	int n;
	bool cmp;     /* a B beside A (sweep --compare): B/A at each point */
	char **names; /* "size=100 window=4" */
	double *x, *ya, *la, *ha, *yb, *lb, *hb, *r, *lr, *hr;
	double top, rlo, rhi; /* the highest interval's top; the ratios' range, 1 in it */
};

/* How the points are drawn: with two swept flags, groups of k1 points, the first flag (which
 * varies fastest) along x and a line per value of the second, as `sweep --plot` draws it;
 * otherwise one group, every point along x. */
struct sweep_axis {
	int k1, groups;
	char **xn;    /* the names along x: the points' own, or (groups) the first flag's values */
	char **gl;    /* each group's line: the second flag's value */
	char xl[128]; /* the x axis's label */
};

/* A point's name: its values, "size=100 window=4" (caller frees). */
static char *point_name(const cJSON *e)
{
	const cJSON *kv;
	char *name = NULL;
	size_t len;
	FILE *m;

	if (!(m = open_memstream(&name, &len)))
		die("out of memory");
	bool first = true;

	cJSON_ArrayForEach(kv, html_jget(e, "values")) {
		char *s = cJSON_PrintUnformatted(kv);

		fprintf(m, "%s%s=%s", first ? "" : " ", kv->string, s);
		first = false;
		free(s);
	}
	fclose(m);
	return name;
}

/* The n points of d. */
static void read_points(struct sweep_points *p, const cJSON *d, int n)
{
	double *v = xcalloc(10 * (size_t)n, sizeof(double));
	const cJSON *e;
	int i = 0;

	*p = (struct sweep_points){.n = n, .cmp = cJSON_IsString(html_jget(d, "compare")),
				   .names = xcalloc((size_t)n, sizeof(*p->names)), .x = v,
				   .ya = v + n, .la = v + 2 * n, .ha = v + 3 * n, .yb = v + 4 * n,
				   .lb = v + 5 * n, .hb = v + 6 * n, .r = v + 7 * n,
				   .lr = v + 8 * n, .hr = v + 9 * n, .rlo = 1, .rhi = 1};
	cJSON_ArrayForEach(e, html_jget(d, "points")) {
		p->names[i] = point_name(e);
		p->x[i] = i;
		p->ya[i] = html_jnum(e, "a.rate.median");
		p->la[i] = html_jnum(e, "a.rate.ci_low");
		p->ha[i] = html_jnum(e, "a.rate.ci_high");
		p->yb[i] = html_jnum(e, "b.rate.median");
		p->lb[i] = html_jnum(e, "b.rate.ci_low");
		p->hb[i] = html_jnum(e, "b.rate.ci_high");
		p->r[i] = html_jnum(e, "ratio");
		p->lr[i] = html_jnum(e, "ci_low");
		p->hr[i] = html_jnum(e, "ci_high");
		p->top = fmax(p->top, fmax(p->ha[i], p->cmp ? p->hb[i] : 0));
		if (!isnan(p->lr[i]))
			p->rlo = fmin(p->rlo, p->lr[i]), p->rhi = fmax(p->rhi, p->hr[i]);
		i++;
	}
}

/* name=value of flag name in point i's values (caller frees). */
static char *flag_value(const cJSON *pts, int i, const char *name)
{
	char *v = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(
		html_jget(cJSON_GetArrayItem(pts, i), "values"), name ? name : ""));
	char *out = xmalloc(96);

	snprintf(out, 96, "%s=%s", name ? name : "?", v ? v : "?");
	free(v);
	return out;
}

/* Groups: the first flag's values along x, the second's a line each. */
static void group_names(struct sweep_axis *a, const cJSON *params, const cJSON *pts)
{
	const char *p1 = cJSON_GetStringValue(cJSON_GetArrayItem(params, 0));
	const char *p2 = cJSON_GetStringValue(cJSON_GetArrayItem(params, 1));

	a->xn = xcalloc((size_t)a->k1, sizeof(*a->xn));
	for (int k = 0; k < a->k1; k++)
		a->xn[k] = flag_value(pts, k, p1);
	for (int g = 0; g < a->groups; g++)
		a->gl[g] = flag_value(pts, g * a->k1, p2);
	snprintf(a->xl, sizeof(a->xl), "--%s (a line per --%s)", p1 ? p1 : "?", p2 ? p2 : "?");
}

static void sweep_axis(struct sweep_axis *a, const cJSON *d, const struct sweep_points *p)
{
	const cJSON *params = html_jget(d, "params"), *pts = html_jget(d, "points"), *e;
	int n = p->n;

	*a = (struct sweep_axis){.k1 = n, .groups = 1, .xn = p->names};
	cJSON_ArrayForEach(e, params) {
		const char *s = cJSON_IsString(e) ? e->valuestring : e->string ? e->string : "?";

		snprintf(a->xl + strlen(a->xl), sizeof(a->xl) - strlen(a->xl), "%s--%s",
			 *a->xl ? ", " : "", s);
	}
	/* Two swept flags: the first (which varies fastest) along x, a line per value of the
	 * second, as `sweep --plot` draws it. Otherwise every point along x. */
	if (cJSON_GetArraySize(params) == 2) {
		const char *p2 = cJSON_GetStringValue(cJSON_GetArrayItem(params, 1));
		const cJSON *v0 = html_jget(cJSON_GetArrayItem(pts, 0), "values");
		int k1;

		for (k1 = 1; k1 < n; k1++)
			if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(
						   html_jget(cJSON_GetArrayItem(pts, k1), "values"), p2 ? p2 : ""),
					   cJSON_GetObjectItemCaseSensitive(v0, p2 ? p2 : ""), true))
				break;
		a->groups = k1 < n && n % k1 == 0 ? n / k1 : 1;
		a->k1 = a->groups == 1 ? n : k1;
	}
	a->gl = xcalloc((size_t)a->groups, sizeof(*a->gl));
	if (a->groups > 1)
		group_names(a, params, pts);
}

static void sweep_axis_free(struct sweep_axis *a, const struct sweep_points *p)
{
	if (a->xn != p->names) {
		for (int k = 0; k < a->k1; k++)
			free(a->xn[k]);
		free(a->xn);
	}
	for (int g = 0; g < a->groups; g++)
		free(a->gl[g]);
	free(a->gl);
}

/* The median rate at each point with its interval, a line per group (and B's beside A's, one
 * group only); with a B, B/A at each point too. */
static void sweep_charts(FILE *f, const cJSON *d, const struct sweep_points *p,
			 const struct sweep_axis *a)
{
	int k1 = a->k1, groups = a->groups, ns = 0;
	struct chart_series *s = xcalloc((size_t)groups + 1, sizeof(*s));
	struct chart_series *rs = xcalloc((size_t)groups, sizeof(*rs));
	char blabel[160], yl[64], title[200];

	snprintf(blabel, sizeof(blabel), "B: A plus %s", html_jstr(d, "compare"));
	for (int g = 0; g < groups; g++) {
		/* "A" only beside a B; alone, the line is the sweep's median rate */
		const char *al = p->cmp ? "A: the flags given" : "median rate";

		s[ns++] = (struct chart_series){.label = groups > 1 ? a->gl[g] : al, .x = p->x,
						.y = p->ya + g * k1, .lo = p->la + g * k1,
						.hi = p->ha + g * k1, .n = k1};
		rs[g] = (struct chart_series){.label = groups > 1 ? a->gl[g] : "B / A", .x = p->x,
					      .y = p->r + g * k1, .lo = p->lr + g * k1,
					      .hi = p->hr + g * k1, .n = k1};
	}
	if (p->cmp && groups == 1)
		s[ns++] = (struct chart_series){.label = blabel, .x = p->x, .y = p->yb, .lo = p->lb,
						.hi = p->hb, .n = p->n};
	snprintf(yl, sizeof(yl), "%s/s", html_unit_of(d));
	snprintf(title, sizeof(title), "Median rate%s at each point of the sweep (%.0f runs a point), "
		 "whiskers: its interval", groups > 1 && p->cmp ? " of A" : "",
		 html_jnum(d, "runs"));
	struct chart c = {.title = title, .xlabel = a->xl, .ylabel = yl, .xa = AX_LIN, .ya = AX_LIN,
			  .xmin = -0.5, .xmax = k1 - 0.5, .ymin = 0,
			  .ymax = p->top > 0 ? p->top * 1.1 : 1, .markers = true, .ref = NAN,
			  .xnames = (const char *const *)a->xn, .nxnames = k1};

	chart_lines(f, &c, s, ns);
	if (p->cmp) {
		struct chart rc = c;
		char rt[200];

		snprintf(rt, sizeof(rt), "B / A at each point (B: A plus %s; geometric mean of the "
			 "paired runs), whiskers: 95%% interval", html_jstr(d, "compare"));
		rc.title = rt;
		rc.ylabel = "B / A";
		rc.ymin = fmax(0, p->rlo - (p->rhi - p->rlo) * 0.1 - 0.05);
		rc.ymax = p->rhi + (p->rhi - p->rlo) * 0.1 + 0.05;
		rc.ref = 1;
		rc.ref_label = "no difference (B/A = 1)";
		chart_lines(f, &rc, rs, groups);
	}
	free(s);
	free(rs);
}

/* Every point's figures in a table. */
static void sweep_table(FILE *f, const struct sweep_points *p)
{
	html_printf(
	    f,
	    "<table class=\"grid\"><tr><th>point</th><th>A median</th><th>A interval</th>%s</tr>\n",
	    p->cmp ? "<th>B median</th><th>B/A</th><th>95% interval</th>" : "");
	for (int i = 0; i < p->n; i++) {
		html_printf(f, "<tr><td>");
		html_text(f, p->names[i]);
		html_printf(f, "</td><td>");
		html_num(f, p->ya[i]);
		html_printf(f, "</td><td>");
		html_num(f, p->la[i]);
		html_printf(f, " to ");
		html_num(f, p->ha[i]);
		if (p->cmp) {
			html_printf(f, "</td><td>");
			html_num(f, p->yb[i]);
			html_printf(f, "</td><td>%.3f</td><td>%.3f to %.3f", p->r[i], p->lr[i],
				    p->hr[i]);
		}
		html_printf(f, "</td></tr>\n");
	}
	html_printf(f, "</table>\n");
}

void html_sweep_section(FILE *f, const cJSON *d)
{
	int n = cJSON_GetArraySize(html_jget(d, "points"));
	struct sweep_points p;
	struct sweep_axis a;

	if (n < 1)
		return;
	read_points(&p, d, n);
	sweep_axis(&a, d, &p);
	sweep_charts(f, d, &p, &a);
	sweep_axis_free(&a, &p);
	sweep_table(f, &p);
	for (int i = 0; i < n; i++)
		free(p.names[i]);
	free(p.names);
	free(p.x);
}
