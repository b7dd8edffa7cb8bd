/* compare_verdict.c: the verdicts of a comparison, figure by figure.
 *
 * About twenty figures come out of each comparison; judged each at 95% on its own, an A/A
 * comparison would name some figure different in most runs. So one figure is primary (the
 * rate, or --primary) and carries the headline at 95% on its own p; the others are one family
 * whose p-values are Holm-adjusted and judged at 5% only when the primary's difference is
 * significant (serial gatekeeping, stats_figure_family): the chance of any false verdict over
 * all the figures stays at 5% (tests/unit/test_calibration.c simulates it).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "multi/compare_priv.h"

int compare_figure_named(const char *name, const struct workload *wl)
{
	int f = figure_named(name, strlen(name));

	return f >= 0 && shows_any(workload_shows(wl), figures[f].shows) ? f : -1;
}

void compare_figure_names(const struct workload *wl, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (int f = 0; f < nfigures; f++)
		if (shows_any(workload_shows(wl), figures[f].shows))
			at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s", at ? ", " : "",
					       figures[f].key);
}

static const char *figure_word(const struct figure_def *fd, enum verdict v)
{
	if (v == VERDICT_SAME)
		return "no significant difference";
	if (fd->higher_better)
		return v == VERDICT_FASTER ? "B higher (better)" : "B lower (worse)";
	return v == VERDICT_FASTER ? "B higher (worse)" : "B lower (better)";
}

/* A figure's values: every one (for the medians) and those that make ratios (above 0, in whole
 * pairs when paired). */
struct values {
	double *ma, *mb, *va, *vb;
	int nma, nmb, na, nb;
};

static void take_values(const struct side *a, const struct side *b, bool paired, int f,
			struct values *v)
{
	v->nma = v->nmb = v->na = v->nb = 0;
	for (int i = 0; i < a->n; i++)
		if (!isnan(v->ma[v->nma] = figure_of(a->docs[i], f)))
			v->nma++;
	for (int i = 0; i < b->n; i++)
		if (!isnan(v->mb[v->nmb] = figure_of(b->docs[i], f)))
			v->nmb++;
	for (int i = 0; paired && i < (a->n < b->n ? a->n : b->n); i++) {
		double x = figure_of(a->docs[i], f), y = figure_of(b->docs[i], f);

		if (x > 0 && y > 0) {
			v->va[v->na++] = x;
			v->vb[v->nb++] = y;
		}
	}
	for (int i = 0; !paired && i < v->nma; i++)
		if (v->ma[i] > 0)
			v->va[v->na++] = v->ma[i];
	for (int i = 0; !paired && i < v->nmb; i++)
		if (v->mb[i] > 0)
			v->vb[v->nb++] = v->mb[i];
}

/* Why there is no ratio: one run on a side (saved runs), fewer than 2 pairs, or a 0. */
static const char *no_ratio_why(const struct values *v, bool paired)
{
	if (!paired && (v->nma < 2 || v->nmb < 2))
		return v->nma < 2 ? "no verdict: A has 1 run (no spread)"
				  : "no verdict: B has 1 run (no spread)";
	if (paired && v->nma < 2)
		return "no verdict: fewer than 2 pairs";
	return "no ratio (a run has 0)";
}

/* One figure's row: its ratio and interval, or why there is none. */
static void row_stats(const struct side *a, const struct side *b, bool paired, int f,
		      struct values *v, struct verdict_row *r)
{
	take_values(a, b, paired, f, v);
	*r = (struct verdict_row){.f = f, .needed = -1, .p_adj = 1};
	if (!v->nma || !v->nmb) /* a figure this workload does not have: no row */
		return;
	r->ratio_ok = v->na >= 2 && v->nb >= 2 && v->na == v->nma && v->nb == v->nmb;
	if (!r->ratio_ok) {
		r->a = stats_median(v->ma, v->nma);
		r->b = stats_median(v->mb, v->nmb);
		snprintf(r->word, sizeof(r->word), "%s", no_ratio_why(v, paired));
		return;
	}
	if (paired)
		stats_paired(v->va, v->vb, v->na, LEVEL, &r->e);
	else
		stats_unpaired(v->va, v->na, v->vb, v->nb, LEVEL, &r->e);
	r->a = r->e.a_gm;
	r->b = r->e.b_gm;
}

/* The words of a row with a ratio, once the family has been judged. */
static void row_verdict(struct verdict_row *r, bool significant, bool paired)
{
	enum verdict v = stats_verdict_of(&r->e, significant, MIN_GAIN);

	if (!r->judged) {
		snprintf(r->word, sizeof(r->word), "not judged (the primary showed no difference)");
		return;
	}
	if (r->e.exact && r->e.ratio == 1)
		snprintf(r->word, sizeof(r->word), "no difference (no spread: every run the same)");
	else
		snprintf(r->word, sizeof(r->word), "%s%s", figure_word(&figures[r->f], v),
			 r->e.exact ? " (no spread: every run the same)" : "");
	if (r->primary && v == VERDICT_SAME && paired && !r->e.exact &&
	    fabs(r->e.ratio - 1) >= MIN_GAIN)
		r->needed = stats_runs_needed(&r->e, LEVEL, STATS_POWER, MAX_RUNS);
}

int compare_rows(struct side *a, struct side *b, bool paired, struct verdict_row *rows,
		 struct verdict_plan *plan)
{
	struct values v = {.ma = xmalloc(4 * MAX_RUNS * sizeof(double))};
	double p[NFIGURES], padj[NFIGURES];
	bool sig[NFIGURES];
	int nrows = 0, idx[NFIGURES], m = 0, prim = -1;

	v.mb = v.ma + MAX_RUNS;
	v.va = v.mb + MAX_RUNS;
	v.vb = v.va + MAX_RUNS;
	plan->primary_row = -1;
	for (int f = 0; f < nfigures; f++) {
		if (!a->n || !b->n)
			break;
		row_stats(a, b, paired, f, &v, &rows[nrows]);
		if (!v.nma || !v.nmb)
			continue; /* a figure this workload does not have */
		rows[nrows].primary = f == plan->primary_fig;
		if (rows[nrows].primary)
			plan->primary_row = nrows;
		if (rows[nrows].ratio_ok) {
			prim = rows[nrows].primary ? m : prim;
			p[m] = rows[nrows].e.p;
			idx[m++] = nrows;
		}
		nrows++;
	}
	free(v.ma);
	plan->gate = stats_figure_family(p, m, prim, STATS_ALPHA, padj, sig);
	plan->family = m - (prim >= 0);
	for (int k = 0; k < m; k++) {
		struct verdict_row *r = &rows[idx[k]];

		r->p_adj = padj[k];
		r->judged = r->primary || plan->gate;
		row_verdict(r, sig[k], paired);
	}
	return nrows;
}
