/* safe_json.c: see safe_json.h. */
#include "base/safe_json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <string.h>

#include "base/safe_text.h"

bool safe_json_string(char **s)
{
	if (!*s || !safe_text_needed(*s))
		return true;
	size_t cap = 4 * strlen(*s) + 1;
	char *t = cJSON_malloc(cap), *c;

	if (!t)
		return false;
	safe_text(t, cap, *s);
	c = cJSON_malloc(strlen(t) + 1);
	if (c)
		strcpy(c, t);
	cJSON_free(t);
	if (!c)
		return false;
	cJSON_free(*s);
	*s = c;
	return true;
}

/* Recursive: a parsed document is at most CJSON_NESTING_LIMIT (1000) deep. */
int safe_json_tree(cJSON *doc)
{
	if (!doc)
		return 0;
	/* A constant key or a referenced string is not the item's own to replace. */
	if (!(doc->type & cJSON_StringIsConst) && !safe_json_string(&doc->string))
		return -ENOMEM;
	if (cJSON_IsString(doc) && !(doc->type & cJSON_IsReference) &&
	    !safe_json_string(&doc->valuestring))
		return -ENOMEM;
	for (cJSON *c = doc->child; c; c = c->next)
		if (safe_json_tree(c))
			return -ENOMEM;
	return 0;
}
