/* workload_cmd.c: `sockbench WORKLOAD [options]`: one run, or --runs N of them. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outfile.h"
#include "cli/cli.h"
#include "multi/repeat.h"
#include "report/out.h"
#include "run/run.h"

/* --plot: the script, its data and gnuplot's SVG in a temporary folder; the SVG, when gnuplot
 * wrote it whole, goes in place through outfile.h. gnuplot never sees the user's path. 0 or -1
 * (said). */
static int plot_run(const struct result *res, const char *svg)
{
	char dir[] = "/tmp/sockbench-plot-XXXXXX", data[64], script[64], tmp[64];
	bool direct = false;
	int e = -EIO;

	if (!mkdtemp(dir)) {
		fprintf(stderr, "sockbench: --plot: mkdtemp: %s\n", strerror(errno));
		return -1;
	}
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	snprintf(tmp, sizeof(tmp), "%s/plot.svg", dir);
	FILE *d = fopen(data, "we"), *g = fopen(script, "we");

	if (d && g)
		e = out_plot_script(res, tmp, data, d, g);
	if ((d && fclose(d)) || (g && fclose(g)))
		e = -EIO;
	if (!e && (e = run_gnuplot(script, tmp)) == 0 && (e = outfile_copy(tmp, svg, &direct)))
		fprintf(stderr, "sockbench: --plot %s: %s%s\n", svg, strerror(-e),
			outfile_left(direct));
	else if (e == -ENOENT)
		fprintf(stderr, "sockbench: --plot: gnuplot is not installed (apt-get install "
			"gnuplot-nox): no plot written\n");
	else if (e)
		fprintf(stderr, "sockbench: --plot %s: gnuplot could not draw the plot; nothing "
			"written\n", svg);
	unlink(tmp);
	unlink(data);
	unlink(script);
	rmdir(dir);
	return e ? -1 : 0;
}

/* --flamegraph: drawn from the stacks the result's profile keeps. 0 or -1 (said). */
static int flame_run(const struct result *res, const char *svg)
{
	char title[256];
	struct outfile f;
	int e;

	if (!res->profile) {
		fprintf(stderr, "sockbench: --flamegraph: no profile was taken (see above): no flame "
			"graph written\n");
		return -1;
	}
	if ((e = outfile_open(&f, svg))) {
		fprintf(stderr, "sockbench: --flamegraph %s: %s\n", svg, strerror(-e));
		return -1;
	}
	snprintf(title, sizeof(title), "sockbench %s: where the window's CPU time went (%s)",
		 res->wl->name, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res->profile, "event")));
	bool direct = outfile_direct(&f);

	e = out_flamegraph(res->profile, title, "flame", true, f.f);
	e = e ? outfile_abort(&f, e) : outfile_commit(&f);
	if (e) {
		fprintf(stderr, "sockbench: --flamegraph %s: %s%s\n", svg,
			e == -ENODATA ? "the profile took no samples" : strerror(-e),
			outfile_left(direct && e != -ENODATA));
		return -1;
	}
	return 0;
}

int cmd_workload(const struct workload *wl, int argc, char **argv)
{
	struct opts o;
	struct result res;

	workload_parse_or_exit(wl, argc, argv, &o);
	out_noise_warnings(stderr);
	if (o.runs > 1 && (o.plot || o.flamegraph)) {
		fprintf(stderr, "sockbench: %s draws one run: leave out --runs (sweep --plot draws "
			"many; `sockbench report` draws a saved --runs result)\n",
			o.plot ? "--plot" : "--flamegraph");
		opts_free(&o);
		return 2;
	}
	if (o.runs > 1) {
		int rc = repeat_runs(wl, &o);

		opts_free(&o);
		return rc;
	}
	struct run_error e;
	int rc = run_once(wl, &o, &res, &e);

	if (rc < 0) {
		fprintf(stderr, "sockbench: %s\n", e.msg);
		opts_free(&o);
		return e.usage ? 2 : 1;
	}
	if (o.json)
		out_json(&res, stdout);
	else
		out_table(&res, stdout);
	fflush(stdout);
	if (o.plot && plot_run(&res, o.plot))
		rc = 1;
	if (o.flamegraph && flame_run(&res, o.flamegraph))
		rc = 1;
	result_free(&res);
	opts_free(&o);
	return rc;
}
