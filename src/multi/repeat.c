/* repeat.c: see repeat.h. Figures are read through report/figures.h from each run's JSON
 * document, so live runs and saved files (compare a.json b.json) go through the same code. */
#include "multi/repeat.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/env.h"
#include "report/out.h"
#include "run/run.h"
#include "multi/stats.h"
#include "base/util.h"

#define UNSTABLE_CV 0.10 /* a rate whose stddev is over 10% of its median is not to be trusted */

/* The non-NAN values of figure f over n documents; returns how many. */
static int column(cJSON *const *docs, int n, int f, double *v)
{
	int k = 0;

	for (int i = 0; i < n; i++) {
		double x = figure_of(docs[i], f);

		if (!isnan(x))
			v[k++] = x;
	}
	return k;
}

cJSON *figures_summary(cJSON *const *docs, int n, bool *unstable)
{
	cJSON *j = cJSON_CreateObject();
	double *v = xmalloc((size_t)n * sizeof(*v));

	*unstable = false;
	for (int f = 0; f < nfigures; f++) {
		int k = column(docs, n, f, v);

		if (!k)
			continue;
		double lo, hi, conf, med = stats_median(v, k), mn = v[0], mx = v[0];
		double sd = stats_stddev(v, k);
		cJSON *e = cJSON_CreateObject();

		for (int i = 1; i < k; i++) {
			mn = v[i] < mn ? v[i] : mn;
			mx = v[i] > mx ? v[i] : mx;
		}
		stats_median_interval(v, k, 0.95, &lo, &hi, &conf);
		cJSON_AddNumberToObject(e, "median", med);
		cJSON_AddNumberToObject(e, "min", mn);
		cJSON_AddNumberToObject(e, "max", mx);
		cJSON_AddNumberToObject(e, "stddev", sd);
		cJSON_AddNumberToObject(e, "ci_low", lo);
		cJSON_AddNumberToObject(e, "ci_high", hi);
		cJSON_AddNumberToObject(e, "ci_confidence", conf);
		cJSON_AddNumberToObject(e, "runs", k);
		/* Documents that name their rate transactions_per_s keep that key too (the
		 * schema adds keys, never renames one). */
		if (f == 0 && !isnan(json_path(docs[0], "transactions_per_s")))
			cJSON_AddItemToObject(j, "transactions_per_s", cJSON_Duplicate(e, true));
		cJSON_AddItemToObject(j, figures[f].key, e);
		if (f == 0 && med > 0 && sd / med > UNSTABLE_CV)
			*unstable = true;
	}
	free(v);
	return j;
}

void progress_line(const char *what, const char *label, int i, int n, uint64_t t0)
{
	if (!isatty(STDERR_FILENO))
		return;
	double el = ns_to_s(now_ns() - t0), left = i ? el / i * (n - i) : 0;

	if (label)
		fprintf(stderr, "\r\033[K%s %d/%d  %-34.34s  %3.0f s elapsed, ~%3.0f s left", what,
			i + 1, n, label, el, left);
	else
		fprintf(stderr, "\r\033[K%s %d/%d, %.0f s elapsed, ~%.0f s left", what, i + 1, n,
			el, left);
}

void progress_clear(void)
{
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
}

/* The runs that were not samples, and why: "2 of 10 runs were partial and left out: ...". */
void print_left_out(const struct left_out *lo, int nlo, int total)
{
	int partial = 0, failed = 0;

	for (int i = 0; i < nlo; i++) {
		partial += lo[i].status == RUN_PARTIAL;
		failed += lo[i].status == RUN_FAILED;
	}
	if (partial)
		printf("%d of %d runs were partial and left out", partial, total);
	if (failed)
		printf("%s%d of %d runs failed", partial ? "; " : "", failed, total);
	if (nlo)
		printf(" (first: %s)\n", lo[0].why);
}

cJSON *left_out_json(const struct left_out *lo, int nlo)
{
	cJSON *arr = cJSON_CreateArray();

	for (int i = 0; i < nlo; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "run", lo[i].run);
		if (lo[i].side)
			cJSON_AddStringToObject(e, "side", lo[i].side);
		cJSON_AddStringToObject(e, "status", run_status_name(lo[i].status));
		cJSON_AddStringToObject(e, "reason", lo[i].why);
		cJSON_AddItemToArray(arr, e);
	}
	return arr;
}

struct env_collect {
	struct env_row *rows;
	int n, max;
	const cJSON *keys_a, *keys_b;
};

