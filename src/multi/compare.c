/* compare.c: `compare` and `sweep`.
 *
 * compare runs A and B in rounds, each round both, in an order drawn from a seed (so steady
 * drift cancels instead of favouring the side that runs second), and pairs the two runs of a
 * round; a round where either run was partial or failed is left out, and said. From two saved
 * files (other boots, other kernels) the runs cannot be paired. Every figure gets the ratio
 * B/A of the geometric means beside it, a 95% t interval on the log-ratios (Welch's for
 * unpaired runs; stats.h) and a verdict; the headline is the rate's, and when it has none it
 * says how many runs a difference of the size seen would need. When both sides' runs were
 * profiled (--profile), compare also says where the time moved: CPU microseconds per unit of
 * work in each syscall of each side and in each kernel function, A against B.
 *
 * sweep runs a grid of flag values (any numeric flags, one or two with lists), each point
 * --runs times, and writes a table, CSV, JSON and a gnuplot SVG; with --compare it sweeps A and
 * B and plots the ratio B/A per point: where a difference narrows or widens.
 */
#include "multi/compare.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile/moved.h"
#include "report/out.h"
#include "multi/repeat.h"
#include "run/run.h"
#include "multi/stats.h"
#include "base/util.h"
#include "workload/workload.h"

#define MAX_WORDS 64
#define MAX_RUNS 1000
#define MIN_GAIN STATS_MIN_GAIN
#define LEVEL 0.95

/* ---- a side of a comparison: its runs as result documents ---- */

struct side {
	const struct workload *wl;
	char label[300];
	struct opts o;
	bool have_opts;
	cJSON *file;	    /* the parsed file, when read from one */
	cJSON *docs[MAX_RUNS];
	int n;
};

/* Split "udp-rr --window 1" into words (no quoting: flags need none). */
static int split_words(char *s, char **w, int max)
{
	int n = 0;

	for (char *t = strtok(s, " \t"); t && n < max - 1; t = strtok(NULL, " \t"))
		w[n++] = t;
	w[n] = NULL;
	return n;
}

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
	FILE *f = fopen(path, "re");
	struct stat st;

	if (!f)
		die_usage("compare: cannot read %s: %s", path, strerror(errno));
	if (fstat(fileno(f), &st) || st.st_size > 256 << 20)
		die_usage("compare: %s is too large to be a sockbench result", path);
	char *txt = xcalloc(1, (size_t)st.st_size + 1);
	size_t got = fread(txt, 1, (size_t)st.st_size, f);

	fclose(f);
	txt[got] = '\0';
	s->file = cJSON_Parse(txt);
	free(txt);
	if (!s->file)
		die_usage("compare: %s is not JSON (save results with --json)", path);
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

/* ---- the comparison of two sides ---- */

struct verdict_row {
	int f;
	struct paired e;
	bool ratio_ok; /* enough runs with both values above 0 for a ratio */
	double a, b;   /* geometric means (medians where there is no ratio) */
	const char *word;
	int needed; /* runs a difference this size would need, or -1 */
};

static const char *figure_word(const struct figure_def *fd, enum verdict v)
{
	if (v == VERDICT_SAME)
		return "no significant difference";
	if (fd->higher_better)
		return v == VERDICT_FASTER ? "B higher (better)" : "B lower (worse)";
	return v == VERDICT_FASTER ? "B higher (worse)" : "B lower (better)";
}

