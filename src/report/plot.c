/* plot.c: --plot FILE.svg of one run, as a gnuplot script and its data (out.h): the latency
 * distribution (histogram and CDF on a log time axis, p50/p99/p99.9 marked; tcp-crr adds
 * connect() alone), and each side's CPU per unit split into user and system time. Every
 * figure comes from the result; the caller runs gnuplot on the script. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/figure_table.h"
#include "base/outfile.h"
#include "base/safe_text.h"
#include "base/util.h"
#include "report/out.h"
#include "report/out_priv.h"
#include "report/palette.h"
#include "report/trace_rows.h"

#define BINS_PER_DECADE 20

/* The histogram in log-spaced bins (BINS_PER_DECADE a decade, microseconds): one line per
 * bin that holds values, "x_us share_pct", then a blank line; the CDF the same way,
 * "x_us cumulative_pct". Two gnuplot blocks. */
static void lat_blocks(FILE *d, const struct hist *h)
{
	double bins[12 * BINS_PER_DECADE] = {0}; /* 1 ns .. 10^12 ns */
	double cum = 0;

	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		double us = (double)hist_bucket_mid(i) / 1e3;
		int b = (int)floor(log10(us * 1e3) * BINS_PER_DECADE);

		b = b < 0 ? 0
		    : b >= (int)(sizeof(bins) / sizeof(bins[0]))
			? (int)(sizeof(bins) / sizeof(bins[0])) - 1
			: b;
		bins[b] += (double)h->buckets[i];
	}
	for (size_t b = 0; b < sizeof(bins) / sizeof(bins[0]); b++)
		if (bins[b] > 0)
			fprintf(d, "%.6g %.6g\n",
				pow(10, ((double)b + 0.5) / BINS_PER_DECADE) / 1e3,
				100 * bins[b] / (double)h->count);
	fprintf(d, "\n\n");
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		cum += (double)h->buckets[i];
		fprintf(d, "%.6g %.6g\n", (double)hist_bucket_mid(i) / 1e3,
			100 * cum / (double)h->count);
	}
	fprintf(d, "\n\n");
}

static void side_cpu(FILE *d, const char *name, const struct side_result *s, double units)
{
	if (!s->present || units <= 0)
		fprintf(d, "%s 0 0\n", name);
	else
		fprintf(d, "%s %.4f %.4f\n", name, s->user_s * 1e6 / units, s->sys_s * 1e6 / units);
}

static void mark(FILE *g, const struct hist *h, double p, const char *label, const char *colour)
{
	double us = (double)hist_percentile(h, p) / 1e3;

	fprintf(g, "set arrow from %.6g, graph 0 to %.6g, graph 1 nohead dashtype 2 lc rgb '%s'\n",
		us, us, colour);
	fprintf(g,
		"set label '%s %.1f us' at %.6g, graph 0.97 rotate by 90 right offset -0.6,0 "
		"textcolor rgb '%s' font ',9'\n",
		label, us, us, colour);
}

/* -i: the rate of each interval and its p99 (a second axis; none for a stream), in the bottom
 * row of height h. */
static void plot_intervals(const struct result *r, FILE *g, const char *dp, int block, double h)
{
	bool lat = !isnan(r->intervals[0].p99_us);

	fprintf(g, "set size 1, %g\nset origin 0, 0\n", h - 0.02);
	fprintf(g, "set title 'each %g s interval (-i): rate%s'\n", r->cfg->interval,
		lat ? " and p99 latency" : "");
	if (workload_shows(r->wl) & SHOWS_MEGABYTES) /* a stream: Gbit/s, as its rate above */
		fprintf(g, "set xlabel 'seconds into the window'\nset ylabel 'Gbit/s'\n");
	else
		fprintf(g, "set xlabel 'seconds into the window'\nset ylabel '%ss/s'\n", r->wl->unit);
	fprintf(g, "set yrange [0:*]\nset xrange [0:%.4f]\n", r->duration_s);
	if (lat)
		fprintf(g, "set y2label 'p99 microseconds'\nset y2range [0:*]\nset y2tics\n");
	fprintf(g, "plot %s index %d using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#2166ac' "
		   "title 'rate'", dp, block);
	if (lat)
		fprintf(g, ", %s index %d using 1:3 axes x1y2 with linespoints lw 2 pt 5 ps 0.5 lc "
			   "rgb '#b35806' title 'p99'", dp, block);
	fprintf(g, "\nunset y2tics\nunset y2label\nset autoscale x\nset autoscale y\n");
}

/* What the plot draws, where each of its blocks lies in the data file (dp, as the script
 * names it), and how the page is shared: the rows at the bottom (the intervals', the trace's)
 * take k0 of it, 0.3 each, the rest k. */
