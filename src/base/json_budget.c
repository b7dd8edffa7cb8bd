/* json_budget.c: see json_budget.h. A counted block's size is malloc's own (malloc_usable_size,
 * plus its header), so a free counts off what its malloc counted. */
#include "base/json_budget.h"

#include <cjson/cJSON.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#define HEADER sizeof(size_t) /* glibc's chunk header beside each block */

static struct json_budget *cur;

static void *counted_malloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		cur->refused = true;
		return NULL;
	}
	size_t sz = malloc_usable_size(p) + HEADER;

	if (cur->used + sz > cur->budget) {
		free(p);
		cur->over = true;
		return NULL;
	}
	cur->used += sz;
	if (cur->used > cur->peak)
		cur->peak = cur->used;
	return p;
}

static void counted_free(void *p)
{
	size_t sz = p ? malloc_usable_size(p) + HEADER : 0;

	cur->used = sz < cur->used ? cur->used - sz : 0;
	free(p);
}

size_t json_budget_least(const char *txt, size_t n)
{
	size_t values = 1, i = strspn(txt, " \t\r\n");
	bool in_string = false;

	if (i >= n || (txt[i] != '[' && txt[i] != '{'))
		return 0; /* no array or object: commas are no values (text that is not JSON) */
	for (; i < n; i++) {
		if (in_string && txt[i] == '\\')
			i++; /* an escaped character, '"' or '\\' too */
		else if (txt[i] == '"')
			in_string = !in_string;
		else if (!in_string && txt[i] == ',')
			values++;
	}
	return values * sizeof(cJSON);
}

void json_budget_begin(struct json_budget *b, size_t budget)
{
	cJSON_Hooks h = {.malloc_fn = counted_malloc, .free_fn = counted_free};

	*b = (struct json_budget){.budget = budget};
	cur = b;
	cJSON_InitHooks(&h);
}

void json_budget_end(void)
{
	cJSON_InitHooks(NULL);
	cur = NULL;
}