static int compare_rows(struct side *a, struct side *b, bool paired, struct verdict_row *rows)
{
	double *va = xmalloc(MAX_RUNS * sizeof(double)), *vb = xmalloc(MAX_RUNS * sizeof(double));
	double *ma = xmalloc(MAX_RUNS * sizeof(double)), *mb = xmalloc(MAX_RUNS * sizeof(double));
	int nrows = 0;

	for (int f = 0; f < nfigures; f++) {
		int na = 0, nb = 0, nma = 0, nmb = 0;

		/* Every value for the medians; for the ratio, the pairs (or runs) above 0. */
		for (int i = 0; i < a->n; i++)
			if (!isnan(ma[nma] = figure_of(a->docs[i], f)))
				nma++;
		for (int i = 0; i < b->n; i++)
			if (!isnan(mb[nmb] = figure_of(b->docs[i], f)))
				nmb++;
		if (!nma || !nmb)
			continue;
		if (paired) {
			int n = a->n < b->n ? a->n : b->n;

			for (int i = 0; i < n; i++) {
				double x = figure_of(a->docs[i], f), y = figure_of(b->docs[i], f);

				if (x > 0 && y > 0) {
					va[na++] = x;
					vb[nb++] = y;
				}
			}
		} else {
			for (int i = 0; i < nma; i++)
				if (ma[i] > 0)
					va[na++] = ma[i];
			for (int i = 0; i < nmb; i++)
				if (mb[i] > 0)
					vb[nb++] = mb[i];
		}
		struct verdict_row *r = &rows[nrows++];

		*r = (struct verdict_row){.f = f, .needed = -1};
		r->ratio_ok = na >= 2 && nb >= 2 && (!paired || na == nma);
		if (!r->ratio_ok) {
			r->a = stats_median(ma, nma);
			r->b = stats_median(mb, nmb);
			r->word = "no ratio (a run has 0)";
			continue;
		}
		if (paired)
			stats_paired(va, vb, na, LEVEL, &r->e);
		else
			stats_unpaired(va, na, vb, nb, LEVEL, &r->e);
		r->a = r->e.a_gm;
		r->b = r->e.b_gm;
		enum verdict v = stats_verdict_of(&r->e, r->e.p < 1 - LEVEL, MIN_GAIN);

		r->word = figure_word(&figures[f], v);
		if (v == VERDICT_SAME && paired && fabs(r->e.ratio - 1) >= MIN_GAIN)
			r->needed = stats_runs_needed(&r->e, LEVEL, MAX_RUNS);
	}
	free(va);
	free(vb);
	free(ma);
	free(mb);
	return nrows;
}

/* "B is 1.23x faster (1.18-1.29, 95%)", from the rate's row; without a verdict, what would
 * give one. */
static void headline(const struct verdict_row *r, char *buf, size_t len)
{
	enum verdict v = r->ratio_ok ? stats_verdict_of(&r->e, r->e.p < 1 - LEVEL, MIN_GAIN)
				     : VERDICT_SAME;
	const struct paired *e = &r->e;

	if (!r->ratio_ok || e->n < 2)
		snprintf(buf, len, "no verdict: %s", e->n < 2 ? "fewer than 2 pairs of whole runs"
							       : "a run has no rate");
	else if (v == VERDICT_FASTER)
		snprintf(buf, len, "B is %.2fx faster (%.2f-%.2f, %.0f%% confidence)", e->ratio, e->lo,
			 e->hi, e->level * 100);
	else if (v == VERDICT_SLOWER)
		snprintf(buf, len, "B is slower: %.2fx the rate of A (%.2f-%.2f, %.0f%% confidence), "
			 "A is %.2fx faster", e->ratio, e->lo, e->hi, e->level * 100, 1 / e->ratio);
	else if (r->needed > 0)
		snprintf(buf, len, "no significant difference: B/A = %.2f (%.2f-%.2f, %.0f%% "
			 "confidence); a difference this size needs about %d runs of each to show",
			 e->ratio, e->lo, e->hi, e->level * 100, r->needed);
	else
		snprintf(buf, len, "no significant difference: B/A = %.2f (%.2f-%.2f, %.0f%% "
			 "confidence)", e->ratio, e->lo, e->hi, e->level * 100);
}

/* How a live comparison went: its order, and what was left out. */
struct compare_log {
	uint64_t seed;
	char order[2 * MAX_RUNS + MAX_RUNS + 1]; /* "AB BA ...": each round's order */
	struct left_out lo[2 * MAX_RUNS];
	int nlo, rounds, asked;
	bool partial; /* interrupted */
};

static cJSON *row_json(const struct verdict_row *r, const struct workload *wl)
{
	cJSON *e = cJSON_CreateObject();
	char lab[64];

	cJSON_AddStringToObject(e, "key", figure_key(r->f, wl));
	cJSON_AddStringToObject(e, "label", figure_label(r->f, wl, lab, sizeof(lab)));
	cJSON_AddNumberToObject(e, r->ratio_ok ? "a_geomean" : "a_median", r->a);
	cJSON_AddNumberToObject(e, r->ratio_ok ? "b_geomean" : "b_median", r->b);
	if (r->ratio_ok) {
		cJSON_AddNumberToObject(e, "ratio", r->e.ratio);
		cJSON_AddNumberToObject(e, "ci_low", r->e.lo);
		cJSON_AddNumberToObject(e, "ci_high", r->e.hi);
		cJSON_AddNumberToObject(e, "confidence", r->e.level);
		cJSON_AddNumberToObject(e, "p_value", r->e.p);
		cJSON_AddNumberToObject(e, "pairs", r->e.n);
		if (r->needed > 0)
			cJSON_AddNumberToObject(e, "runs_needed", r->needed);
	}
	cJSON_AddStringToObject(e, "verdict", r->word);
	return e;
}