struct plot_layout {
	bool lat, lat2, series, ivl; /* series: a stream's rate over the window */
	int cpu_block, ivl_block;    /* the trace's: ivl_block + ivl */
	struct trace_row rows[TRACE_ROWS];
	int ntr;
	double trace_sum;
	double k0, k;
	char dp[2 * PATH_MAX + 3];
};

/* --trace: the stages' means per round trip stacked in one bar, in the round trip's order
 * (trace_rows.c). Its data: one line, the label and the means. */
static void trace_block(const struct result *r, FILE *d, struct plot_layout *pl)
{
	pl->ntr = trace_rows(r->trace, !result_open_loop(r), pl->rows, &pl->trace_sum);
	if (!pl->ntr)
		return;
	fprintf(d, "\"round trip\"");
	for (int i = 0; i < pl->ntr; i++)
		fprintf(d, " %.4f", pl->rows[i].mean);
	fprintf(d, "\n\n\n");
}

/* The trace's bar, in the row of height 0.28 above the intervals' (or at the bottom). */
static void plot_trace(const struct result *r, FILE *g, const struct plot_layout *pl)
{
	bool trips = trace_one_packet_each_way(r->trace, (double)(r->lat->count - r->lat->censored));

	fprintf(g, "set size 1, 0.28\nset origin 0, %g\n", 0.3 * pl->ivl);
	if (trips)
		fprintf(g, "set title 'where a round trip goes (--trace): each stage''s mean, summing "
			   "to %.1f us; the mean round trip measured %.1f us'\n", pl->trace_sum,
			hist_mean(r->lat) / 1e3);
	else
		fprintf(g, "set title 'where a packet''s time goes (--trace): each stage''s mean per "
			   "packet (a round trip here is not one packet each way)'\n");
	fprintf(g, "set style data histograms\nset style histogram rowstacked\nset style fill "
		   "solid 0.85 border -1\nset boxwidth 0.3\nset xlabel ''\nset ylabel "
		   "'microseconds'\nset yrange [0:*]\nset key outside right font ',9'\nplot ");
	for (int i = 0; i < pl->ntr; i++)
		fprintf(g, "%s%s index %d using %d%s title '%s'", i ? ", " : "", i ? "''" : pl->dp,
			pl->ivl_block + pl->ivl, i + 2, i ? "" : ":xtic(1)", pl->rows[i].label);
	fprintf(g, "\nset autoscale y\n");
}

/* The data file, block by block, and the layout that follows from what it holds. */
static void plot_data(const struct result *r, FILE *d, struct plot_layout *pl)
{
	double units = result_units(r);

	pl->lat = r->lat && r->lat->count;
	pl->lat2 = r->lat2 && r->lat2->count;
	if (pl->lat)
		lat_blocks(d, r->lat); /* blocks 0, 1 */
	if (pl->lat2)
		lat_blocks(d, r->lat2); /* blocks 2, 3 */
	side_cpu(d, "client", &r->client, units);
	side_cpu(d, "server", &r->server, units);
	fprintf(d, "\n\n");
	pl->cpu_block = (pl->lat ? 2 : 0) + (pl->lat2 ? 2 : 0);
	pl->series = !pl->lat && r->nseries > 1; /* a stream: its rate over the window */
	for (int i = 0; pl->series && i < r->nseries; i++)
		fprintf(d, "%.4f %.6f\n", r->series_t[i], r->series_gbit[i]);
	if (pl->series)
		fprintf(d, "\n\n"); /* block cpu_block + 1 */
	pl->ivl = r->nintervals > 0;
	pl->ivl_block = pl->cpu_block + 1 + pl->series;
	double scale = workload_shows(r->wl) & SHOWS_MEGABYTES ? 8 / 1e3 : 1; /* MB/s: Gbit/s */

	for (int i = 0; pl->ivl && i < r->nintervals; i++)
		fprintf(d, "%.4f %.6f %.3f\n", r->intervals[i].t_s - r->intervals[i].len_s / 2,
			r->intervals[i].rate * scale, r->intervals[i].p99_us);
	if (pl->ivl)
		fprintf(d, "\n\n");
	if (r->trace)
		trace_block(r, d, pl); /* block ivl_block + ivl */
	/* The rows at the bottom, 0.3 of the page each: the intervals', then the trace's. */
	pl->k0 = 0.3 * (pl->ivl + (pl->ntr > 0));
	pl->k = 1 - pl->k0;
}

