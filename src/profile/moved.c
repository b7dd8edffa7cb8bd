/* moved.c: see moved.h. */
#include "profile/moved.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define MOVED_MAX 1024

struct moved {
	char name[112]; /* "client sendmsg" or a kernel function */
	bool syscall;
	double a, b;	/* sums over runs of CPU us per unit; means once divided */
};

#define MOVED_SLOTS (4 * MOVED_MAX) /* a power of 2 */

struct moved_set {
	struct moved m[MOVED_MAX];
	int n;
	int slot[MOVED_SLOTS]; /* 1 + the index in m of a name, by its hash (0: empty) */
};

/* A name's entry, found by a hash: a saved result may name any number of functions. */
static struct moved *moved_get(struct moved_set *s, const char *name, bool syscall)
{
	char key[sizeof(s->m[0].name)];

	snprintf(key, sizeof(key), "%s", name); /* as it is kept: names cut alike are one */
	size_t i = (size_t)hash_bytes(syscall, key, strlen(key)) & (MOVED_SLOTS - 1);

	for (; s->slot[i]; i = (i + 1) & (MOVED_SLOTS - 1)) {
		struct moved *m = &s->m[s->slot[i] - 1];

		if (m->syscall == syscall && !strcmp(m->name, key))
			return m;
	}
	if (s->n == MOVED_MAX)
		return NULL;
	struct moved *m = &s->m[s->n++];

	*m = (struct moved){.syscall = syscall};
	snprintf(m->name, sizeof(m->name), "%s", key);
	s->slot[i] = s->n;
	return m;
}

static double num(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Add one run's profile, as CPU us per unit, into A's or B's sums. False if it has none.
 * The samples give how a side's time divides; its total is the side's CPU per unit from
 * rusage (a sampling clock on a VM can miss stretches of a CPU: rusage does not). Samples of
 * neither side (softirq on an idle CPU) count at the sampling period. */
static bool moved_add(struct moved_set *s, const cJSON *doc, bool b)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(doc, "profile");
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(p, "syscalls"), *e;
	const cJSON *sides_j = cJSON_GetObjectItemCaseSensitive(doc, "sides");
	const cJSON *modes = cJSON_GetObjectItemCaseSensitive(p, "modes");
	double hz = num(p, "hz"), samples = num(p, "samples");
	double units = num(doc, "rate") * num(doc, "duration_s");
	double busy = samples * (100 - num(modes, "idle")) / 100, per[2] = {0, 0};
	static const char *const sides[] = {"client", "server"};

	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "available")) || !(hz > 0) ||
	    !(units > 0) || !(busy > 0))
		return false;
	for (int k = 0; k < 2; k++) { /* us per unit per sample of each side */
		double n = 0;

		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(sc, sides[k]))
			n += num(e, "samples");
		double cpu = num(cJSON_GetObjectItemCaseSensitive(sides_j, sides[k]), "cpu_us_per_unit");

		per[k] = n > 0 && cpu > 0 ? cpu / n : 0;
	}
	for (int k = 0; k < 2; k++)
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(sc, sides[k])) {
			char name[112];
			const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");

			if (!cJSON_IsString(nm))
				continue;
			snprintf(name, sizeof(name), "%s %s", sides[k], nm->valuestring);
			struct moved *m = moved_get(s, name, true);

			if (m)
				*(b ? &m->b : &m->a) += num(e, "samples") * per[k];
		}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(p, "functions")) {
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
		struct moved *m = cJSON_IsString(nm) ? moved_get(s, nm->valuestring, false) : NULL;

		if (m)
			*(b ? &m->b : &m->a) += busy / 100 *
				(num(e, "client") * per[0] + num(e, "server") * per[1] +
				 num(e, "other") * 1e6 / hz / units);
	}
	return true;
}

static int by_change(const void *x, const void *y)
{
	const struct moved *a = x, *b = y;
	double da = fabs(a->b - a->a), db = fabs(b->b - b->a);

	return (da < db) - (da > db);
}

struct moved_set *moved_of(cJSON *const *a, int na, cJSON *const *b, int nb)
{
	struct moved_set *s = xcalloc(1, sizeof(*s));
	bool ok = na && nb;

	for (int i = 0; ok && i < na; i++)
		ok = moved_add(s, a[i], false);
	for (int i = 0; ok && i < nb; i++)
		ok = moved_add(s, b[i], true);
	if (!ok) {
		free(s);
		return NULL;
	}
	for (int i = 0; i < s->n; i++) {
		s->m[i].a /= na;
		s->m[i].b /= nb;
	}
	qsort(s->m, (size_t)s->n, sizeof(s->m[0]), by_change);
	return s;
}

void moved_print(const struct moved_set *s, const char *unit, int show)
{
	for (int pass = 0; pass < 2; pass++) {
		int shown = 0;

		printf("\n  %-42s %10s %10s %10s\n",
		       pass ? "kernel function (self)" : "time in syscalls, per side", "A", "B", "B-A");
		for (int i = 0; i < s->n && shown < show; i++) {
			const struct moved *m = &s->m[i];

			if (m->syscall != !pass)
				continue;
			printf("  %-42.42s %10.3f %10.3f %+10.3f\n", m->name, m->a, m->b, m->b - m->a);
			shown++;
		}
		for (int k = 0; !pass && k < 2; k++) { /* each side in all */
			static const char *const side[] = {"client ", "server "};
			double a = 0, b = 0;

			for (int i = 0; i < s->n; i++)
				if (s->m[i].syscall && !strncmp(s->m[i].name, side[k], 7)) {
					a += s->m[i].a;
					b += s->m[i].b;
				}
			if (a > 0 || b > 0)
				printf("  %-42s %10.3f %10.3f %+10.3f\n", k ? "server, all of it" : "client, all of it",
				       a, b, b - a);
		}
	}
	printf("  (CPU us per %s, mean over runs: each side's CPU from rusage, divided as its "
	       "samples fell;\n   a function outside a run's --profile-top list counts 0 there)\n",
	       unit);
}

cJSON *moved_json(const struct moved_set *s)
{
	cJSON *j = cJSON_CreateObject(), *sc = cJSON_CreateArray(), *fn = cJSON_CreateArray();

	for (int i = 0; i < s->n; i++) {
		const struct moved *m = &s->m[i];
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", m->name);
		cJSON_AddNumberToObject(e, "a_us_per_unit", round(m->a * 1e4) / 1e4);
		cJSON_AddNumberToObject(e, "b_us_per_unit", round(m->b * 1e4) / 1e4);
		cJSON_AddNumberToObject(e, "change", round((m->b - m->a) * 1e4) / 1e4);
		cJSON_AddItemToArray(m->syscall ? sc : fn, e);
	}
	cJSON_AddItemToObject(j, "syscalls", sc);
	cJSON_AddItemToObject(j, "functions", fn);
	return j;
}

void moved_free(struct moved_set *s)
{
	free(s);
}
