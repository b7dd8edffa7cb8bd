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

#include "base/outfile.h"
#include "base/util.h"
#include "report/out.h"
#include "report/out_priv.h"

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
	fprintf(g, "set xlabel 'seconds into the window'\nset ylabel '%ss/s'\nset yrange [0:*]\n"
		   "set xrange [0:%.4f]\n", r->wl->unit, r->duration_s);
	if (lat)
		fprintf(g, "set y2label 'p99 microseconds'\nset y2range [0:*]\nset y2tics\n");
	fprintf(g, "plot %s index %d using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#2166ac' "
		   "title 'rate'", dp, block);
	if (lat)
		fprintf(g, ", %s index %d using 1:3 axes x1y2 with linespoints lw 2 pt 5 ps 0.5 lc "
			   "rgb '#b35806' title 'p99'", dp, block);
	fprintf(g, "\nunset y2tics\nunset y2label\nset autoscale x\nset autoscale y\n");
}

int out_plot_script(const struct result *r, const char *svg, const char *data_path, FILE *d,
		    FILE *g)
{
	const struct hist *lat = r->lat, *lat2 = r->lat2;
	bool has_lat = lat && lat->count, has_lat2 = lat2 && lat2->count;
	double units = result_units(r);
	char desc[300], line[400], q1[2 * PATH_MAX + 3], q2[160], dp[2 * PATH_MAX + 3];

	r->wl->describe(r->cfg, desc, sizeof(desc));
	gp_str(dp, sizeof(dp), data_path);
	if (has_lat)
		lat_blocks(d, lat); /* blocks 0, 1 */
	if (has_lat2)
		lat_blocks(d, lat2); /* blocks 2, 3 */
	side_cpu(d, "client", &r->client, units);
	side_cpu(d, "server", &r->server, units);
	fprintf(d, "\n\n");
	int cpu_block = (has_lat ? 2 : 0) + (has_lat2 ? 2 : 0);
	bool has_series = !has_lat && r->nseries > 1; /* a stream: its rate over the window */

	for (int i = 0; has_series && i < r->nseries; i++)
		fprintf(d, "%.4f %.6f\n", r->series_t[i], r->series_gbit[i]);
	if (has_series)
		fprintf(d, "\n\n"); /* block cpu_block + 1 */
	bool has_ivl = r->nintervals > 0;
	int ivl_block = cpu_block + 1 + has_series;
	double k = has_ivl ? 0.7 : 1, k0 = 1 - k; /* the panels above the intervals' row */

	for (int i = 0; has_ivl && i < r->nintervals; i++)
		fprintf(d, "%.4f %.6f %.3f\n", r->intervals[i].t_s - r->intervals[i].len_s / 2,
			r->intervals[i].rate, r->intervals[i].p99_us);

	fprintf(g, "set terminal svg size 1100,%d dynamic background rgb 'white' font 'sans,11'\n",
		(has_lat || has_series ? 820 : 420) + (has_ivl ? 360 : 0));
	fprintf(g, "set output %s\n", gp_str(q1, sizeof(q1), svg));
	/* Texts from the command line only as single-quoted strings (gp_str); the newline is ours. */
	snprintf(line, sizeof(line), "sockbench %s: %s%s", r->wl->name, desc,
		 r->partial ? " (PARTIAL)" : "");
	gp_str(q1, sizeof(q1), line);
	snprintf(line, sizeof(line), "%.0f %ss/s over %.2f s", result_rate(r), r->wl->unit,
		 r->duration_s);
	fprintf(g, "set multiplot title %s . \"\\n\" . %s font ',12'\n", q1,
		gp_str(q2, sizeof(q2), line));
	fprintf(g, "set grid\nset key top right\n");
	if (has_lat) {
		/* Histogram, left; CDF, right; log time axes. */
		fprintf(g, "set size 0.5, %g\nset origin 0, %g\nset logscale x\n", 0.5 * k,
			0.45 * k + k0);
		fprintf(g, "set title 'how the %s times are spread (%s)'\n", r->wl->latency_label,
			has_lat2 ? "and connect() alone" : "log bins, 20 a decade");
		fprintf(g, "set xlabel 'microseconds (log)'\nset ylabel '%% of %ss in the bin'\n",
			r->wl->unit);
		mark(g, lat, 50, "p50", "#1b7837");
		mark(g, lat, 99, "p99", "#b35806");
		mark(g, lat, 99.9, "p99.9", "#b2182b");
		fprintf(
		    g, "plot %s index 0 using 1:2 with impulses lw 3 lc rgb '#2166ac' title '%s'",
		    dp, r->wl->latency_label);
		if (has_lat2)
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
		if (has_lat2)
			fprintf(g,
				", %s index 3 using 1:2 with steps lw 2 lc rgb '#999999' title "
				"'connect()'",
				dp);
		fprintf(g, "\nunset arrow\nunset label\nunset logscale x\nset autoscale y\n");
	}
	if (has_series) {
		fprintf(g, "set size 1, %g\nset origin 0, %g\n", 0.5 * k, 0.45 * k + k0);
		fprintf(g, "set title 'rate over the window: payload the clients sent and received, "
			   "Gbit/s over each %.2g s'\n", r->series_step_s);
		fprintf(g, "set xlabel 'seconds into the window'\nset ylabel 'Gbit/s'\nset yrange [0:*]\n"
			   "set xrange [0:%.4f]\n", r->duration_s);
		fprintf(g, "plot %s index %d using 1:2 with linespoints lw 2 pt 7 ps 0.4 lc rgb "
			   "'#2166ac' title 'clients'\n", dp, cpu_block + 1);
		fprintf(g, "set autoscale x\nset autoscale y\n");
	}
	/* CPU per unit of each side, user and system stacked. */
	if (has_ivl)
		plot_intervals(r, g, dp, ivl_block, k0);
	fprintf(g, "set size 1, %g\nset origin 0, %g\n", (has_lat || has_series ? 0.42 : 0.9) * k,
		k0);
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
		"plot %s index %d using 2:xtic(1) title 'user' lc rgb '#4393c3', '' index %d "
		"using 3 title 'system' lc rgb '#d6604d'\n",
		dp, cpu_block, cpu_block);
	fprintf(g, "unset multiplot\n");
	return ferror(d) || ferror(g) ? -EIO : 0;
}

