/* json_index.c: see json_index.h. Open addressing at most half full. */
#include "base/json_index.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void json_index_build(struct json_index *x, const cJSON *o)
{
	size_t n = 0, cap = 16;
	const cJSON *it, *first = cJSON_IsObject(o) ? o->child : NULL;

	for (it = first; it; it = it->next)
		n++;
	while (cap < 2 * n)
		cap *= 2;
	x->slot = xcalloc(cap, sizeof(*x->slot));
	x->mask = cap - 1;
	for (it = first; it; it = it->next) {
		if (!it->string)
			continue;
		size_t i = (size_t)hash_str(it->string, strlen(it->string)) & x->mask;

		while (x->slot[i] && strcmp(x->slot[i]->string, it->string))
			i = (i + 1) & x->mask;
		if (!x->slot[i])
			x->slot[i] = it;
	}
}

const cJSON *json_index_find(const struct json_index *x, const char *key)
{
	for (size_t i = (size_t)hash_str(key, strlen(key)) & x->mask; x->slot[i];
	     i = (i + 1) & x->mask)
		if (!strcmp(x->slot[i]->string, key))
			return x->slot[i];
	return NULL;
}

void json_index_free(struct json_index *x)
{
	free(x->slot);
	x->slot = NULL;
}
