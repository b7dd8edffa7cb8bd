/* chart.c: the report page's pictures as inline SVG, drawn here so the page needs nothing
 * but a browser: lines over a linear, log or "nines" axis (a CDF, a sweep with whiskers),
 * horizontal bars with interval whiskers and a reference line (explore's ranking, compare's
 * ratios, time per syscall), and stacked bars (CPU per side, user and system).
 * It writes SVG; it reads nothing but its arguments.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/chart.h"
#include "report/out.h"

#define CW 860.0 /* the whole picture */
#define ML 70.0 /* margins: room for the y labels */
#define MR 190.0 /* the legend */
#define MT 34.0
#define MB 48.0

const char *const chart_palette[CHART_COLOURS] = PALETTE;

static double ax_map(enum chart_axis a, double v)
{
	switch (a) {
	case AX_LOG: return log10(v > 1e-12 ? v : 1e-12);
	case AX_NINES: return -log10(1 - (v < 0.999999 ? v : 0.999999));
	default: return v;
	}
}

static void fmt_num(char *out, size_t cap, double v)
{
	double a = fabs(v);

	if (a >= 1e6 && fmod(a, 1e6) == 0)
		snprintf(out, cap, "%.0fM", v / 1e6);
	else if (a >= 1e4 && fmod(a, 1e3) == 0)
		snprintf(out, cap, "%.0fk", v / 1e3);
	else if (a >= 100 || a == floor(a))
		snprintf(out, cap, "%.0f", v);
	else if (a >= 1)
		snprintf(out, cap, "%.1f", v);
	else
		snprintf(out, cap, "%.3g", v);
}

/* Ticks of an axis between lo and hi (in data units): decades 1-2-5 on a log axis, the nines
 * on a nines axis, about 6 round steps on a linear one. */
static int ticks(enum chart_axis a, double lo, double hi, double *t, int cap)
{
	int n = 0;

	/* The range comes from a file: nothing to mark unless it is finite and in order. */
	if (!isfinite(lo) || !isfinite(hi) || hi < lo)
		return 0;
	if (a == AX_LOG) {
		/* Decades from lo's (at least 1e-12, where ax_map stops) to hi's: at most ~320 of
		 * them, each tried once, however small lo is (a denormal's decade is 0). */
		double d = pow(10, floor(log10(fmax(lo, 1e-12))));

		for (int k = 0; k < 400 && d <= hi * 1.0001 && n < cap; k++, d *= 10)
			for (int m = 0; m < 3 && n < cap; m++) {
				double v = d * (m == 0 ? 1 : m == 1 ? 2 : 5);

				if (v >= lo * 0.9999 && v <= hi * 1.0001)
					t[n++] = v;
			}
		return n;
	}
	if (a == AX_NINES) {
		static const double nines[] = {0, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999, 0.999999};

		for (size_t i = 0; i < sizeof(nines) / sizeof(nines[0]) && n < cap; i++)
			if (nines[i] <= hi + 1e-12)
				t[n++] = nines[i];
		return n;
	}
	double span = hi - lo, step = pow(10, floor(log10(span > 0 ? span : 1)));

	if (span / step < 2.5)
		step /= 5;
	else if (span / step < 5)
		step /= 2;
	if (!isfinite(span) || !(step > 0) || !isfinite(step))
		return 0;
	for (double v = ceil(lo / step) * step; v <= hi + step * 1e-6 && n < cap; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

static void tick_label(char *out, size_t cap, enum chart_axis a, double v)
{
	if (a == AX_NINES)
		snprintf(out, cap, "%g%%", v * 100);
	else
		fmt_num(out, cap, v);
}

/* A text's attributes that fit it into avail px: squeezed (textLength) when at about 6.6 px a
 * character (12 px sans) it would be longer, so no caption runs past the picture's edge. */
static void text_fit(FILE *f, const char *s, double avail)
{
	if (s && strlen(s) * 6.6 > avail)
		html_printf(f, " textLength=\"%.0f\" lengthAdjust=\"spacingAndGlyphs\"", avail);
}

static void svg_open(FILE *f, double h, const char *title)
{
	html_printf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%.0f\" "
		   "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
		   "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		   "<text x=\"%.0f\" y=\"20\" font-size=\"14\" font-weight=\"bold\">",
		CW, h, CW, h, ML);
	html_text(f, title);
	html_printf(f, "</text>\n");
}

struct frame {
	enum chart_axis xa, ya;
	double x0, x1, y0, y1; /* mapped */
	double w, h;
};

static double px(const struct frame *fr, double v)
{
	return ML + (ax_map(fr->xa, v) - fr->x0) / (fr->x1 - fr->x0) * fr->w;
}

static double py(const struct frame *fr, double v)
{
	return MT + fr->h - (ax_map(fr->ya, v) - fr->y0) / (fr->y1 - fr->y0) * fr->h;
}

static void axes(FILE *f, const struct frame *fr, const struct chart *c)
{
	double t[64];
	char lab[32];
	int n;

	n = c->xnames ? 0 : ticks(c->xa, c->xmin, c->xmax, t, 64); /* named: chart_lines labels */
	for (int i = 0; i < n; i++) {
		double x = px(fr, t[i]);

		html_printf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", x,
			MT, x, MT + fr->h);
		tick_label(lab, sizeof(lab), c->xa, t[i]);
		html_printf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x,
			MT + fr->h + 16, lab);
	}
	n = ticks(c->ya, c->ymin, c->ymax, t, 64);
	for (int i = 0; i < n; i++) {
		double y = py(fr, t[i]);

		html_printf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", ML,
			y, ML + fr->w, y);
		tick_label(lab, sizeof(lab), c->ya, t[i]);
		html_printf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", ML - 6, y + 4, lab);
	}
	html_printf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		   "stroke=\"#444\"/>\n", ML, MT, fr->w, fr->h);
	html_printf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\"", ML + fr->w / 2,
		    MT + fr->h + 36);
	text_fit(f, c->xlabel, fr->w);
	html_printf(f, ">");
	html_text(f, c->xlabel);
	html_printf(f, "</text>\n<text transform=\"translate(14,%.1f) rotate(-90)\" "
		    "text-anchor=\"middle\"", MT + fr->h / 2);
	text_fit(f, c->ylabel, fr->h + MT + MB - 8);
	html_printf(f, ">");
	html_text(f, c->ylabel);
	html_printf(f, "</text>\n");
}