/* Is sysctl.KEY (or agent.sysctl.KEY) set by one of these --sysctl lists? Or
 * interface.ATTR, by a net.dev.IF.ATTR? */
static bool in_sysctl(const cJSON *list, const char *path)
{
	const cJSON *it;
	const char *p = !strncmp(path, "agent.", 6) ? path + 6 : path;
	bool dev = !strncmp(p, "interface.", 10);

	if (strncmp(p, "sysctl.", 7) && !dev)
		return false;
	p += dev ? 10 : 7;
	cJSON_ArrayForEach(it, list) {
		const char *k = cJSON_IsString(it) ? it->valuestring : "";
		size_t kl = strcspn(k, "=");

		if (dev && !strncmp(k, "net.dev.", 8)) { /* net.dev.IF.ATTR: compare ATTR */
			const char *dot = memrchr(k, '.', kl);

			k = dot + 1;
			kl -= (size_t)(k - it->valuestring);
		} else if (dev) {
			continue;
		}
		if (kl && strlen(p) == kl && !strncmp(p, k, kl))
			return true;
	}
	return false;
}

static void env_take(const char *path, const char *va, const char *vb, void *arg)
{
	struct env_collect *c = arg;
	size_t n = strlen(path), s = strlen("steal_pct_in_window");

	if (n >= s && !strcmp(path + n - s, "steal_pct_in_window"))
		return;
	if (c->n >= c->max)
		return;
	struct env_row *r = &c->rows[c->n++];

	snprintf(r->path, sizeof(r->path), "%s", path);
	snprintf(r->a, sizeof(r->a), "%s", va);
	snprintf(r->b, sizeof(r->b), "%s", vb);
	r->subject = in_sysctl(c->keys_a, path) || in_sysctl(c->keys_b, path);
}

int env_rows(const cJSON *doc_a, const cJSON *doc_b, struct env_row *rows, int max)
{
	struct env_collect c = {.rows = rows, .max = max,
				.keys_a = cJSON_GetObjectItemCaseSensitive(
					cJSON_GetObjectItemCaseSensitive(doc_a, "config"), "sysctl"),
				.keys_b = cJSON_GetObjectItemCaseSensitive(
					cJSON_GetObjectItemCaseSensitive(doc_b, "config"), "sysctl")};
	const cJSON *ea = cJSON_GetObjectItemCaseSensitive(doc_a, "environment");
	const cJSON *eb = cJSON_GetObjectItemCaseSensitive(doc_b, "environment");

	if (!cJSON_IsObject(ea) || !cJSON_IsObject(eb)) /* an older result: nothing to say */
		return 0;
	env_diff(ea, eb, env_take, &c);
	return c.n;
}

int env_changes(cJSON *const *docs, int n, struct env_row *rows, int max, int *at)
{
	for (int i = 1; i < n; i++) {
		int k = env_rows(docs[0], docs[i], rows, max);

		if (k) {
			*at = i + 1;
			return k;
		}
	}
	return 0;
}

cJSON *env_rows_json(const struct env_row *rows, int n)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; i < n; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "path", rows[i].path);
		cJSON_AddStringToObject(e, "a", rows[i].a);
		cJSON_AddStringToObject(e, "b", rows[i].b);
		cJSON_AddBoolToObject(e, "subject", rows[i].subject);
		cJSON_AddItemToArray(a, e);
	}
	return a;
}

/* "warning: the environment changed during the runs: ..." on stdout, if it did. */
void print_env_changes(const char *whose, const struct env_row *rows, int n, int at)
{
	if (!n)
		return;
	printf("\n  WARNING: the environment changed during the runs%s (seen at run %d): ", whose, at);
	for (int i = 0; i < n; i++)
		printf("%s%s %s -> %s", i ? "; " : "", rows[i].path, rows[i].a, rows[i].b);
	printf(". Runs under different settings are not samples of one thing.\n");
}

