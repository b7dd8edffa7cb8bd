/* workload_cmd.c: `sockbench WORKLOAD [options]`: one run, or --runs N of them. */
#include <stdio.h>

#include "cli/cli.h"
#include "multi/repeat.h"
#include "report/out.h"
#include "run/run.h"

int cmd_workload(const struct workload *wl, int argc, char **argv)
{
	struct opts o;
	struct result res;

	workload_parse_or_exit(wl, argc, argv, &o);
	out_noise_warnings(stderr);
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
	result_free(&res);
	opts_free(&o);
	return rc;
}