/* The page: its size, the SVG it writes, its title (the run and its rate). */
static void plot_page(const struct result *r, const char *svg, FILE *g,
		      const struct plot_layout *pl)
{
	char desc[300], line[400], q1[2 * PATH_MAX + 3], q2[160];

	r->wl->describe(r->cfg, desc, sizeof(desc));
	fprintf(g, "set terminal svg size 1100,%d dynamic background rgb 'white' font 'sans,11'\n",
		(pl->lat || pl->series ? 820 : 420) + (pl->ivl ? 360 : 0) + (pl->ntr ? 360 : 0));
	fprintf(g, "set output %s\n", gp_str(q1, sizeof(q1), svg));
	/* Texts from the command line only as single-quoted strings (gp_str); the newline is ours. */
	snprintf(line, sizeof(line), "sockbench %s: %s%s", r->wl->name, desc,
		 r->partial ? " (PARTIAL)" : "");
	gp_str(q1, sizeof(q1), line);
	if (workload_shows(r->wl) & SHOWS_MEGABYTES) /* a stream: in its panels' Gbit/s too */
		snprintf(line, sizeof(line), "%.2f Gbit/s (%.0f %ss/s) over %.2f s",
			 result_rate(r) * 8 / 1e3, result_rate(r), r->wl->unit, r->duration_s);
	else
		snprintf(line, sizeof(line), "%.0f %ss/s over %.2f s", result_rate(r), r->wl->unit,
			 r->duration_s);
	fprintf(g, "set multiplot title %s . \"\\n\" . %s font ',12'\n", q1,
		gp_str(q2, sizeof(q2), line));
	fprintf(g, "set grid\nset key top right\n");
	out_gp_palette(g);
}

/* Histogram, left; CDF, right; log time axes (tcp-crr: connect() alone beside). */
static void plot_latency(const struct result *r, FILE *g, const struct plot_layout *pl)
{
	const struct hist *lat = r->lat;
	double k = pl->k, k0 = pl->k0;
	const char *dp = pl->dp;

	fprintf(g, "set size 0.5, %g\nset origin 0, %g\nset logscale x\n", 0.5 * k,
		0.45 * k + k0);
	fprintf(g, "set title 'how the %s times are spread (%s)'\n", r->wl->latency_label,
		pl->lat2 ? "and connect() alone" : "log bins, 20 a decade");
	fprintf(g, "set xlabel 'microseconds (log)'\nset ylabel '%% of %ss in the bin'\n",
		r->wl->unit);
	mark(g, lat, 50, "p50", "#1b7837");
	mark(g, lat, 99, "p99", "#b35806");
	mark(g, lat, 99.9, "p99.9", "#b2182b");
	fprintf(
	    g, "plot %s index 0 using 1:2 with impulses lw 3 lc rgb '#2166ac' title '%s'",
	    dp, r->wl->latency_label);
	if (pl->lat2)
		fprintf(
		    g,
		    ", %s index 2 using 1:2 with impulses lw 2 lc rgb '#999999' title "
		    "'connect()'",
		    dp);
	fprintf(g, "\nunset arrow\nunset label\n");
	fprintf(g, "set origin 0.5, %g\nset title 'cumulative: the share done within x'\n",
		0.45 * k + k0);
	fprintf(g, "set ylabel '%% of %ss'\nset yrange [0:100]\n", r->wl->unit);
	mark(g, lat, 50, "p50", "#1b7837");
	mark(g, lat, 99, "p99", "#b35806");
	mark(g, lat, 99.9, "p99.9", "#b2182b");
	fprintf(g,
		"plot %s index 1 using 1:2 with steps lw 2 lc rgb '#2166ac' title '%s'",
		dp, r->wl->latency_label);
	if (pl->lat2)
		fprintf(g,
			", %s index 3 using 1:2 with steps lw 2 lc rgb '#999999' title "
			"'connect()'",
			dp);
	fprintf(g, "\nunset arrow\nunset label\nunset logscale x\nset autoscale y\n");
}

/* A stream's rate over the window, where the latency would be. */
static void plot_series(const struct result *r, FILE *g, const struct plot_layout *pl)
{
	fprintf(g, "set size 1, %g\nset origin 0, %g\n", 0.5 * pl->k, 0.45 * pl->k + pl->k0);
	fprintf(g, "set title 'rate over the window: payload the clients sent and received, "
		   "Gbit/s over each %.2g s'\n", r->series_step_s);
	fprintf(g, "set xlabel 'seconds into the window'\nset ylabel 'Gbit/s'\nset yrange [0:*]\n"
		   "set xrange [0:%.4f]\n", r->duration_s);
	fprintf(g, "plot %s index %d using 1:2 with linespoints lw 2 pt 7 ps 0.4 lc rgb "
		   "'#2166ac' title 'clients'\n", pl->dp, pl->cpu_block + 1);
	fprintf(g, "set autoscale x\nset autoscale y\n");
}

