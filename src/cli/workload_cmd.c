/* workload_cmd.c: `sockbench WORKLOAD [options]`: one run, or --runs N of them. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outfile.h"
#include "base/util.h"
#include "cli/cli.h"
#include "multi/repeat.h"
#include "report/out.h"
#include "run/run.h"

static int draw_run(void *res, FILE *d, FILE *g, const char *data_path, const char *svg_path)
{
	return out_plot_script(res, svg_path, data_path, d, g);
}

/* --plot: 0 or -1 (said). */
static int plot_run(const struct result *res, const char *svg)
{
	return out_gnuplot("--plot", svg, draw_run, (void *)res);
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
		fprintf(stderr, "sockbench: --flamegraph %s: %s\n", svg, outfile_strerror(e));
		return -1;
	}
	snprintf(title, sizeof(title), "sockbench %s: where the window's CPU time went (%s)",
		 res->wl->name, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res->profile, "event")));
	bool direct = outfile_direct(&f);

	e = out_flamegraph(res->profile, title, "flame", true, f.f);
	e = e ? outfile_abort(&f, e) : outfile_commit(&f);
	if (e) {
		fprintf(stderr, "sockbench: --flamegraph %s: %s%s\n", svg,
			e == -ENODATA ? "the profile took no samples" : outfile_strerror(e),
			outfile_left(direct && e != -ENODATA));
		return -1;
	}
	return 0;
}

/* --fields names fields the report knows (--json is --format json: workload.h). Exits 2
 * where not. */
static void format_check(const struct workload *wl, struct opts *o)
{
	char err[4400];

	if (o->fields && out_fields_check(wl, o->fields, err, sizeof(err)))
		die_usage("%s: %s", wl->name, err);
	if (o->fields && o->json)
		die_usage("%s: --fields chooses the columns of CSV (--format csv) or the lines of the "
			  "report; the JSON document is always whole", wl->name);
}

/* The run's report in the format asked for: the JSON and the CSV print the same tree. */
static void print_run(const struct result *res, const struct opts *o)
{
	if (o->format == FORMAT_TEXT && !o->fields) {
		out_table(res, stdout);
		return;
	}
	cJSON *doc = out_result_json(res);

	if (o->format == FORMAT_JSON)
		out_print_json(doc, stdout);
	else if (o->format == FORMAT_CSV)
		out_csv_run(doc, o->fields, stdout);
	else
		out_fields_text(doc, o->fields, stdout);
	cJSON_Delete(doc);
}

int cmd_workload(const struct workload *wl, int argc, char **argv)
{
	struct opts o;
	struct result res;

	workload_parse_or_exit(wl, argc, argv, &o);
	format_check(wl, &o);
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
	print_run(&res, &o);
	fflush(stdout);
	if (o.plot && plot_run(&res, o.plot))
		rc = 1;
	if (o.flamegraph && flame_run(&res, o.flamegraph))
		rc = 1;
	result_free(&res);
	opts_free(&o);
	return rc;
}