static void print_compare(struct side *a, struct side *b, bool paired, struct verdict_row *rows,
			  int n, bool json, const struct moved_set *mv, const char *mv_why,
			  const struct compare_log *lg)
{
	char head[300] = "no verdict: no pair of whole runs to compare", lab[64];

	if (n && rows[0].f == 0)
		headline(&rows[0], head, sizeof(head));
	if (json) {
		cJSON *j = cJSON_CreateObject(), *arr = cJSON_CreateArray();

		cJSON_AddNumberToObject(j, "schema", RESULT_SCHEMA);
		cJSON_AddStringToObject(j, "tool", "sockbench");
		cJSON_AddStringToObject(j, "kind", "compare");
		cJSON_AddStringToObject(j, "workload", a->wl->name);
		cJSON_AddStringToObject(j, "a", a->label);
		cJSON_AddStringToObject(j, "b", b->label);
		cJSON_AddNumberToObject(j, "runs_a", a->n);
		cJSON_AddNumberToObject(j, "runs_b", b->n);
		cJSON_AddBoolToObject(j, "paired", paired);
		cJSON_AddStringToObject(j, "interval", paired ? "t on the paired log-ratios"
							       : "Welch t on the logs");
		if (lg) {
			char seed[24];

			snprintf(seed, sizeof(seed), "%llu", (unsigned long long)lg->seed);
			cJSON_AddStringToObject(j, "seed", seed);
			cJSON_AddStringToObject(j, "order", lg->order);
			cJSON_AddNumberToObject(j, "rounds_asked", lg->asked);
			cJSON_AddItemToObject(j, "left_out", left_out_json(lg->lo, lg->nlo));
		}
		cJSON_AddBoolToObject(j, "partial", lg && lg->partial);
		cJSON_AddStringToObject(j, "verdict", head);
		for (int i = 0; i < n; i++)
			cJSON_AddItemToArray(arr, row_json(&rows[i], a->wl));
		cJSON_AddItemToObject(j, "figures", arr);
		if (mv)
			cJSON_AddItemToObject(j, "where_time_moved", moved_json(mv));
		else if (mv_why)
			cJSON_AddStringToObject(j, "where_time_moved_note", mv_why);
		out_print_json(j, stdout);
		cJSON_Delete(j);
		return;
	}
	printf("sockbench compare (%s)\n  A: %s  (%d runs)\n  B: %s  (%d runs)\n",
	       paired ? "rounds of A and B in a random order, the two runs of a round paired"
		      : "saved runs, not paired",
	       a->label, a->n, b->label, b->n);
	if (lg)
		printf("  order (seed %llu): %s\n", (unsigned long long)lg->seed, lg->order);
	printf("\n  %-30s %13s %13s %8s %16s   %s\n", "figure (geometric means)", "A", "B", "B/A",
	       "95% interval", "verdict");
	for (int i = 0; i < n; i++) {
		char ci[40] = "-", ratio[16] = "-";

		if (rows[i].ratio_ok) {
			snprintf(ratio, sizeof(ratio), "%.3f", rows[i].e.ratio);
			snprintf(ci, sizeof(ci), "%.3f-%.3f", rows[i].e.lo, rows[i].e.hi);
		}
		printf("  %-30s %13.3f %13.3f %8s %16s   %s\n",
		       figure_label(rows[i].f, a->wl, lab, sizeof(lab)), rows[i].a, rows[i].b, ratio, ci,
		       rows[i].word);
	}
	printf("\n  B/A is the ratio of the two columns beside it: the geometric means of the %s "
	       "runs; the interval is Student's t on the %s (docs/json.md).\n",
	       paired ? "paired" : "saved", paired ? "log-ratios of the pairs" : "logs (Welch)");
	if (lg && (lg->nlo || lg->partial)) {
		printf("  ");
		if (lg->partial)
			printf("PARTIAL: interrupted after %d of %d rounds. ", lg->rounds, lg->asked);
		print_left_out(lg->lo, lg->nlo, 2 * lg->rounds);
		if (!lg->nlo)
			printf("\n");
	}
	printf("\n%s\n", head);
	if (mv) {
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(a->docs[0], "unit");

		printf("\nwhere the time moved (from the profiles of every run):");
		moved_print(mv, cJSON_IsString(u) ? u->valuestring : "unit", 12);
	} else if (mv_why) {
		printf("(%s)\n", mv_why);
	}
}

