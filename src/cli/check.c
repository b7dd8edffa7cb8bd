/* check.c: `sockbench check`: is this machine quiet enough to measure on? The noise check
 * that runs before every run, over a longer sample, with every finding explained, and the
 * environment a result would record. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cli/cli.h"
#include "measure/env.h"
#include "measure/noise.h"
#include "report/out.h"

int cmd_check(int argc, char **argv)
{
	int ms = 1000;
	bool json = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j")) {
			json = true;
		} else if (!strcmp(argv[i], "--sample") && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);

			if (*end || v < 100 || v > 60000)
				die_usage("check: --sample %s: give milliseconds from 100 to 60000", argv[i]);
			ms = (int)v;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: sockbench check [--sample MS] [--json]\n"
			       "Looks for what would make figures vary (frequency scaling, turbo, busy "
			       "processes, steal time,\na CPU loaded with interrupts, a slow clock "
			       "source), sampling /proc for MS milliseconds\n(default 1000), and prints "
			       "each finding with what it does and how to fix it, then the\nenvironment a "
			       "result records. Exit 0 when quiet, 1 when something was found.\n");
			return 0;
		} else {
			die_usage("check: unknown argument '%s' (try sockbench check --help)", argv[i]);
		}
	}
	struct noise n;
	cJSON *env = env_collect(NULL, 0);

	noise_check(&n, ms);
	if (json) {
		cJSON *j = cJSON_CreateObject(), *arr = cJSON_CreateArray();

		cJSON_AddStringToObject(j, "tool", "sockbench");
		cJSON_AddStringToObject(j, "kind", "check");
		cJSON_AddNumberToObject(j, "sample_s", n.sample_s);
		for (int i = 0; i < n.n; i++) {
			cJSON *e = cJSON_CreateObject();

			cJSON_AddStringToObject(e, "what", n.f[i].what);
			cJSON_AddStringToObject(e, "does", n.f[i].does);
			cJSON_AddStringToObject(e, "fix", n.f[i].fix);
			cJSON_AddItemToArray(arr, e);
		}
		cJSON_AddItemToObject(j, "findings", arr);
		cJSON_AddItemToObject(j, "environment", env);
		out_print_json(j, stdout);
		cJSON_Delete(j);
		return n.n ? 1 : 0;
	}
	if (!n.n)
		printf("quiet: nothing found that would add noise (frequency governor, turbo, clock "
		       "source, busy processes, steal time and interrupt load over %.1f s)\n",
		       n.sample_s);
	for (int i = 0; i < n.n; i++)
		printf("%d. %s\n   what it does: %s\n   fix: %s\n", i + 1, n.f[i].what, n.f[i].does,
		       n.f[i].fix);
	char *txt = cJSON_Print(env);

	printf("\nenvironment (as every result records it under \"environment\"):\n%s\n", txt);
	free(txt);
	cJSON_Delete(env);
	return n.n ? 1 : 0;
}