static void legend(FILE *f, const struct frame *fr, int i, const char *label, const char *colour)
{
	double y = MT + 10 + i * 18;

	html_printf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"4\" fill=\"%s\"/>"
		   "<text x=\"%.1f\" y=\"%.1f\"",
		ML + fr->w + 12, y - 4, colour, ML + fr->w + 32, y + 1);
	text_fit(f, label, MR - 38);
	html_printf(f, ">");
	html_text(f, label);
	html_printf(f, "</text>\n");
}

/* One series: its line, whiskers and markers, in the frame's clip. */
static void series_draw(FILE *f, const struct frame *fr, const struct chart *c,
			const struct chart_series *s, const char *col)
{
	double ly = 0;

	html_printf(f, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		   "points=\"", col);
	for (int k = 0; k < s->n; k++) {
		double x = px(fr, s->x[k]), y = py(fr, s->y[k]);

		if (c->step && k)
			html_printf(f, "%.1f,%.1f ", x, ly);
		html_printf(f, "%.1f,%.1f ", x, y);
		ly = y;
	}
	html_printf(f, "\"/>\n");
	for (int k = 0; s->lo && k < s->n; k++) {
		double x = px(fr, s->x[k]), lo = py(fr, s->lo[k]), hi = py(fr, s->hi[k]);

		html_printf(f, "<path class=\"spread\" d=\"M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8\" "
			    "stroke=\"%s\" fill=\"none\"/>\n", x, lo, hi, x - 4, lo, x - 4, hi, col);
	}
	for (int k = 0; c->markers && k < s->n; k++)
		html_printf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
			    px(fr, s->x[k]), py(fr, s->y[k]), col);
}

void chart_lines(FILE *f, const struct chart *c, const struct chart_series *s, int ns)
{
	struct frame fr = {
	    .xa = c->xa, .ya = c->ya, .w = CW - ML - MR, .h = c->height > 0 ? c->height : 300};

	fr.x0 = ax_map(c->xa, c->xmin);
	fr.x1 = ax_map(c->xa, c->xmax);
	fr.y0 = ax_map(c->ya, c->ymin);
	fr.y1 = ax_map(c->ya, c->ymax);
	if (!(fr.x1 > fr.x0))
		fr.x1 = fr.x0 + 1;
	if (!(fr.y1 > fr.y0))
		fr.y1 = fr.y0 + 1;
	svg_open(f, MT + fr.h + MB, c->title);
	axes(f, &fr, c);
	/* What is drawn stays in the frame (a nested svg clips): a tail past the axis' end is
	 * cut at the frame, never drawn over the legend. */
	html_printf(f, "<svg class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		    "viewBox=\"%.1f %.1f %.1f %.1f\">\n", ML - 4, MT - 4, fr.w + 8, fr.h + 8, ML - 4,
		    MT - 4, fr.w + 8, fr.h + 8);
	if (!isnan(c->ref)) {
		double y = py(&fr, c->ref);

		html_printf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
			   "stroke-width=\"1.5\" stroke-dasharray=\"6,4\"/><text x=\"%.1f\" y=\"%.1f\" fill=\"#000\" "
			   "text-anchor=\"end\">",
			ML, y, ML + fr.w, y, ML + fr.w - 4, y - 5);
		html_text(f, c->ref_label ? c->ref_label : "");
		html_printf(f, "</text>\n");
	}
	for (int i = 0; i < ns; i++)
		series_draw(f, &fr, c, &s[i], s[i].colour ? s[i].colour : chart_palette[i % CHART_COLOURS]);
	html_printf(f, "</svg>\n");
	for (int i = 0, nl = 0; i < ns; i++)
		if (s[i].label) /* series without one share the legend of one that has */
			legend(f, &fr, nl++, s[i].label,
			       s[i].colour ? s[i].colour : chart_palette[i % CHART_COLOURS]);
	for (int k = 0; c->xnames && k < c->nxnames; k++) {
		html_printf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">",
			px(&fr, k), MT, px(&fr, k), MT + fr.h, px(&fr, k), MT + fr.h + 16);
		html_text(f, c->xnames[k]);
		html_printf(f, "</text>\n");
	}
	html_printf(f, "</svg>\n");
}