/* CPU per unit of each side, user and system stacked. */
static void plot_cpu(const struct result *r, FILE *g, const struct plot_layout *pl)
{
	fprintf(g, "set size 1, %g\nset origin 0, %g\n",
		(pl->lat || pl->series ? 0.42 : 0.9) * pl->k, pl->k0);
	fprintf(g,
		"set title 'CPU per %s of each side (both sides'' user and system time over "
		"the window / %ss)'\n",
		r->wl->unit, r->wl->unit);
	fprintf(g,
		"set style data histograms\nset style histogram rowstacked\n"
		"set style fill solid 0.8 border -1\nset boxwidth 0.5\nset xlabel ''\n"
		"set ylabel 'microseconds per %s'\nset yrange [0:*]\nset key outside right\n",
		r->wl->unit);
	fprintf(g,
		"plot %s index %d using 2:xtic(1) title 'user' lc rgb '" PALETTE_USER "', '' index %d "
		"using 3 title 'system' lc rgb '" PALETTE_SYSTEM "'\n",
		pl->dp, pl->cpu_block, pl->cpu_block);
}

int out_plot_script(const struct result *r, const char *svg, const char *data_path, FILE *d,
		    FILE *g)
{
	struct plot_layout *pl = xcalloc(1, sizeof(*pl));
	int ret;

	gp_str(pl->dp, sizeof(pl->dp), data_path);
	plot_data(r, d, pl);
	plot_page(r, svg, g, pl);
	if (pl->lat)
		plot_latency(r, g, pl);
	if (pl->series)
		plot_series(r, g, pl);
	if (pl->ivl)
		plot_intervals(r, g, pl->dp, pl->ivl_block, 0.3);
	if (pl->ntr)
		plot_trace(r, g, pl);
	plot_cpu(r, g, pl);
	fprintf(g, "unset multiplot\n");
	ret = ferror(d) || ferror(g) ? -EIO : 0;
	free(pl);
	return ret;
}

void out_gp_palette(FILE *g)
{
	static const char *const pal[PALETTE_N] = PALETTE;

	for (int i = 0; i < PALETTE_N; i++)
		fprintf(g, "set linetype %d lc rgb '%s' lw 2\n", i + 1, pal[i]);
	fprintf(g, "set linetype cycle %d\n", PALETTE_N);
}

/* gnuplot failed: why, its last message line (the error; its warnings stay in its log). */
static void gnuplot_failed(const char *what, const char *target, const char *log)
{
	char line[200], last[200] = "", shown[200];
	FILE *f = fopen(log, "re");

	while (f && fgets(line, sizeof(line), f))
		if (line[strspn(line, " \t\n")])
			snprintf(last, sizeof(last), "%s", line);
	if (f)
		fclose(f);
	last[strcspn(last, "\n")] = '\0';
	fprintf(stderr, "sockbench: %s %s: gnuplot could not draw the plot (%s); nothing written\n",
		what, target, *last ? safe_text(shown, sizeof(shown), last) : "no message");
}

int out_gnuplot(const char *what, const char *target, out_draw_fn draw, void *arg)
{
	char dir[] = "/tmp/sockbench-plot-XXXXXX", data[64], script[64], tmp[64], log[64];
	bool direct = false;
	int e = -EIO;

	if (!mkdtemp(dir)) {
		fprintf(stderr, "sockbench: %s: mkdtemp: %s\n", what, strerror(errno));
		return -1;
	}
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	snprintf(tmp, sizeof(tmp), "%s/plot.svg", dir);
	snprintf(log, sizeof(log), "%s/gnuplot.err", dir);
	FILE *d = fopen(data, "we"), *g = fopen(script, "we");

	if (d && g)
		e = draw(arg, d, g, data, tmp);
	if ((d && fclose(d)) || (g && fclose(g)))
		e = -EIO;
	if (!e && (e = run_gnuplot(script, tmp, log)) == 0 && (e = outfile_copy(tmp, target, &direct)))
		fprintf(stderr, "sockbench: %s %s: %s%s\n", what, target, outfile_strerror(e),
			outfile_left(direct));
	else if (e == -ENOENT)
		fprintf(stderr, "sockbench: %s: gnuplot is not installed (apt-get install "
			"gnuplot-nox): no plot written\n", what);
	else if (e)
		gnuplot_failed(what, target, log);
	unlink(log);
	unlink(tmp);
	unlink(data);
	unlink(script);
	rmdir(dir);
	return e ? -1 : 0;
}
