/* prof_report.c: a profile as the report shows it: modes, syscalls and kernel functions
 * (JSON), and the folded stacks for flame graphs. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "profile/prof.h"
#include "profile/prof_priv.h"

/* With a software clock, time spent with interrupts off is billed to the instruction that
 * turns them back on: these symbols collect it. */
static bool is_irq_enable(const char *n)
{
	return strstr(n, "irq_enable") || strstr(n, "irqrestore") || strstr(n, "local_bh_enable") ||
	       strstr(n, "restore_fl");
}

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0;
}

static int cmp_sys_desc(const void *a, const void *b, void *side)
{
	int s = *(int *)side;
	uint32_t x = ((const struct sys_count *)a)->n[s], y = ((const struct sys_count *)b)->n[s];

	return x < y ? 1 : x > y ? -1 : 0;
}

static cJSON *syscalls_json(const struct prof *p, int side)
{
	struct sys_count sorted[MAX_SYSCALLS];
	uint64_t total = 0;
	cJSON *arr = cJSON_CreateArray();

	memcpy(sorted, p->sys, (size_t)p->nsys * sizeof(*sorted));
	qsort_r(sorted, (size_t)p->nsys, sizeof(*sorted), cmp_sys_desc, &side);
	for (int m = 0; m < 3; m++)
		total += p->mode[side][m];
	for (int i = 0; i < p->nsys && sorted[i].n[side]; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", sorted[i].name);
		cJSON_AddNumberToObject(e, "samples", sorted[i].n[side]);
		cJSON_AddNumberToObject(e, "pct", pct(sorted[i].n[side], total));
		cJSON_AddItemToArray(arr, e);
	}
	return arr;
}

static uint64_t func_total(const struct prof *p, int i)
{
	return (uint64_t)p->func[i][PS_CLIENT] + p->func[i][PS_SERVER] + p->func[i][PS_OTHER];
}

static cJSON *functions_json(const struct prof *p, int top, uint64_t busy, cJSON **irq)
{
	int n = ksyms_count(p->k) + 1, *best = xcalloc((size_t)top, sizeof(int)), nbest = 0;
	uint64_t irq_total = 0;
	cJSON *arr = cJSON_CreateArray(), *irq_syms = cJSON_CreateArray();

	/* Top-N selection by insertion: N is small. */
	for (int i = 0; i < n; i++) {
		uint64_t t = func_total(p, i);

		if (!t)
			continue;
		if (i < n - 1 && is_irq_enable(ksyms_name(p->k, i))) {
			irq_total += t;
			cJSON *e = cJSON_CreateObject();

			cJSON_AddStringToObject(e, "name", ksyms_name(p->k, i));
			cJSON_AddNumberToObject(e, "pct", pct(t, busy));
			cJSON_AddItemToArray(irq_syms, e);
		}
		int j = nbest < top ? nbest++ : top;

		if (j == top && t <= func_total(p, best[top - 1]))
			continue;
		if (j == top)
			j = top - 1;
		for (; j > 0 && func_total(p, best[j - 1]) < t; j--)
			best[j] = best[j - 1];
		best[j] = i;
	}
	for (int r = 0; r < nbest; r++) {
		int i = best[r];
		const char *name = i == n - 1 ? "[unknown kernel]" : ksyms_name(p->k, i);
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", name);
		cJSON_AddNumberToObject(e, "pct", pct(func_total(p, i), busy));
		cJSON_AddNumberToObject(e, "pct_of_all", pct(func_total(p, i), p->samples));
		cJSON_AddNumberToObject(e, "client", pct(p->func[i][PS_CLIENT], busy));
		cJSON_AddNumberToObject(e, "server", pct(p->func[i][PS_SERVER], busy));
		cJSON_AddNumberToObject(e, "other", pct(p->func[i][PS_OTHER], busy));
		cJSON_AddBoolToObject(e, "irq_enable", is_irq_enable(name));
		cJSON_AddItemToArray(arr, e);
	}
	*irq = cJSON_CreateObject();
	cJSON_AddNumberToObject(*irq, "pct", pct(irq_total, busy));
	cJSON_AddItemToObject(*irq, "symbols", irq_syms);
	cJSON_AddStringToObject(*irq, "note",
				"with a software clock, time spent with interrupts off is billed to the "
				"instruction that turns them back on: these symbols stand for that "
				"time (mostly around the syscall boundary), not for their own work");
	free(best);
	return arr;
}

static const char *const side_names[] = {"client", "server", "other", "idle"};

/* One stack as a folded line's frames: "side;outer;...;leaf" (no count). */
static void fold_print(const struct prof *p, const struct fold *e, FILE *f)
{
	fputs(side_names[e->side], f);
	if (e->user)
		fputs(e->side == PS_CLIENT || e->side == PS_SERVER ? ";[user] sockbench" : ";[user]", f);
	for (int d = 0; d < e->depth; d++)
		fprintf(f, ";%s", ksyms_name(p->k, e->frames[d]));
}

int prof_write_folded(const struct prof *p, FILE *f)
{
	for (int i = 0; p->folds && i < FOLD_SLOTS; i++) {
		const struct fold *e = &p->folds[i];

		if (!e->count)
			continue;
		fold_print(p, e, f);
		fprintf(f, " %u\n", e->count);
	}
	return ferror(f) ? -EIO : 0;
}