/* compare's own flags out of argv: --runs N, --json, --profile. */
static int take_flags(int argc, char **argv, int *runs, bool *json, bool *profile,
		      uint64_t *seed, char **rest)
{
	int n = 0;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			*json = true;
		} else if (!strcmp(argv[i], "--profile")) {
			*profile = true;
		} else if (!strcmp(argv[i], "--seed")) {
			char *end;

			if (i + 1 >= argc)
				die_usage("compare: --seed needs a value");
			unsigned long long v = strtoull(argv[++i], &end, 10);

			if (*end || end == argv[i] || v == 0)
				die_usage("compare: --seed %s: give a whole number above 0", argv[i]);
			*seed = v;
		} else if (!strcmp(argv[i], "--runs")) {
			char *end;

			if (i + 1 >= argc)
				die_usage("compare: --runs needs a value");
			long v = strtol(argv[++i], &end, 10);

			if (*end || v < 2 || v > MAX_RUNS)
				die_usage("compare: --runs %s is out of range: use 2 to %d", argv[i], MAX_RUNS);
			*runs = (int)v;
		} else {
			rest[n++] = argv[i];
		}
	}
	return n;
}

/* A fresh seed when none was given: the time and the pid, never 0. */
static uint64_t fresh_seed(void)
{
	uint64_t s = now_ns() ^ ((uint64_t)getpid() << 32);

	return s ? s : 1;
}

/* --runs rounds of A and B in a seeded random order; a round counts only when both of its
 * runs were whole. */
static void run_rounds(struct side *a, struct side *b, int runs, uint64_t seed,
		       struct compare_log *lg)
{
	uint64_t t0 = now_ns(), st;
	size_t olen = 0;

