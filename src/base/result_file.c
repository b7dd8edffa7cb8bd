/* result_file.c: see result_file.h. The walk is iterative (a stack as deep as the nesting
 * allowed), so no document can exhaust the C stack here. */
#include "base/result_file.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "base/figure_table.h"
#include "base/json_budget.h"
#include "base/safe_json.h"
#include "base/util.h"

enum range { R_ANY, R_NONNEG, R_FRACTION };

/* The ranges of the keys sockbench writes (docs/json.md) beyond the figures (each figure's key,
 * the last part of its path, is >= 0: base/figure_table.h); any other number need only be
 * finite and within RESULT_FILE_NUM_MAX. Signed figures (change, diff_pct) are not here. */
static const struct {
	const char *key;
	enum range r;
} ranges[] = {
	{"duration_s", R_NONNEG}, {"warmup_s", R_NONNEG}, {"window_s", R_NONNEG},
	{"errors", R_NONNEG}, {"samples", R_NONNEG}, {"hz", R_NONNEG}, {"mtu", R_NONNEG},
	{"step_s", R_NONNEG}, {"run_seconds", R_NONNEG}, {"runs", R_NONNEG},
	{"runs_asked", R_NONNEG}, {"runs_a", R_NONNEG}, {"runs_b", R_NONNEG},
	{"pairs", R_NONNEG}, {"stacks_left_out", R_NONNEG},
	{"ratio", R_NONNEG}, {"speedup", R_NONNEG}, {"a_us_per_unit", R_NONNEG},
	{"b_us_per_unit", R_NONNEG}, {"ci_confidence", R_FRACTION}, {"ci_level", R_FRACTION},
	{"family_confidence", R_FRACTION}, {"confidence", R_FRACTION}, {"p_value", R_FRACTION},
	{"pct", R_NONNEG}, {"steal_pct_in_window", R_NONNEG},
};

static const char *const range_text[] = {
	[R_ANY] = "a finite number", [R_NONNEG] = "a finite number >= 0",
	[R_FRACTION] = "a number from 0 to 1",
};

/* Every key with a range: those above and each figure's (its path's last part, and its older
 * path's), sorted by key for bsearch; made once. A key above keeps its range. */
static struct range_key {
	const char *key;
	enum range r;
} keys[ARRAY_SIZE(ranges) + 2 * NFIGURES];
static size_t nkeys;
static once_flag keys_once = ONCE_FLAG_INIT;

static int key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct range_key *)a)->key, ((const struct range_key *)b)->key);
}

static void key_add(const char *path, enum range r)
{
	const char *dot = path ? strrchr(path, '.') : NULL;

	if (!path)
		return;
	for (size_t i = 0; i < nkeys; i++)
		if (!strcmp(keys[i].key, dot ? dot + 1 : path))
			return;
	keys[nkeys++] = (struct range_key){dot ? dot + 1 : path, r};
}

static void keys_make(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(ranges); i++)
		key_add(ranges[i].key, ranges[i].r);
	for (int f = 0; f < nfigures; f++) {
		key_add(figures[f].path, R_NONNEG);
		key_add(figures[f].alt, R_NONNEG);
	}
	qsort(keys, nkeys, sizeof(keys[0]), key_cmp);
}

static enum range range_of(const char *key, const char *parent_key, int idx)
{
	struct range_key k = {key, R_ANY}, *at;

	/* A CDF point: [latency us >= 0, fraction 0..1]. */
	if (!key && parent_key && !strcmp(parent_key, "cdf"))
		return idx == 1 ? R_FRACTION : R_NONNEG;
	if (!key)
		return R_ANY;
	call_once(&keys_once, keys_make);
	at = bsearch(&k, keys, nkeys, sizeof(keys[0]), key_cmp);
	return at ? at->r : R_ANY;
}

static bool in_range(double v, enum range r)
{
	if (!isfinite(v) || fabs(v) > RESULT_FILE_NUM_MAX)
		return false;
	switch (r) {
	case R_NONNEG: return v >= 0;
	case R_FRACTION: return v >= 0 && v <= 1;
	default: return true;
	}
}

struct level {
	cJSON *it;	    /* the next member to look at */
	const char *key;    /* the key of the container (NULL: an array item or the root) */
	const char *pkey;   /* the nearest key above, for a CDF point inside "cdf" */
	size_t plen;	    /* the path's length up to the container */
	int idx;
};

