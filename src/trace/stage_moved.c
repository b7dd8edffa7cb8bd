/* stage_moved.c: see stage_moved.h. */
#include "trace/stage_moved.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"

static const char *const dirs[] = {"request", "answer"};
static const char *const stages[] = {"send", "device", "softirq", "socket",
				     "wakeup", "receive", "user"};
#define NDIR 2
#define NSTAGE 7

struct moved_row {
	int dir, stage, na, nb;
	double a, b; /* medians of the runs' p50s, us */
};

struct stage_moved {
	struct moved_row rows[NDIR * NSTAGE];
	int n;
};

static int dcmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The median of the runs' p50 of one stage (NAN without one); *k: how many runs had it. */
static double median_p50(struct cJSON *const *docs, int n, int d, int s, int *k)
{
	double v[n > 0 ? n : 1];

	*k = 0;
	for (int i = 0; i < n; i++) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(docs[i], "trace");
		const cJSON *dj = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(t, "directions"), dirs[d]);
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(dj, stages[s]), "p50_us");

		if (cJSON_IsNumber(p) && isfinite(p->valuedouble))
			v[(*k)++] = p->valuedouble;
	}
	if (!*k)
		return NAN;
	qsort(v, (size_t)*k, sizeof(v[0]), dcmp);
	return *k % 2 ? v[*k / 2] : (v[*k / 2 - 1] + v[*k / 2]) / 2;
}

static int by_change(const void *x, const void *y)
{
	const struct moved_row *a = x, *b = y;

	return dcmp(&(double){fabs(b->b - b->a)}, &(double){fabs(a->b - a->a)});
}

struct stage_moved *stage_moved_of(struct cJSON *const *a, int na, struct cJSON *const *b, int nb)
{
	struct stage_moved *m = xcalloc(1, sizeof(*m));

	for (int d = 0; d < NDIR; d++)
		for (int s = 0; s < NSTAGE; s++) {
			struct moved_row r = {.dir = d, .stage = s};

			r.a = median_p50(a, na, d, s, &r.na);
			r.b = median_p50(b, nb, d, s, &r.nb);
			/* A stage one side never saw (no wake-up when spinning) counts 0 there. */
			if (!r.na && !r.nb)
				continue;
			r.a = r.na ? r.a : 0;
			r.b = r.nb ? r.b : 0;
			m->rows[m->n++] = r;
		}
	bool traced_a = false, traced_b = false;

	for (int i = 0; i < na; i++)
		traced_a |= cJSON_GetObjectItemCaseSensitive(a[i], "trace") != NULL;
	for (int i = 0; i < nb; i++)
		traced_b |= cJSON_GetObjectItemCaseSensitive(b[i], "trace") != NULL;
	if (!traced_a || !traced_b || !m->n) {
		free(m);
		return NULL;
	}
	qsort(m->rows, (size_t)m->n, sizeof(m->rows[0]), by_change);
	return m;
}

void stage_moved_print(const struct stage_moved *m)
{
	printf("\nwhere the wait moved (--trace: each stage's p50, the median over each side's runs; "
	       "descriptive, no interval):\n");
	printf("  %-22s %10s %10s %10s\n", "stage", "A us", "B us", "B - A");
	for (int i = 0; i < m->n && i < 8; i++) {
		const struct moved_row *r = &m->rows[i];
		char label[40];

		snprintf(label, sizeof(label), "%s %s", dirs[r->dir], stages[r->stage]);
		printf("  %-22s %10.1f %10.1f %+10.1f\n", label, r->a, r->b, r->b - r->a);
	}
	if (m->n) {
		const struct moved_row *r = &m->rows[0];

		printf("  the stage that moved most: %s %s (%+.1f us)\n", dirs[r->dir], stages[r->stage],
		       r->b - r->a);
	}
}

cJSON *stage_moved_json(const struct stage_moved *m)
{
	cJSON *arr = cJSON_CreateArray();

	for (int i = 0; i < m->n; i++) {
		const struct moved_row *r = &m->rows[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "direction", dirs[r->dir]);
		cJSON_AddStringToObject(o, "stage", stages[r->stage]);
		cJSON_AddNumberToObject(o, "a_p50_us", r->a);
		cJSON_AddNumberToObject(o, "b_p50_us", r->b);
		cJSON_AddNumberToObject(o, "change_us", r->b - r->a);
		cJSON_AddNumberToObject(o, "runs_a", r->na);
		cJSON_AddNumberToObject(o, "runs_b", r->nb);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

void stage_moved_free(struct stage_moved *m)
{
	free(m);
}
