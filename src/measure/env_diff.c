/* env_diff.c: what differs between two environments (env.h), as compare prints it. The
 * environments may come from files anyone wrote: keys are found by a hash (base/json_index.h),
 * never by a scan, so any number of them takes linear time. */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_index.h"
#include "base/safe_text.h"
#include "measure/env.h"

static void leaf_text(const cJSON *v, char *out, size_t len)
{
	if (!v) {
		snprintf(out, len, "(none)");
	} else if (cJSON_IsString(v)) { /* a hostname, an interface name: maybe with controls */
		safe_text(out, len, v->valuestring);
	} else {
		char *t = cJSON_PrintUnformatted(v);

		snprintf(out, len, "%s", t ? t : "?");
		free(t);
	}
}

/* Two values that are not both objects alike; an array by its text (cJSON_Compare takes
 * quadratic time over an object inside one). */
static bool same_leaf(const cJSON *a, const cJSON *b)
{
	if (!cJSON_IsArray(a) || !cJSON_IsArray(b))
		return cJSON_Compare(a, b, true);
	char *ta = cJSON_PrintUnformatted(a), *tb = cJSON_PrintUnformatted(b);
	bool same = ta && tb && !strcmp(ta, tb);

	free(ta);
	free(tb);
	return same;
}

static int diff_at(const cJSON *a, const cJSON *b, const char *path,
		   void (*each)(const char *, const char *, const char *, void *), void *arg)
{
	char sub[512], ta[1024], tb[1024];
	const cJSON *it;
	int n = 0;

	bool oa = cJSON_IsObject(a), ob = cJSON_IsObject(b);

	/* Objects (or an object and nothing): leaf by leaf, in a's order, then b's own keys. */
	if ((oa || ob) && (oa || !a) && (ob || !b)) {
		struct json_index ka, kb;

		json_index_build(&ka, oa ? a : NULL);
		json_index_build(&kb, ob ? b : NULL);
		for (it = oa ? a->child : NULL; it; it = it->next) {
			snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "", it->string);
			n += diff_at(it, json_index_find(&kb, it->string ? it->string : ""), sub, each, arg);
		}
		for (it = ob ? b->child : NULL; it; it = it->next) {
			if (json_index_find(&ka, it->string ? it->string : ""))
				continue;
			snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "", it->string);
			n += diff_at(NULL, it, sub, each, arg);
		}
		json_index_free(&ka);
		json_index_free(&kb);
		return n;
	}
	if (a && b && same_leaf(a, b))
		return 0;
	leaf_text(a, ta, sizeof(ta));
	leaf_text(b, tb, sizeof(tb));
	each(path, ta, tb, arg);
	return 1;
}

int env_diff(const cJSON *a, const cJSON *b,
	     void (*each)(const char *path, const char *va, const char *vb, void *arg), void *arg)
{
	return diff_at(a, b, "", each, arg);
}
