/* figure_table.c: the table of figures, made from figure_table.h's list. */
#include "base/figure_table.h"

#include <stddef.h>

#define HIGHER true
#define LOWER false

const struct figure_def figures[NFIGURES] = {
#define FIGURE_DEF(id, key, label, path, alt, unit, better, shows)                                \
	[FIG_##id] = {key, label, path, alt, unit, better, shows},
	FIGURE_LIST(FIGURE_DEF)
#undef FIGURE_DEF
};
const int nfigures = NFIGURES;