#define BAR_ROW 24.0		 /* a bar's row */
#define BAR_LW 300.0		 /* the labels' column */
#define BAR_W (CW - BAR_LW - 40) /* the bars' */

/* A bar chart's axis: its range in data units, and that range mapped (ax_map). */
struct bar_axis {
	enum chart_axis xa;
	double lo, hi, m0, m1;
};

/* The x of v, clamped to the axis. */
static double bar_x(const struct bar_axis *ax, double v)
{
	return BAR_LW + (ax_map(ax->xa, fmin(fmax(v, ax->lo), ax->hi)) - ax->m0) /
				(ax->m1 - ax->m0) * BAR_W;
}

/* The axis of n bars: each value and whisker, and the reference, in range. */
static void bar_axis(struct bar_axis *ax, const struct chart_bar_opts *o, const struct chart_bar *b,
		     int n)
{
	double ref = o->ref, lo = isnan(ref) ? 0 : ref, hi = isnan(ref) ? 0 : ref;
	enum chart_axis xa = o->xa;

	for (int i = 0; i < n; i++) {
		double a = isnan(b[i].lo) ? b[i].v : b[i].lo, z = isnan(b[i].hi) ? b[i].v : b[i].hi;

		lo = fmin(lo, fmin(a, b[i].v));
		hi = fmax(hi, fmax(z, b[i].v));
	}
	if (xa == AX_LOG && !isnan(ref) && ref > 0) {
		/* Ratios: symmetric around the reference in log, at most 10x either way; a whisker
		 * past that ends in an arrow at the edge. */
		double d = fmax(log10(fmax(hi, 1e-9) / ref), log10(ref / fmax(lo, 1e-9))) * 1.1;

		d = fmin(fmax(d, log10(1.1)), 1);
		lo = ref / pow(10, d);
		hi = ref * pow(10, d);
	} else if (!isnan(ref)) { /* around the reference: room on both sides */
		double d = fmax(hi - ref, ref - lo) * 1.1;

		xa = AX_LIN;
		lo = fmax(0, ref - d);
		hi = ref + d;
	} else {
		xa = AX_LIN;
		lo = fmin(0, lo);
		hi = hi > 0 ? hi * 1.08 : 1;
	}
	if (!(hi > lo))
		hi = lo + 1;
	*ax = (struct bar_axis){.xa = xa, .lo = lo, .hi = hi, .m0 = ax_map(xa, lo),
				.m1 = ax_map(xa, hi)};
}

/* Bar b in its row at y, from base: its label, the bar, its whisker, a hover title of all. */
static void bar_row(FILE *f, const struct bar_axis *ax, const struct chart_bar *b, double y,
		    double base)
{
	double x0 = bar_x(ax, fmin(base, b->v)), x1 = bar_x(ax, fmax(base, b->v));
	const char *col = b->colour ? b->colour : chart_palette[0];

	html_printf(f, "<g class=\"bar\"><title>");
	html_text(f, b->label);
	html_printf(f, ": %.4g", b->v);
	if (!isnan(b->lo))
		html_printf(f, " (interval %.4g to %.4g)", b->lo, b->hi);
	if (b->note) {
		html_printf(f, "; ");
		html_text(f, b->note);
	}
	html_printf(f, "</title><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"", BAR_LW - 8, y + 16);
	text_fit(f, b->label, BAR_LW - 12);
	html_printf(f, ">");
	html_text(f, b->label);
	html_printf(f, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
		   "opacity=\"0.8\"/>", x0, y + 4, fmax(x1 - x0, 1), BAR_ROW - 8, col);
	if (!isnan(b->lo)) {
		double a = bar_x(ax, b->lo), z = bar_x(ax, b->hi), ym = y + BAR_ROW / 2;

		html_printf(f, "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#222\" stroke-width=\"1.5\"/>", a, ym, z, ym);
		/* an end inside the axis is a bar, one past it an arrow */
		if (b->lo >= ax->lo)
			html_printf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>",
				a, y + 6, a, y + BAR_ROW - 6);
		else
			html_printf(f, "<path d=\"M%.1f %.1f l6 -4 v8 z\" fill=\"#222\"/>", a, ym);
		if (b->hi <= ax->hi)
			html_printf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>",
				z, y + 6, z, y + BAR_ROW - 6);
		else
			html_printf(f, "<path d=\"M%.1f %.1f l-6 -4 v8 z\" fill=\"#222\"/>", z, ym);
	}
	html_printf(f, "</g>\n");
}