static void print_summary(const struct workload *wl, const struct opts *o, const cJSON *sum,
			  int runs, bool unstable, bool partial)
{
	char desc[300], lab[64];
	const cJSON *rate = cJSON_GetObjectItemCaseSensitive(sum, figures[0].key);
	double conf = rate ? json_path(rate, "ci_confidence") : NAN;

	wl->describe(o, desc, sizeof(desc));
	printf("sockbench %s: %s\n%d runs%s\n\n", wl->name, desc, runs,
	       partial ? " (PARTIAL: interrupted)" : "");
	int w = figure_label_width(wl, 30);

	printf("  %-*s %12s %12s %12s %11s   %s\n", w, "figure", "median", "min", "max", "stddev",
	       "interval of the median");
	for (int f = 0; f < nfigures; f++) {
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(sum, figures[f].key);

		if (!e || !out_field_selected(o->fields, figures[f].path))
			continue;
		char v[6][32];

		printf("  %-*s %12s %12s %12s %11s   %s-%s\n", w, figure_label(f, wl, lab, sizeof(lab)),
		       fmt_fig(v[0], 32, json_path(e, "median")), fmt_fig(v[1], 32, json_path(e, "min")),
		       fmt_fig(v[2], 32, json_path(e, "max")), fmt_fig(v[3], 32, json_path(e, "stddev")),
		       fmt_fig(v[4], 32, json_path(e, "ci_low")), fmt_fig(v[5], 32, json_path(e, "ci_high")));
	}
	if (!isnan(conf))
		printf("\n  The interval of each median is the pair of runs (order statistics) that "
		       "holds it with %.1f%% confidence, whatever the runs' distribution%s.\n",
		       conf * 100, conf < 0.95 ? ": 95% needs 6 runs or more" : "");
	if (unstable)
		printf("\n  SPREAD TOO WIDE: %ss/s varies by more than %.0f%% of its median "
		       "(stddev); these runs are not stable enough to trust: quiet the machine, use "
		       "longer --duration or more --runs\n",
		       wl->unit, UNSTABLE_CV * 100);
}

int repeat_runs(const struct workload *wl, const struct opts *o)
{
	int n = (int)o->runs, done = 0, made = 0, nlo = 0, rc = 0;
	cJSON **docs = xcalloc((size_t)n, sizeof(*docs));
	struct left_out *lo = xcalloc((size_t)n, sizeof(*lo));
	uint64_t t0 = now_ns();
	bool unstable;

	run_signals_keep();
	for (; made < n && !run_interrupted(); made++) {
		char why[300];
		cJSON *doc;

		progress_line("run", NULL, made, n, t0);
		enum run_status st = run_isolated(wl, o, &doc, why, sizeof(why));

		if (run_interrupted()) { /* cut by Ctrl-C: not a sample */
			cJSON_Delete(doc);
			break;
		}
		if (st == RUN_WHOLE) {
			docs[done++] = doc;
			continue;
		}
		/* Partial and failed runs are counted and said, never averaged in. */
		cJSON_Delete(doc);
		lo[nlo] = (struct left_out){.run = made + 1, .status = st};
		snprintf(lo[nlo++].why, sizeof(lo[0].why), "%s", why);
		rc = 1;
	}
	progress_clear();
	bool partial = made < n;
	cJSON *sum = figures_summary(docs, done, &unstable);
	struct env_row env[ENV_ROWS];
	int at = 0, nenv = env_changes(docs, done, env, ENV_ROWS, &at);

	if (o->format != FORMAT_TEXT) { /* JSON and CSV: the same document */
		cJSON *j = cJSON_CreateObject(), *arr = cJSON_CreateArray();

		cJSON_AddNumberToObject(j, "schema", RESULT_SCHEMA);
		cJSON_AddStringToObject(j, "tool", "sockbench");
		cJSON_AddStringToObject(j, "kind", "runs");
		cJSON_AddStringToObject(j, "workload", wl->name);
		cJSON_AddItemToObject(j, "config", opts_to_json(wl->opts, o));
		cJSON_AddBoolToObject(j, "partial", partial);
		cJSON_AddNumberToObject(j, "runs", done);
		cJSON_AddNumberToObject(j, "runs_asked", n);
		cJSON_AddItemToObject(j, "left_out", left_out_json(lo, nlo));
		cJSON_AddBoolToObject(j, "unstable", unstable);
		cJSON_AddItemToObject(j, "summary", sum);
		cJSON_AddItemToObject(j, "environment_changes", env_rows_json(env, nenv));
		if (nenv)
			cJSON_AddNumberToObject(j, "environment_changed_at_run", at);
		for (int i = 0; i < done; i++)
			cJSON_AddItemToArray(arr, docs[i]);
		cJSON_AddItemToObject(j, "results", arr);
		if (o->format == FORMAT_CSV)
			out_csv_runs(j, o->fields, stdout);
		else
			out_print_json(j, stdout);
		cJSON_Delete(j);
	} else {
		print_summary(wl, o, sum, done, unstable, partial);
		print_env_changes("", env, nenv, at);
		print_left_out(lo, nlo, made);
		cJSON_Delete(sum);
		for (int i = 0; i < done; i++)
			cJSON_Delete(docs[i]);
	}
	free(docs);
	free(lo);
	return rc;
}