static int cmp_fold_desc(const void *a, const void *b)
{
	uint32_t x = (*(const struct fold *const *)a)->count, y = (*(const struct fold *const *)b)->count;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The most folded stacks prof_json's "stacks" holds. */
#define PROF_JSON_STACKS 1500

/* The folded stacks as JSON, most samples first: [{stack: "side;outer;...;leaf", samples}],
 * at most max of them; left_out gets the samples of the rest (and of the overflow). */
static cJSON *prof_stacks_json(const struct prof *p, int max, uint64_t *left_out)
{
	cJSON *arr = cJSON_CreateArray();
	const struct fold **all;
	int n = 0;

	*left_out = p->fold_overflow;
	if (!p->folds)
		return arr;
	all = xmalloc(FOLD_SLOTS * sizeof(*all));
	for (int i = 0; i < FOLD_SLOTS; i++)
		if (p->folds[i].count)
			all[n++] = &p->folds[i];
	qsort(all, (size_t)n, sizeof(*all), cmp_fold_desc);
	for (int i = 0; i < n; i++) {
		char *line = NULL;
		size_t len = 0;
		FILE *m;

		if (i >= max) {
			*left_out += all[i]->count;
			continue;
		}
		if (!(m = open_memstream(&line, &len)))
			die("out of memory");
		fold_print(p, all[i], m);
		fclose(m);
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "stack", line);
		cJSON_AddNumberToObject(e, "samples", all[i]->count);
		cJSON_AddItemToArray(arr, e);
		free(line);
	}
	free(all);
	return arr;
}

cJSON *prof_json(const struct prof *p, int top)
{
	cJSON *j = cJSON_CreateObject(), *modes = cJSON_CreateObject(), *sys = cJSON_CreateObject();
	uint64_t busy = p->samples - p->mode[PS_IDLE][0] - p->mode[PS_IDLE][1] - p->mode[PS_IDLE][2];
	cJSON *irq;

	cJSON_AddStringToObject(j, "event", p->event);
	cJSON_AddNumberToObject(j, "hz", p->hz);
	cJSON_AddNumberToObject(j, "samples", (double)p->samples);
	cJSON_AddNumberToObject(j, "lost", (double)p->lost);
	cJSON_AddNumberToObject(j, "folded_overflow", (double)p->fold_overflow);
	cJSON_AddBoolToObject(j, "server_profiled", p->server != 0);
	/* Which processes and which seconds, for a cross-check with another profiler. */
	cJSON *pids = cJSON_AddObjectToObject(j, "pids"), *cl = cJSON_AddArrayToObject(pids, "client");

	for (int i = 0; i < p->nclients; i++)
		cJSON_AddItemToArray(cl, cJSON_CreateNumber(p->clients[i]));
	if (p->server)
		cJSON_AddNumberToObject(pids, "server", p->server);
	else
		cJSON_AddNullToObject(pids, "server"); /* runs elsewhere: not profiled */
	if (p->t_off > p->t_on) {
		cJSON *w = cJSON_AddArrayToObject(j, "window_monotonic_s");

		cJSON_AddItemToArray(w, cJSON_CreateNumber((double)p->t_on / 1e9));
		cJSON_AddItemToArray(w, cJSON_CreateNumber((double)p->t_off / 1e9));
	}
	cJSON_AddNumberToObject(modes, "client_user", pct(p->mode[PS_CLIENT][0], p->samples));
	cJSON_AddNumberToObject(modes, "client_kernel",
				pct(p->mode[PS_CLIENT][1] + p->mode[PS_CLIENT][2], p->samples));
	cJSON_AddNumberToObject(modes, "server_user", pct(p->mode[PS_SERVER][0], p->samples));
	cJSON_AddNumberToObject(modes, "server_kernel",
				pct(p->mode[PS_SERVER][1] + p->mode[PS_SERVER][2], p->samples));
	cJSON_AddNumberToObject(modes, "softirq_and_other",
				pct(p->mode[PS_OTHER][0] + p->mode[PS_OTHER][1] + p->mode[PS_OTHER][2],
				    p->samples));
	cJSON_AddNumberToObject(modes, "idle", pct(p->samples - busy, p->samples));
	cJSON_AddNumberToObject(modes, "softirq_in_client",
				pct(p->mode[PS_CLIENT][2], p->samples));
	cJSON_AddNumberToObject(modes, "softirq_in_server",
				pct(p->mode[PS_SERVER][2], p->samples));
	cJSON_AddItemToObject(j, "modes", modes);
	cJSON_AddItemToObject(sys, "client", syscalls_json(p, PS_CLIENT));
	cJSON_AddItemToObject(sys, "server", syscalls_json(p, PS_SERVER));
	cJSON_AddItemToObject(j, "syscalls", sys);
	cJSON_AddItemToObject(j, "functions", functions_json(p, top, busy, &irq));
	cJSON_AddItemToObject(j, "irq_enable", irq);
	if (p->folds) {
		uint64_t left;

		cJSON_AddItemToObject(j, "stacks", prof_stacks_json(p, PROF_JSON_STACKS, &left));
		cJSON_AddNumberToObject(j, "stacks_left_out", (double)left);
	}
	return j;
}