void chart_bars(FILE *f, const struct chart_bar_opts *o, const struct chart_bar *b, int n)
{
	double h = n * BAR_ROW, t[64], ref = o->ref;
	struct bar_axis ax;
	char lab[32];

	bar_axis(&ax, o, b, n);
	svg_open(f, MT + h + 58, o->title);
	int nt = ticks(ax.xa, ax.lo, ax.hi, t, 64);

	for (int i = 0; i < nt; i++) {
		fmt_num(lab, sizeof(lab), t[i]);
		html_printf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			bar_x(&ax, t[i]), MT, bar_x(&ax, t[i]), MT + h, bar_x(&ax, t[i]),
			MT + h + 16, lab);
	}
	for (int i = 0; i < n; i++)
		bar_row(f, &ax, &b[i], MT + i * BAR_ROW, isnan(ref) ? ax.lo : ref);
	if (!isnan(ref)) {
		html_printf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
			   "stroke-width=\"1.5\" stroke-dasharray=\"6,4\"/><text x=\"%.1f\" y=\"%.1f\" fill=\"#000\">",
			bar_x(&ax, ref), MT, bar_x(&ax, ref), MT + h, bar_x(&ax, ref) + 4,
			MT + h + 30);
		html_text(f, o->ref_label ? o->ref_label : "");
		html_printf(f, "</text>\n");
	}
	/* The axis' caption under the bars, centred: the labels' column is no room for it. */
	html_printf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\"", BAR_LW + BAR_W / 2,
		    MT + h + 50);
	text_fit(f, o->xlabel, BAR_W);
	html_printf(f, ">");
	html_text(f, o->xlabel);
	html_printf(f, "%s</text>\n</svg>\n", ax.xa == AX_LOG ? " (log scale)" : "");
}

void chart_stacked(FILE *f, const char *title, const char *xlabel, const char *const part[2],
		   const struct chart_stack *s, int n)
{
	const double row = 26, lw = 160, w = CW - lw - 200;
	double hi = 0, h = n * row;
	static const char *const col[2] = {PALETTE_USER, PALETTE_SYSTEM}; /* as --plot's */
	char lab[32];

	for (int i = 0; i < n; i++)
		hi = fmax(hi, s[i].a + s[i].b);
	hi = hi > 0 ? hi * 1.1 : 1;
	svg_open(f, MT + h + 44, title);
	double t[64];
	int nt = ticks(AX_LIN, 0, hi, t, 64);

	for (int i = 0; i < nt; i++) {
		fmt_num(lab, sizeof(lab), t[i]);
		html_printf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			lw + t[i] / hi * w, MT, lw + t[i] / hi * w, MT + h, lw + t[i] / hi * w, MT + h + 16,
			lab);
	}
	for (int i = 0; i < n; i++) {
		double y = MT + i * row, wa = s[i].a / hi * w, wb = s[i].b / hi * w;

		html_printf(f, "<g class=\"bar\"><title>");
		html_text(f, s[i].label);
		html_printf(f, ": %s %.4g, %s %.4g</title><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
			part[0], s[i].a, part[1], s[i].b, lw - 8, y + 17);
		html_text(f, s[i].label);
		html_printf(f, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>"
			   "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\">%.3g</text></g>\n",
			lw, y + 4, wa, row - 8, col[0], lw + wa, y + 4, wb, row - 8, col[1], lw + wa + wb + 6,
			y + 17, s[i].a + s[i].b);
	}
	for (int k = 0; k < 2; k++)
		html_printf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
			lw + w + 60, MT + 4 + k * 18, col[k], lw + w + 78, MT + 14 + k * 18, part[k]);
	html_printf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\"", lw + w / 2, MT + h + 36);
	text_fit(f, xlabel, 2 * (lw + w / 2) - 20);
	html_printf(f, ">");
	html_text(f, xlabel);
	html_printf(f, "</text>\n</svg>\n");
}
