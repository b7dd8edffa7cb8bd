/* registry.c: the table of workloads (made from workload.h's WORKLOAD_LIST), and a workload's
 * command line read into its options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cpus.h"
#include "base/outfile.h"
#include "base/util.h"
#include "transport/knobs.h"
#include "workload/workload.h"

const struct workload *const workloads[] = {
#define WORKLOAD_PTR(name) &wl_##name,
	WORKLOAD_LIST(WORKLOAD_PTR)
#undef WORKLOAD_PTR
	NULL,
};

const struct workload *workload_find(const char *name)
{
	for (int i = 0; workloads[i]; i++)
		if (!strcmp(workloads[i]->name, name))
			return workloads[i];
	return NULL;
}

unsigned workload_shows(const struct workload *wl)
{
	return wl->shows | (wl->units ? SHOWS_STREAM : SHOWS_TRANSACTIONS) |
	       (wl->drains ? SHOWS_DRAIN : 0);
}

const struct workload *workload_or_exit(const char *cmd, const char *name)
{
	const struct workload *wl = workload_find(name);

	if (!wl)
		die_usage("%s: unknown workload '%s' (try 'sockbench list')", cmd, name);
	return wl;
}

/* A flag this workload lacks but others have is a strategy that does not apply here: say
 * so, and where it does. */
static void other_workloads_flag(const struct workload *wl, int argc, char **argv, char *err,
				 size_t errlen)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strncmp(a, "--", 2) || !a[2])
			continue;
		size_t len = strcspn(a + 2, "=");
		char where[160] = "";

		if (opt_find(wl->opts, a + 2, len))
			continue;
		for (int k = 0; workloads[k]; k++)
			if (workloads[k] != wl && opt_find(workloads[k]->opts, a + 2, len))
				snprintf(where + strlen(where), sizeof(where) - strlen(where), "%s%s",
					 where[0] ? ", " : "", workloads[k]->name);
		if (where[0])
			snprintf(err, errlen, "--%.*s is not applicable to %s: it is a flag of %s (see "
				 "docs/workloads.md)", (int)len, a + 2, wl->name, where);
		return;
	}
}

/* -i needs a time-based window at least one interval long; with latencies, a histogram a
 * connection in shared memory (37 KiB each: group.c), so it bounds their number. */
static void interval_check(const struct workload *wl, const struct opts *o)
{
	long per = o->flows > o->concurrency ? o->flows : o->concurrency;

	if (o->interval < 0.1) /* 0 included: the default, which means none */
		die_usage("%s: -i %g: give at least 0.1 s (the coordinator reads the clients every "
			  "50 ms)", wl->name, o->interval);

	if (wl->count_based && wl->count_based(o))
		die_usage("%s: -i needs a time-based window: give --duration (a count-based run of "
			  "--conns has no fixed length to cut into intervals)", wl->name);
	if (o->interval > o->duration)
		die_usage("%s: -i %g is longer than the window (--duration %g): give at most %g",
			  wl->name, o->interval, o->duration, o->duration);
	if (strcmp(wl->latency_label, "none") && o->clients * per > 4096)
		die_usage("%s: -i keeps a latency histogram (37 KiB) per connection where the "
			  "coordinator reads it: at most 4096 (--clients x connections per client; "
			  "here %ld)", wl->name, o->clients * per);
}

void workload_effective(const struct workload *wl, struct opts *o)
{
	/* The family that runs: a local run without -6 is IPv4 (127.0.0.1). */
	if (!o->ipv6 && !o->server)
		o->ipv4 = true;
	/* --io auto is mmsg with --batch, else msg (transport/io.c's io_find). */
	if (opt_find(wl->opts, "io", 2) && o->io == IO_AUTO)
		o->io = o->batch > 1 ? IO_MMSG : IO_MSG;
}

void workload_parse_or_exit(const struct workload *wl, int argc, char **argv, struct opts *o)
{
	char err[1024];
	int ret;

	opts_defaults(o, wl->overrides);
	ret = opts_parse(wl->opts, wl->overrides, &(struct opts_words){argc, argv}, o, err,
			 sizeof(err));
	if (ret == 1) {
		opts_usage(wl->opts, wl->overrides, wl->name, wl->summary, stdout);
		exit(0);
	}
	if (ret && strstr(err, "unknown option"))
		other_workloads_flag(wl, argc, argv, err, sizeof(err));
	if (!ret && o->ipv4 && o->ipv6)
		die_usage("%s: -4 and -6 ask for both families: give one", wl->name);
	/* --json is --format json, for every command that reads a workload's flags. */
	if (!ret && o->json && OPT_IS_SET(o, format) && o->format != FORMAT_JSON)
		die_usage("%s: --json and --format %s ask for two outputs: give one", wl->name,
			  OPT_WORD(o, format));
	if (!ret && (o->json || o->format == FORMAT_JSON))
		o->json = true, o->format = FORMAT_JSON;
	if (ret || wl->check(o, err, sizeof(err)) ||
	    knobs_check(o, !strcmp(wl->snmp_proto, "Tcp"), err, sizeof(err)) ||
	    cpus_check(o, err, sizeof(err)))
		die_usage("%s: %s", wl->name, err);
	workload_effective(wl, o);
	if (OPT_IS_SET(o, interval))
		interval_check(wl, o);
	if (o->profile_folded && !o->profile)
		die_usage("%s: --profile-folded writes the stacks --profile samples: add --profile",
			  wl->name);
	if (o->flamegraph && !o->profile)
		die_usage("%s: --flamegraph draws the stacks --profile samples: add --profile", wl->name);
	if (o->flamegraph && (ret = output_writable(o->flamegraph)))
		die_usage("%s: --flamegraph %s: %s", wl->name, o->flamegraph, outfile_strerror(ret));
	if (o->plot && (ret = output_writable(o->plot)))
		die_usage("%s: --plot %s: %s", wl->name, o->plot, outfile_strerror(ret));
	if (o->profile_folded && (ret = output_writable(o->profile_folded)))
		die_usage("%s: --profile-folded %s: %s", wl->name, o->profile_folded,
			  outfile_strerror(ret));
}