	lg->seed = st = seed ? seed : fresh_seed();
	lg->asked = runs;
	run_signals_keep();
	for (int i = 0; i < runs && !run_interrupted(); i++) {
		bool b_first = stats_rand(&st) & 1;
		struct side *first = b_first ? b : a, *second = b_first ? a : b;
		cJSON *doc[2] = {NULL, NULL};
		enum run_status st2[2];
		char why[2][300];

		for (int k = 0; k < 2 && !run_interrupted(); k++) {
			progress_line("compare: run", 2 * i + k, 2 * runs, t0);
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

int cmd_compare(int argc, char **argv)
{
	struct side *a = xcalloc(1, sizeof(*a)), *b = xcalloc(1, sizeof(*b));
	char *rest[8];
	int runs = STATS_DEFAULT_RUNS;
	bool json = false, profile = false;
	uint64_t seed = 0;
	struct compare_log *lg = NULL;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: sockbench compare 'WORKLOAD [flags]' 'WORKLOAD [flags]' [--runs N] [--seed N] [--profile] [--json]\n"
		       "       sockbench compare before.json after.json [--json]\n"
		       "Runs A and B in --runs rounds (default %d), each round both in an order drawn "
		       "from --seed (default: a fresh one, printed), or reads two saved --json results, "
		       "and prints every figure with B/A, a 95%% t interval and a verdict.\n"
		       "--profile (root) profiles every run and says where the time moved: CPU us per "
		       "unit in each syscall of each side and each kernel function, A against B.\n",
		       STATS_DEFAULT_RUNS);
		return 0;
	}
	if (argc > 10 || take_flags(argc - 1, argv + 1, &runs, &json, &profile, &seed, rest) != 2)
		die_usage("compare: give two configurations ('udp-rr' 'udp-rr --window 1') or two "
			  "result files (a.json b.json)");
	bool files = is_file_arg(rest[0]) && is_file_arg(rest[1]);

	if (files) {
		load_file(rest[0], a);
		load_file(rest[1], b);
	} else if (is_file_arg(rest[0]) || is_file_arg(rest[1])) {
		die_usage("compare: give two configurations or two result files, not one of each");
	} else {
		parse_spec(rest[0], a);
		parse_spec(rest[1], b);
		/* Functions outside a run's top list count 0 there: keep a long list. */
		for (struct side *s = a; s; s = s == a ? b : NULL) {
			s->o.profile |= profile;
			if (s->o.profile && !OPT_IS_SET(&s->o, profile_top))
				s->o.profile_top = MOVED_PROFILE_TOP;
		}
	}
	if (a->wl != b->wl)
		die_usage("compare: A is %s and B is %s: compare runs of one workload", a->wl->name,
			  b->wl->name);
	if (!files) {
		lg = xcalloc(1, sizeof(*lg));
		run_rounds(a, b, runs, seed, lg);
	}
	struct verdict_row rows[64];
	int n = compare_rows(a, b, !files, rows);
	const char *mv_why = NULL;
	struct moved_set *mv = moved_of(a->docs, a->n, b->docs, b->n);

	if (!mv)
		mv_why = "give --profile (as root) to both sides for where the time moved";

	/* Say why there is no profile comparison only when one was asked for or half there. */
	if (!mv && !profile && !(a->n && cJSON_GetObjectItemCaseSensitive(a->docs[0], "profile")) &&
	    !(b->n && cJSON_GetObjectItemCaseSensitive(b->docs[0], "profile")))
		mv_why = NULL;
	print_compare(a, b, !files, rows, n, json, mv, mv_why, lg);
	moved_free(mv);
	for (int i = 0; !files && i < a->n; i++)
		cJSON_Delete(a->docs[i]);
	for (int i = 0; !files && i < b->n; i++)
		cJSON_Delete(b->docs[i]);
	cJSON_Delete(a->file);
	cJSON_Delete(b->file);
	if (a->have_opts)
		opts_free(&a->o);
	if (b->have_opts)
		opts_free(&b->o);
	free(a);
	free(b);
	free(lg);
	return 0;
}

/* ---- sweep ---- */

#define MAX_PARAMS 2
#define MAX_VALUES 32

struct param {
	const char *flag; /* "--size" */
	char *values[MAX_VALUES];
	int n;
};

struct point {
	char *v[MAX_PARAMS];
	double a_tps[MAX_RUNS], b_tps[MAX_RUNS];
	int n;
	cJSON *a_sum, *b_sum;
	struct paired e; /* with --compare: B/A */
	int left;	 /* rounds left out (a run partial or failed) */
};

struct sweep {
	const struct workload *wl;
	char *base[MAX_WORDS];
	int nbase;
	char *bflags[MAX_WORDS];
	int nb;
	struct param p[MAX_PARAMS];
	int np;
	struct point *pts;
	int npts;
	int runs;
	const char *csv, *plot, *compare;
	bool json;
	uint64_t seed; /* of the A/B order, with --compare */
};

static const struct opt_def *find_flag(const struct workload *wl, const char *flag)
{
	if (strncmp(flag, "--", 2))
		return NULL;
	for (const struct opt_def *d = wl->opts; d->name; d++)
		if (!strcmp(d->name, flag + 2))
			return d;
	return NULL;
}

static void add_param(struct sweep *s, const char *flag, char *list)
{
	const struct opt_def *d = find_flag(s->wl, flag);
	struct param *p = &s->p[s->np];

	if (!d || (d->type != OPT_INT && d->type != OPT_DBL))
		die_usage("sweep: %s is not a numeric flag of %s", flag, s->wl->name);
	if (s->np == MAX_PARAMS)
		die_usage("sweep: at most %d flags with lists of values", MAX_PARAMS);
	p->flag = flag;
	for (char *t = strtok(list, ","); t; t = strtok(NULL, ","))
		if (p->n < MAX_VALUES)
			p->values[p->n++] = t;
	if (!p->n)
		die_usage("sweep: %s has no values", flag);
	s->np++;
}

/* Split sweep's own flags, the swept ones (a value with a comma) and the rest. */
static void sweep_args(struct sweep *s, int argc, char **argv)
{
	s->base[s->nbase++] = (char *)s->wl->name;
	for (int i = 0; i < argc; i++) {
		char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *eq = strchr(a, '=');

		if (!strcmp(a, "--json")) {
			s->json = true;
			continue;
		}
		if (!strcmp(a, "--csv") || !strcmp(a, "--plot") || !strcmp(a, "--compare")) {
			if (!val)
				die_usage("sweep: %s needs a value", a);
			*(a[2] == 'c' && a[3] == 's' ? &s->csv : a[2] == 'p' ? &s->plot : &s->compare) = val;
			i++;
			continue;
		}
		if (eq && strchr(eq, ',')) { /* --size=1,2 */
			*eq = '\0';
			add_param(s, a, eq + 1);
			continue;
		}
		const struct opt_def *d = find_flag(s->wl, a);

		if (d && d->type != OPT_BOOL && val && strchr(val, ',')) {
			add_param(s, a, val);
			i++;
			continue;
		}
		if (s->nbase < MAX_WORDS - 4)
			s->base[s->nbase++] = a;
	}
	if (!s->np)
		die_usage("sweep: give at least one flag with a list of values, e.g. --size 100,1000,10000");
}

/* Options of one point (and of B with --compare). */
static void point_opts(struct sweep *s, struct point *pt, bool b, struct opts *o)
{
	char *argv[MAX_WORDS * 2 + 8], err[256];
	int argc = 0;

	for (int i = 0; i < s->nbase; i++)
		argv[argc++] = s->base[i];
	for (int k = 0; k < s->np; k++) {
		argv[argc++] = (char *)s->p[k].flag;
		argv[argc++] = pt->v[k];
	}
	for (int i = 0; b && i < s->nb; i++)
		argv[argc++] = s->bflags[i];
	argv[argc] = NULL;
	opts_defaults(o, s->wl->overrides);
	int ret = opts_parse(s->wl->opts, s->wl->overrides, argc, argv, o, err, sizeof(err));

	if (ret || s->wl->check(o, err, sizeof(err)))
		die_usage("sweep %s: at %s %s%s%s: %s", s->wl->name, s->p[0].flag, pt->v[0],
			  s->np > 1 ? " " : "", s->np > 1 ? pt->v[1] : "", ret == 1 ? "--help" : err);
	o->json = false;
	o->runs = 1;
}

static void make_grid(struct sweep *s)
{
	int n1 = s->p[0].n, n2 = s->np > 1 ? s->p[1].n : 1;

	s->npts = n1 * n2;
	s->pts = xcalloc((size_t)s->npts, sizeof(*s->pts));
	for (int i = 0; i < n1; i++)
		for (int k = 0; k < n2; k++) {
			struct point *pt = &s->pts[k * n1 + i]; /* grouped by the second flag */

			pt->v[0] = s->p[0].values[i];
			pt->v[1] = s->np > 1 ? s->p[1].values[k] : NULL;
		}
}

static double med(const cJSON *sum, const char *key)
{
	return json_path(cJSON_GetObjectItemCaseSensitive(sum, key), "median");
}

static void run_point(struct sweep *s, struct point *pt, int idx, uint64_t t0)
{
	struct opts o[2];
	cJSON *docs[2][MAX_RUNS];
	bool unstable;
	int sides = s->compare ? 2 : 1, total = s->npts * s->runs * sides;
	char what[160];

	point_opts(s, pt, false, &o[0]);
	if (s->compare)
		point_opts(s, pt, true, &o[1]);
	snprintf(what, sizeof(what), "sweep: %s=%s%s%s%s run", s->p[0].flag + 2, pt->v[0],
		 s->np > 1 ? " " : "", s->np > 1 ? s->p[1].flag + 2 : "", s->np > 1 ? "=" : "");
	for (int r = 0; r < s->runs && !run_interrupted(); r++) {
		/* With --compare, A and B in a seeded random order; a round counts when both are
		 * whole runs. */
		int first = s->compare ? (int)(stats_rand(&s->seed) & 1) : 0;
		cJSON *d[2] = {NULL, NULL};
		enum run_status st[2] = {RUN_WHOLE, RUN_WHOLE};
		char why[300];

		for (int k = 0; k < sides && !run_interrupted(); k++) {
			int side = k ? 1 - first : first;

			progress_line(what, (idx * s->runs + r) * sides + k, total, t0);
			st[side] = run_isolated(s->wl, &o[side], &d[side], why, sizeof(why));
		}
		if (run_interrupted() || st[0] != RUN_WHOLE || st[1] != RUN_WHOLE) {
			pt->left += !run_interrupted();
			cJSON_Delete(d[0]);
			cJSON_Delete(d[1]);
			continue;
		}
		for (int k = 0; k < sides; k++) {
			docs[k][pt->n] = d[k];
			(k ? pt->b_tps : pt->a_tps)[pt->n] = figure_of(d[k], 0);
		}
		pt->n++;
	}
	if (pt->n) {
		pt->a_sum = figures_summary(docs[0], pt->n, &unstable);
		if (s->compare) {
			pt->b_sum = figures_summary(docs[1], pt->n, &unstable);
			stats_paired(pt->a_tps, pt->b_tps, pt->n, LEVEL, &pt->e);
		}
	}
	for (int i = 0; i < pt->n; i++)
		for (int k = 0; k < sides; k++)
			cJSON_Delete(docs[k][i]);
	for (int k = 0; k < sides; k++)
		opts_free(&o[k]);
}

/* The columns of a sweep: the rate, then those of these figures the workload has. */
static int sweep_keys(const struct sweep *s, const char **keys)
{
	static const char *const cand[] = {"gbit_per_s", "packets_sent_per_s", "loss_pct",
					   "latency_p50_us", "latency_p99_us", "retransmits",
					   "client_cpu_us", "server_cpu_us"};
	const cJSON *sum = NULL;
	int n = 0;

	for (int i = 0; i < s->npts && !sum; i++)
		sum = s->pts[i].a_sum;
	keys[n++] = "rate";
	for (size_t i = 0; i < ARRAY_SIZE(cand); i++)
		if (!sum || cJSON_HasObjectItem(sum, cand[i]))
			keys[n++] = cand[i];
	return n;
}

static void write_row(FILE *f, struct sweep *s, struct point *pt, const char *sep, bool header)
{
	const char *keys[16];
	int nk = sweep_keys(s, keys);

	if (header) {
		for (int k = 0; k < s->np; k++)
			fprintf(f, "%s%s", s->p[k].flag + 2, sep);
		for (int i = 0; i < nk; i++)
			fprintf(f, "%s%s", i ? keys[i] : figure_key(0, s->wl),
				i + 1 < nk || s->compare ? sep : "");
		if (s->compare)
			fprintf(f, "b_%s%sratio%sratio_low%sratio_high", figure_key(0, s->wl), sep, sep,
				sep);
		fprintf(f, "\n");
		return;
	}
	for (int k = 0; k < s->np; k++)
		fprintf(f, "%s%s", pt->v[k], sep);
	for (int i = 0; i < nk; i++)
		fprintf(f, "%.3f%s", med(pt->a_sum, keys[i]), i + 1 < nk || s->compare ? sep : "");
	if (s->compare)
		fprintf(f, "%.3f%s%.4f%s%.4f%s%.4f", med(pt->b_sum, "rate"), sep,
			pt->e.ratio, sep, pt->e.lo, sep, pt->e.hi);
	fprintf(f, "\n");
}

static bool spans_decades(struct param *p)
{
	double lo = INFINITY, hi = 0;

	for (int i = 0; i < p->n; i++) {
		double v = atof(p->values[i]);

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	return lo > 0 && hi / lo >= 10;
}

/* gnuplot: x = the first flag, one line per value of the second; y = the rate, or B/A. */
static void plot(struct sweep *s)
{
	char dir[] = "/tmp/sockbench-plot-XXXXXX", data[64], script[64];

	if (!mkdtemp(dir))
		die("sweep: mkdtemp: %s", strerror(errno));
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	FILE *d = fopen(data, "we"), *g = fopen(script, "we");
	int n1 = s->p[0].n, n2 = s->np > 1 ? s->p[1].n : 1;

	if (!d || !g)
		die("sweep: cannot write the plot's files in %s", dir);
	for (int k = 0; k < n2; k++) {
		for (int i = 0; i < n1; i++) {
			struct point *pt = &s->pts[k * n1 + i];

			if (!pt->n)
				continue;
			if (s->compare)
				fprintf(d, "%s %.5f %.5f %.5f\n", pt->v[0], pt->e.ratio, pt->e.lo, pt->e.hi);
			else
				fprintf(d, "%s %.3f\n", pt->v[0], med(pt->a_sum, "rate"));
		}
		fprintf(d, "\n\n");
	}
	fclose(d);
	fprintf(g, "set terminal svg size 900,560 dynamic background rgb 'white'\nset output '%s'\n",
		s->plot);
	fprintf(g, "set title 'sockbench sweep %s%s'\nset xlabel '%s'\nset ylabel '%s%s'\nset grid\n",
		s->wl->name, s->compare ? " (B/A)" : "", s->p[0].flag + 2,
		s->compare ? "rate, B / A" : s->wl->unit, s->compare ? "" : "s/s (median)");
	fprintf(g, "set key outside right\n");
	if (spans_decades(&s->p[0]))
		fprintf(g, "set logscale x\n");
	fprintf(g, "plot ");
	for (int k = 0; k < n2; k++) {
		char title[80];

		if (s->np > 1)
			snprintf(title, sizeof(title), "%s=%s", s->p[1].flag + 2, s->p[1].values[k]);
		else
			snprintf(title, sizeof(title), "%s", s->compare ? "B/A" : "A");
		if (s->compare)
			fprintf(g, "%s'%s' index %d using 1:2:3:4 with yerrorlines title '%s'", k ? ", " : "",
				data, k, title);
		else
			fprintf(g, "%s'%s' index %d using 1:2 with linespoints title '%s'", k ? ", " : "",
				data, k, title);
	}
	if (s->compare)
		fprintf(g, ", 1 with lines dashtype 2 lc rgb 'gray' title 'no difference'");
	fprintf(g, "\n");
	fclose(g);
	pid_t pid = fork();

	if (pid == 0) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	int st = 0;

	waitpid(pid, &st, 0);
	unlink(data);
	unlink(script);
	rmdir(dir);
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 127)
		die("sweep: gnuplot is not installed (apt-get install gnuplot-nox): no plot written");
	if (WEXITSTATUS(st))
		die("sweep: gnuplot failed to write %s", s->plot);
}

static void sweep_json(struct sweep *s)
{
	cJSON *j = cJSON_CreateObject(), *ps = cJSON_CreateArray(), *pts = cJSON_CreateArray();

	cJSON_AddNumberToObject(j, "schema", RESULT_SCHEMA);
	cJSON_AddStringToObject(j, "tool", "sockbench");
	cJSON_AddStringToObject(j, "kind", "sweep");
	cJSON_AddStringToObject(j, "workload", s->wl->name);
	cJSON_AddNumberToObject(j, "runs", s->runs);
	if (s->compare)
		cJSON_AddStringToObject(j, "compare", s->compare);
	for (int k = 0; k < s->np; k++)
		cJSON_AddItemToArray(ps, cJSON_CreateString(s->p[k].flag + 2));
	cJSON_AddItemToObject(j, "params", ps);
	for (int i = 0; i < s->npts; i++) {
		struct point *pt = &s->pts[i];
		cJSON *e = cJSON_CreateObject(), *v = cJSON_CreateObject();

		for (int k = 0; k < s->np; k++)
			cJSON_AddNumberToObject(v, s->p[k].flag + 2, atof(pt->v[k]));
		cJSON_AddItemToObject(e, "values", v);
		if (pt->a_sum)
			cJSON_AddItemReferenceToObject(e, "a", pt->a_sum);
		if (pt->b_sum) {
			cJSON_AddItemReferenceToObject(e, "b", pt->b_sum);
			cJSON_AddNumberToObject(e, "ratio", pt->e.ratio);
			cJSON_AddNumberToObject(e, "ci_low", pt->e.lo);
			cJSON_AddNumberToObject(e, "ci_high", pt->e.hi);
			cJSON_AddNumberToObject(e, "confidence", pt->e.level);
			cJSON_AddNumberToObject(e, "p_value", pt->e.p);
		}
		cJSON_AddNumberToObject(e, "runs", pt->n);
		cJSON_AddNumberToObject(e, "rounds_left_out", pt->left);
		cJSON_AddItemToArray(pts, e);
	}
	cJSON_AddItemToObject(j, "points", pts);
	out_print_json(j, stdout);
	cJSON_Delete(j);
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep *s = xcalloc(1, sizeof(*s));
	struct opts check;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf("usage: sockbench sweep WORKLOAD --FLAG v1,v2,... [--FLAG2 w1,w2,...] [flags]\n"
		       "       [--runs N] [--csv FILE] [--plot FILE.svg] [--json] [--compare 'B flags']\n"
		       "Runs every point of the grid --runs times (default 3) and prints the medians; "
		       "--compare adds B's flags at each point and reports B/A.\n");
		return argc < 2 ? 2 : 0;
	}
	s->wl = workload_or_exit("sweep", argv[1]);
	sweep_args(s, argc - 2, argv + 2);
	char *bcopy = s->compare ? xstrdup(s->compare) : NULL;

