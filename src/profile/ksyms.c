/* ksyms.c: the kernel symbolizer: /proc/kallsyms's text symbols, sorted, looked up by
 * address. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "profile/prof.h"
#include "profile/prof_priv.h"

struct ksym {
	uint64_t addr;
	char *name;
};

struct ksyms {
	struct ksym *s;
	int n;
};

static int cmp_ksym(const void *a, const void *b)
{
	uint64_t x = ((const struct ksym *)a)->addr, y = ((const struct ksym *)b)->addr;

	return x < y ? -1 : x > y;
}

struct ksyms *ksyms_load(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
	struct ksyms *k;
	char line[512], name[256], type;
	unsigned long long addr;
	int cap = 1 << 16, nonzero = 0;

	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path ? path : "/proc/kallsyms", strerror(errno));
		return NULL;
	}
	k = xcalloc(1, sizeof(*k));
	k->s = xmalloc((size_t)cap * sizeof(*k->s));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue; /* text symbols only */
		nonzero += addr != 0;
		if (k->n == cap) {
			cap *= 2;
			k->s = realloc(k->s, (size_t)cap * sizeof(*k->s));
			if (!k->s)
				abort();
		}
		k->s[k->n++] = (struct ksym){.addr = addr, .name = xstrdup(name)};
	}
	fclose(f);
	if (!nonzero) {
		snprintf(err, errlen, "kernel symbol addresses are hidden: set "
			 "/proc/sys/kernel/kptr_restrict to 0 (or run as root with it at 1)");
		ksyms_free(k);
		return NULL;
	}
	qsort(k->s, (size_t)k->n, sizeof(*k->s), cmp_ksym);
	return k;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	for (int i = 0; i < k->n; i++)
		free(k->s[i].name);
	free(k->s);
	free(k);
}

int ksyms_find(const struct ksyms *k, uint64_t addr)
{
	int lo = 0, hi = k->n - 1, best = -1;

	if (!k->n || addr < k->s[0].addr)
		return -1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (k->s[mid].addr <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (best == k->n - 1 && addr - k->s[best].addr >= LAST_SYM_SPAN)
		return -1;
	return best;
}

const char *ksyms_name(const struct ksyms *k, int idx)
{
	return idx >= 0 && idx < k->n ? k->s[idx].name : "[unknown kernel]";
}

int ksyms_count(const struct ksyms *k)
{
	return k->n;
}

