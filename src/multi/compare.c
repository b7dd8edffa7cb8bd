/* compare.c: `compare`.
 *
 * compare runs A and B in rounds, each round both, half the rounds A first, in an order drawn from
 * a seed (so steady drift cancels instead of favouring the side that runs second), and pairs the
 * two runs of a round; a round where either run was partial or failed is left out, and said. From
 * two saved files (other boots, other kernels) the runs cannot be paired. Every figure gets the
 * ratio B/A of the geometric means beside it, a 95% t interval on the log-ratios (Welch's for
 * unpaired runs; stats.h) and a verdict: the primary figure's (the rate, or --primary) at 95% on
 * its own, the others' as one family behind it (compare_verdict.c); the headline is the primary's,
 * and when it has none it says how many runs a difference of the size seen would need. When both
 * sides' runs were profiled (--profile), compare also says where the time moved: CPU microseconds
 * per unit of work in each syscall of each side and in each kernel function, A against B.
 */
#include "multi/compare_priv.h"
#include "multi/wl_help.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profile/moved.h"
#include "trace/stage_moved.h"
#include "report/out.h"
#include "base/result_file.h"
#include "base/util.h"

/* ---- a side of a comparison: its runs as result documents ---- */

static void parse_spec(const char *spec, struct side *s)
{
	char *copy = xstrdup(spec), *w[MAX_WORDS];
	int n = split_words(copy, w, MAX_WORDS);

	if (!n)
		die_usage("compare: an empty configuration");
	s->wl = workload_find(w[0]);
	if (!s->wl)
		die_usage("compare: '%s' does not start with a workload (see sockbench list)", spec);
	workload_parse_or_exit(s->wl, n, w, &s->o);
	s->have_opts = true;
	snprintf(s->label, sizeof(s->label), "%s", spec);
	free(copy);
}

static bool is_file_arg(const char *a)
{
	size_t n = strlen(a);

	return n > 5 && !strcmp(a + n - 5, ".json");
}

/* A saved result: one run, or a --runs document with every run. */
static void load_file(const char *path, struct side *s)
{
	char why[300];
	int e = result_file_read(path, &s->file, why, sizeof(why));

	if (e == -EBADMSG)
		die_usage("compare: %s is not JSON (save results with --json)", path);
	if (e == -EINVAL)
		die_usage("compare: %s: %s", path, why);
	if (e == -E2BIG)
		die_usage("compare: out of memory reading %s: %s", path, why);
	if (e == -ENOMEM)
		die("compare: out of memory reading %s: %s", path, why);
	if (e)
		die_usage("compare: cannot read %s: %s", path,
			  e == -EFBIG ? "too large to be a sockbench result (over "
					RESULT_FILE_MAX_TEXT ")" : strerror(-e));
	double schema = json_path(s->file, "schema");
	const cJSON *tool = cJSON_GetObjectItemCaseSensitive(s->file, "tool");
	const cJSON *wl = cJSON_GetObjectItemCaseSensitive(s->file, "workload");

	if (!cJSON_IsString(tool) || strcmp(tool->valuestring, "sockbench") || !cJSON_IsString(wl))
		die_usage("compare: %s is not a sockbench result", path);
	if (schema != RESULT_SCHEMA)
		die_usage("compare: %s has schema %g; this sockbench reads schema %d", path, schema,
			  RESULT_SCHEMA);
	s->wl = workload_find(wl->valuestring);
	if (!s->wl)
		die_usage("compare: %s is a result of workload '%s', unknown here", path, wl->valuestring);
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(s->file, "results");
	const cJSON *it;

	if (cJSON_IsArray(results)) {
		cJSON_ArrayForEach(it, results) if (s->n < MAX_RUNS) s->docs[s->n++] = (cJSON *)it;
	} else {
		s->docs[s->n++] = s->file;
	}
	if (!s->n || isnan(figure_of(s->docs[0], 0)))
		die_usage("compare: %s holds no run", path);
	snprintf(s->label, sizeof(s->label), "%s", path);
}

/* compare's own flags; the other words are the two configurations or files. */
struct compare_args {
	long runs;
	bool json, profile;
	uint64_t seed;
	char *primary; /* the figure of the headline (default: the rate) */
};

const struct opt_def compare_flags[] = {
	{OWN_FLAG(INT, struct compare_args, runs, "runs", 2, MAX_RUNS, "N",
		  "rounds; each runs A and B once, half of them A first, in an order drawn from --seed"),
	 .def = STRINGIFY(STATS_DEFAULT_RUNS)},
	{OWN_FLAG(U64, struct compare_args, seed, "seed", 1, 0, "N", "of the order of runs"),
	 .shown = "a fresh one, printed"},
	{OWN_FLAG(STR, struct compare_args, primary, "primary", 0, 0, "FIGURE",
		  "the figure that carries the headline, judged at 95% on its own; the other "
		  "figures are one family, Holm-adjusted at 5% and judged only when the primary's "
		  "difference is significant, so any false verdict stays under 5%"),
	 .shown = "the rate"},
	{OWN_FLAG(BOOL, struct compare_args, json, "json", 0, 1, "",
		  "print one JSON document instead of the table")},
	{OWN_FLAG(BOOL, struct compare_args, profile, "profile", 0, 1, "",
		  "profile every run (root) and say where the time moved: CPU us per unit in each "
		  "syscall of each side and each kernel function, A against B")},
	{0},
};