	if (bcopy)
		s->nb = split_words(bcopy, s->bflags, MAX_WORDS);
	/* --runs from the flags (default 3 for a sweep). */
	workload_parse_or_exit(s->wl, s->nbase, s->base, &check);
	s->runs = OPT_IS_SET(&check, runs) ? (int)check.runs : 3;
	s->seed = now_ns() | 1;
	opts_free(&check);
	make_grid(s);
	for (int i = 0; i < s->npts; i++) { /* every point is valid before the first run */
		struct opts o;

		point_opts(s, &s->pts[i], false, &o);
		opts_free(&o);
	}
	uint64_t t0 = now_ns();

	run_signals_keep();
	for (int i = 0; i < s->npts && !run_interrupted(); i++)
		run_point(s, &s->pts[i], i, t0);
	progress_clear();
	if (s->json) {
		sweep_json(s);
	} else {
		printf("sockbench sweep %s: %d point%s x %d runs%s%s (medians)\n\n", s->wl->name, s->npts,
		       s->npts > 1 ? "s" : "", s->runs, s->compare ? ", B = A + " : "",
		       s->compare ? s->compare : "");
		write_row(stdout, s, NULL, "\t", true);
		for (int i = 0; i < s->npts; i++)
			if (s->pts[i].n)
				write_row(stdout, s, &s->pts[i], "\t", false);
	}
	if (s->csv) {
		FILE *f = fopen(s->csv, "we");

		if (!f)
			die("sweep: --csv %s: %s", s->csv, strerror(errno));
		write_row(f, s, NULL, ",", true);
		for (int i = 0; i < s->npts; i++)
			if (s->pts[i].n)
				write_row(f, s, &s->pts[i], ",", false);
		fclose(f);
	}
	if (s->plot)
		plot(s);
	if (run_interrupted())
		fprintf(stderr, "sockbench: sweep interrupted: the points above are what was measured\n");
	for (int i = 0; i < s->npts; i++) {
		cJSON_Delete(s->pts[i].a_sum);
		cJSON_Delete(s->pts[i].b_sum);
	}
	free(s->pts);
	free(s);
	free(bcopy);
	return 0;
}
