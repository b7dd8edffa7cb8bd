/* chart.h: inline SVG pictures for the report page (chart.c): lines, bars with whiskers,
 * stacked bars. Each call writes one <svg> element; values are in data units.
 */
#ifndef SB_CHART_H
#define SB_CHART_H

#include <stdbool.h>
#include <stdio.h>

enum chart_axis {
	AX_LIN,
	AX_LOG,
	AX_NINES, /* a fraction 0..1 drawn as its nines: 90%, 99%, 99.9%... equally spaced */
};

#include "report/palette.h"

#define CHART_COLOURS PALETTE_N
/* Result i's colour: chart_palette[i % CHART_COLOURS] (report/palette.h). */
extern const char *const chart_palette[CHART_COLOURS];

struct chart {
	const char *title, *xlabel, *ylabel;
	enum chart_axis xa, ya;
	double xmin, xmax, ymin, ymax;
	double height; /* of the plot area, px (0: 300) */
	bool step; /* join points as steps (a CDF) */
	bool markers;
	double ref; /* a labelled horizontal line (NAN: none) */
	const char *ref_label;
	const char *const *xnames; /* labels under x = 0, 1, ... (a categorical axis) */
	int nxnames;
};

struct chart_series {
	const char *label; /* in the legend; NULL: not there (one of a group drawn alike) */
	const double *x, *y;
	const double *lo, *hi; /* whiskers, or NULL */
	int n;
	const char *colour; /* NULL: the palette's */
};

void chart_lines(FILE *f, const struct chart *c, const struct chart_series *s, int ns);

struct chart_bar {
	const char *label;
	double v, lo, hi; /* lo, hi: NAN for no whisker */
	const char *colour;
	const char *note; /* added to the hover title */
};

/* A bar chart's title, axis and reference: a labelled vertical line at ref (NAN: none). */
struct chart_bar_opts {
	const char *title, *xlabel;
	double ref;
	const char *ref_label;
	enum chart_axis xa;
};

/* Horizontal bars, one a row, from the reference (or 0 when ref is NAN) to each value, with
 * whiskers where given. xa AX_LOG (with a reference: ratios) spaces the axis in log, at most
 * 10x either way of ref; a whisker past the edge ends in an arrow. */
void chart_bars(FILE *f, const struct chart_bar_opts *o, const struct chart_bar *b, int n);

struct chart_stack {
	const char *label;
	double a, b;
};

/* Horizontal bars of two parts (part[0], part[1]), their sum written after them. */
void chart_stacked(FILE *f, const char *title, const char *xlabel, const char *const part[2],
		   const struct chart_stack *s, int n);

#endif