int out_gnuplot(const char *what, const char *target, out_draw_fn draw, void *arg)
{
	char dir[] = "/tmp/sockbench-plot-XXXXXX", data[64], script[64], tmp[64];
	bool direct = false;
	int e = -EIO;

	if (!mkdtemp(dir)) {
		fprintf(stderr, "sockbench: %s: mkdtemp: %s\n", what, strerror(errno));
		return -1;
	}
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	snprintf(tmp, sizeof(tmp), "%s/plot.svg", dir);
	FILE *d = fopen(data, "we"), *g = fopen(script, "we");

	if (d && g)
		e = draw(arg, d, g, data, tmp);
	if ((d && fclose(d)) || (g && fclose(g)))
		e = -EIO;
	if (!e && (e = run_gnuplot(script, tmp)) == 0 && (e = outfile_copy(tmp, target, &direct)))
		fprintf(stderr, "sockbench: %s %s: %s%s\n", what, target, outfile_strerror(e),
			outfile_left(direct));
	else if (e == -ENOENT)
		fprintf(stderr, "sockbench: %s: gnuplot is not installed (apt-get install "
			"gnuplot-nox): no plot written\n", what);
	else if (e)
		fprintf(stderr, "sockbench: %s %s: gnuplot could not draw the plot; nothing written\n",
			what, target);
	unlink(tmp);
	unlink(data);
	unlink(script);
	rmdir(dir);
	return e ? -1 : 0;
}