static const struct cmd_usage compare_usage = {
    .cmd = "compare",
    .args = "'WORKLOAD [flags]' 'WORKLOAD [flags]'",
    .also = "before.json after.json [--primary FIGURE] [--json]",
    .summary = "Runs A and B in --runs rounds, each round both in an order drawn from --seed, or "
	       "reads two saved --json results, and prints every figure with B/A, a 95% t "
	       "interval and a verdict.",
};

/* Which rounds run B first: as many as run A first (one more either way when the rounds are
 * odd), in an order drawn from the seed. A side that gains from going second (the other's
 * leftovers, a drift within the round) gains as often on both sides, so the mean log-ratio
 * holds no order effect; a coin per round gave six AB of six one time in 32. */
static void balanced_order(bool *b_first, int runs, uint64_t *st)
{
	for (int i = 0; i < runs; i++)
		b_first[i] = i < runs / 2 || (i == runs - 1 && runs % 2 && (stats_rand(st) & 1));
	for (int i = runs - 1; i > 0; i--) { /* Fisher-Yates */
		int j = (int)(stats_rand(st) % (uint64_t)(i + 1));
		bool t = b_first[i];

		b_first[i] = b_first[j];
		b_first[j] = t;
	}
}

/* --runs rounds of A and B in a seeded random, balanced order; a round counts only when both
 * of its runs were whole. */
static void run_rounds(struct side *a, struct side *b, int runs, uint64_t seed,
		       struct compare_log *lg)
{
	uint64_t t0 = now_ns(), st;
	size_t olen = 0;

	/* A fresh seed when none was given: the time and the pid, never 0. */
	lg->seed = seed ? seed : fresh_seed();
	st = stats_seed_state(lg->seed, 0);
	lg->asked = runs;
	bool order[MAX_RUNS];

	balanced_order(order, runs, &st);
	run_signals_keep();
	for (int i = 0; i < runs && !run_interrupted(); i++) {
		bool b_first = order[i];
		struct side *first = b_first ? b : a, *second = b_first ? a : b;
		cJSON *doc[2] = {NULL, NULL};
		enum run_status st2[2];
		char why[2][300];

		for (int k = 0; k < 2 && !run_interrupted(); k++) {
			progress_line("compare: run", NULL, 2 * i + k, 2 * runs, t0);
			st2[k] = run_isolated(a->wl, k ? &second->o : &first->o, &doc[k], why[k],
					      sizeof(why[k]));
		}
		if (run_interrupted()) { /* a round cut short is no pair */
			cJSON_Delete(doc[0]);
			cJSON_Delete(doc[1]);
			break;
		}
		olen += (size_t)snprintf(lg->order + olen, sizeof(lg->order) - olen, "%s%s",
					 i ? " " : "", b_first ? "BA" : "AB");
		lg->rounds++;
		for (int k = 0; k < 2; k++) {
			if (st2[k] == RUN_WHOLE)
				continue;
			struct left_out *l = &lg->lo[lg->nlo++];

			*l = (struct left_out){.run = 2 * i + k + 1, .status = st2[k],
					       .side = (k ? second : first) == a ? "A" : "B"};
			snprintf(l->why, sizeof(l->why), "%.299s", why[k]);
		}
		if (st2[0] != RUN_WHOLE || st2[1] != RUN_WHOLE) {
			cJSON_Delete(doc[0]);
			cJSON_Delete(doc[1]);
			continue;
		}
		first->docs[first->n++] = doc[0];
		second->docs[second->n++] = doc[1];
	}
	lg->partial = lg->rounds < runs;
	progress_clear();
}

/* A live comparison in which no run was whole measured nothing: say why on stderr, and exit 1
 * (as sweep does for a point whose every round failed). 0 when a run was whole, even if no
 * round had two (one side always partial: the report says "no verdict" and what was left out;
 * tests/e2e/verdicts.sh). */
static int nothing_compared(const struct side *a, const struct compare_log *lg)
{
	int failed = 0, total = 2 * lg->rounds;

	if (a->n || (total && lg->nlo < total))
		return 0;
	for (int i = 0; i < lg->nlo; i++)
		failed += lg->lo[i].status == RUN_FAILED;
	if (total && failed == total)
		fprintf(stderr, "sockbench: compare: no run succeeded: all %d failed (first: %s)\n",
			total, lg->lo[0].why);
	else if (!total)
		fprintf(stderr, "sockbench: compare: no run succeeded: interrupted before the first "
			"round ended\n");
	else
		fprintf(stderr, "sockbench: compare: no run was whole (%d runs partial or failed; "
			"first: %s): nothing compared\n", total, lg->lo[0].why);
	return 1;
}