/* Appends the member's name to the path: ".key", "key" at the top, or "[i]". */
static size_t path_add(char *path, size_t cap, size_t plen, const cJSON *m, int idx)
{
	int w = m->string ? snprintf(path + plen, cap - plen, "%s%.40s", plen ? "." : "", m->string)
			  : snprintf(path + plen, cap - plen, "[%d]", idx);

	return w < 0 || plen + (size_t)w >= cap ? cap - 1 : plen + (size_t)w;
}

int result_file_check(cJSON *doc, char *why, size_t len)
{
	struct level st[RESULT_FILE_DEPTH + 1];
	char path[256] = "";
	int depth = 0;

	if (!doc)
		return -EINVAL;
	if (cJSON_IsString(doc) && !safe_json_string(&doc->valuestring))
		return -ENOMEM;
	if (cJSON_IsNumber(doc) && !in_range(doc->valuedouble, R_ANY)) {
		snprintf(why, len, "the document is not %s", range_text[R_ANY]);
		return -EINVAL;
	}
	if (!cJSON_IsArray(doc) && !cJSON_IsObject(doc))
		return 0;
	st[depth++] = (struct level){.it = doc->child};
	while (depth) {
		struct level *l = &st[depth - 1];
		cJSON *m = l->it;

		if (!m) {
			depth--;
			continue;
		}
		l->it = m->next;
		int idx = l->idx++;

		if (m->string && !safe_json_string(&m->string))
			return -ENOMEM;
		size_t plen = path_add(path, sizeof(path), l->plen, m, idx);

		if (cJSON_IsString(m)) {
			if (!safe_json_string(&m->valuestring))
				return -ENOMEM;
		} else if (cJSON_IsNumber(m)) {
			enum range r = range_of(m->string, l->key ? l->key : l->pkey, idx);

			if (!in_range(m->valuedouble, r)) {
				snprintf(why, len, "%s is not %s", path, range_text[r]);
				return -EINVAL;
			}
		} else if ((cJSON_IsArray(m) || cJSON_IsObject(m)) && m->child) {
			if (depth == RESULT_FILE_DEPTH) {
				snprintf(why, len, "%s is nested deeper than %d levels", path,
					 RESULT_FILE_DEPTH);
				return -EINVAL;
			}
			st[depth++] = (struct level){.it = m->child, .key = m->string, .plen = plen,
						     .pkey = m->string ? m->string
								       : l->key ? l->key : l->pkey};
		}
	}
	return 0;
}

/* The most a file of n bytes may take parsed. */
static size_t mem_budget(size_t n)
{
	return RESULT_FILE_MEM_FACTOR * n + RESULT_FILE_MEM_FLOOR;
}

static double mib(size_t n)
{
	return ceil((double)n / (1 << 20));
}

/* Why reading a file of n bytes found no memory: past its budget (-E2BIG), or refused by the
 * system within it (-ENOMEM). */
static int no_memory(const struct json_budget *b, size_t n, char *why, size_t len)
{
	if (b->over) {
		snprintf(why, len, "it needs more than %.0f MiB (%d times its size), more than a "
			 "sockbench result of its size takes", mib(mem_budget(n)),
			 RESULT_FILE_MEM_FACTOR);
		return -E2BIG;
	}
	snprintf(why, len, "the system gave no more memory after %.0f MiB (a limit such as ulimit "
		 "-v?); reading it takes up to %.0f MiB (%d times its size)", mib(b->peak),
		 mib(mem_budget(n)), RESULT_FILE_MEM_FACTOR);
	return -ENOMEM;
}

int result_file_read(const char *path, cJSON **doc, char *why, size_t len)
{
	int e;
	char *txt = slurp(path, RESULT_FILE_MAX, &e);
	struct json_budget b;
	size_t n;

	*doc = NULL;
	if (e == -ENOMEM)
		snprintf(why, len, "the system gave no memory for its text (a limit such as ulimit "
			 "-v?)");
	if (!txt)
		return e;
	n = strlen(txt);
	if (json_budget_least(txt, n) > mem_budget(n)) { /* at once: no parse to the budget */
		free(txt);
		b = (struct json_budget){.over = true};
		return no_memory(&b, n, why, len);
	}
	json_budget_begin(&b, mem_budget(n));
	*doc = cJSON_ParseWithLength(txt, n);
	free(txt);
	e = *doc ? result_file_check(*doc, why, len) : -EBADMSG;
	json_budget_end();
	if (b.over || b.refused)
		e = no_memory(&b, n, why, len);
	if (e) {
		cJSON_Delete(*doc);
		*doc = NULL;
	}
	return e;
}
