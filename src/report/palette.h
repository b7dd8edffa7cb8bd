/* palette.h: the colours every picture takes, the report page's SVG (chart.c) and gnuplot's
 * (--plot, knee --plot, sweep --plot: out_gp_palette), so a thing has one colour everywhere:
 * result i the i-th of PALETTE (12, distinct, assigned by index), user and system time, a run
 * that passed and one that failed.
 */
#ifndef SB_PALETTE_H
#define SB_PALETTE_H

#define PALETTE_N 12
#define PALETTE                                                                                \
	{"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf",      \
	 "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#d62728"}
#define PALETTE_USER "#4393c3"
#define PALETTE_SYSTEM "#d6604d"
#define PALETTE_PASS "#1a9850"
#define PALETTE_FAIL "#d73027"
#define PALETTE_LIMIT "#b2182b"

#endif