/* A and B from the two words left: two result files (true) or two configurations, each
 * profiled with --profile. Anything else is a usage error. */
static bool load_sides(char **rest, bool profile, struct side *a, struct side *b)
{
	if (is_file_arg(rest[0]) && is_file_arg(rest[1])) {
		load_file(rest[0], a);
		load_file(rest[1], b);
		return true;
	}
	if (is_file_arg(rest[0]) || is_file_arg(rest[1]))
		die_usage("compare: give two configurations or two result files, not one of each");
	parse_spec(rest[0], a);
	parse_spec(rest[1], b);
	/* Functions outside a run's top list count 0 there: keep a long list. */
	for (struct side *s = a; s; s = s == a ? b : NULL) {
		s->o.profile |= profile;
		if (s->o.profile && !OPT_IS_SET(&s->o, profile_top))
			s->o.profile_top = MOVED_PROFILE_TOP;
	}
	return false;
}

/* A side's runs (its own when it ran them, a file's document when read), options, itself. */
static void side_free(struct side *s, bool files)
{
	for (int i = 0; !files && i < s->n; i++)
		cJSON_Delete(s->docs[i]);
	cJSON_Delete(s->file);
	if (s->have_opts)
		opts_free(&s->o);
	free(s);
}

int cmd_compare(int argc, char **argv)
{
	/* Static: a usage error (die_usage) exits with them still reachable, not leaked. */
	static struct side *a, *b;
	char *rest[16], err[512];
	struct compare_args f = {0};
	int nrest = 0;
	struct compare_log *lg = NULL;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		opts_usage_cmd(compare_flags, &compare_usage, stdout);
		return 0;
	}
	/* 'tcp-rr --help' (quoted, as a configuration) or tcp-rr --help: tcp-rr's flags. */
	for (int i = 1; i < argc; i++)
		wl_help_quoted_or_return("compare", argv[i]);
	if (argc > 2 && workload_find(argv[1]))
		wl_help_or_return("compare", workload_find(argv[1]), argc - 2, argv + 2);
	a = xcalloc(1, sizeof(*a));
	b = xcalloc(1, sizeof(*b));
	opts_own_defaults(compare_flags, &f);
	if (argc > 16 ||
	    (nrest = opts_take(compare_flags, &f, &(struct opts_words){argc - 1, argv + 1}, rest,
			       err, sizeof(err))) < 0)
		die_usage("compare: %s", argc > 16 ? "too many words: quote each configuration" : err);
	if (nrest != 2)
		die_usage("compare: give two configurations ('udp-rr' 'udp-rr --window 1') or two "
			  "result files (a.json b.json)");
	bool files = load_sides(rest, f.profile, a, b);

	if (a->wl != b->wl)
		die_usage("compare: A is %s and B is %s: compare runs of one workload", a->wl->name,
			  b->wl->name);
	struct verdict_plan plan = {.primary_fig = f.primary ? compare_figure_named(f.primary, a->wl)
							      : FIG_RATE};

	if (plan.primary_fig < 0) {
		char names[2048];

		compare_figure_names(a->wl, names, sizeof(names));
		die_usage("compare: --primary %s is not a figure of %s; its figures (each also "
			  "by its JSON path, docs/json.md): %s", f.primary, a->wl->name, names);
	}
	if (!files) {
		lg = xcalloc(1, sizeof(*lg));
		out_noise_warnings(stderr);
		run_rounds(a, b, f.runs, f.seed, lg);
	}
	struct verdict_row rows[NFIGURES];
	int n = compare_rows(a, b, !files, rows, &plan);
	const char *mv_why = NULL;
	struct moved_set *mv = moved_of(a->docs, a->n, b->docs, b->n);

	if (!mv)
		mv_why = "give --profile (as root) to both sides for where the time moved";

	/* Say why there is no profile comparison only when one was asked for or half there. */
	if (!mv && !f.profile && !(a->n && cJSON_GetObjectItemCaseSensitive(a->docs[0], "profile")) &&
	    !(b->n && cJSON_GetObjectItemCaseSensitive(b->docs[0], "profile")))
		mv_why = NULL;
	struct stage_moved *sm = stage_moved_of(a->docs, a->n, b->docs, b->n);

	struct compare_report cr = {.a = a, .b = b, .paired = !files, .rows = rows, .n = n,
				    .plan = &plan, .mv = mv, .mv_why = mv_why, .lg = lg, .sm = sm};

	compare_print(&cr, f.json);
	stage_moved_free(sm);
	fflush(stdout);
	int rc = lg ? nothing_compared(a, lg) : 0;

	moved_free(mv);
	side_free(a, files);
	side_free(b, files);
	free(lg);
	free(f.primary);
	return rc;
}
