/* figure_table.c: the table of figures, made from figure_table.h's list. */
#include "base/figure_table.h"

#include <stddef.h>
#include <string.h>

#define HIGHER true
#define LOWER false

const struct figure_def figures[NFIGURES] = {
#define FIGURE_DEF(id, key, label, path, alt, unit, better, shows)                                \
	[FIG_##id] = {key, label, path, alt, unit, better, shows},
	FIGURE_LIST(FIGURE_DEF)
#undef FIGURE_DEF
};
const int nfigures = NFIGURES;

static bool is(const char *s, const char *name, size_t n)
{
	return s && strlen(s) == n && !strncmp(s, name, n);
}

int figure_named(const char *name, size_t n)
{
	for (int f = 0; f < NFIGURES; f++)
		if (is(figures[f].key, name, n) || is(figures[f].path, name, n) ||
		    is(figures[f].alt, name, n))
			return f;
	return -1;
}
