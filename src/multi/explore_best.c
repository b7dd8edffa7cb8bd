/* explore_best.c: the search's current best: a strategy of each group kept, their flags
 * composed and their names, as the steps of explore_search.c change it. */
#include <stdio.h>
#include <string.h>

#include "multi/explore_priv.h"

/* The index in the current best of group's strategy, or -1. */
int explore_best_group(const struct search *s, const char *group)
{
	for (int i = 0; i < s->nstrategies; i++)
		if (!strcmp(s->groups[i], group))
			return i;
	return -1;
}

/* The current best's flags without its strategy at index skip (-1: none), then extra. */
void explore_best_flags(const struct search *s, int skip, const char *extra, char *out, size_t n)
{
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i <= s->nstrategies; i++) {
		const char *f = i < s->nstrategies ? s->kept_flags[i] : extra;

		if (i == skip || !f || !*f || len >= n)
			continue;
		len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " " : "", f);
	}
}

/* The current best's names, from its strategies. */
static void name_best(struct search *s)
{
	size_t n = 0;

	s->names[0] = '\0';
	for (int i = 0; i < s->nstrategies && n < sizeof(s->names); i++)
		n += (size_t)snprintf(s->names + n, sizeof(s->names) - n, "%s%s", i ? " + " : "",
				      s->kept_names[i]);
}

/* The current best gets strategy (flags, name) of group: in the place of that group's, or
 * added. */
void explore_best_take(struct search *s, const char *group, const char *flags, const char *name)
{
	int i = explore_best_group(s, group);

	if (i < 0)
		i = s->nstrategies++;
	s->groups[i] = group;
	s->kept_flags[i] = flags;
	s->kept_names[i] = name;
	s->last_changed = i;
	explore_best_flags(s, -1, NULL, s->flags, sizeof(s->flags));
	name_best(s);
}
