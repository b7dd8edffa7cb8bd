/* json_index.h: a cJSON object's members found by key through a hash, for documents read from
 * files anyone may have written: cJSON_GetObjectItem scans, so looking up each key of one object
 * in another of n keys takes n^2 (300,000 keys: minutes). */
#ifndef SB_JSON_INDEX_H
#define SB_JSON_INDEX_H

#include <stddef.h>

struct cJSON;

struct json_index {
	const struct cJSON **slot;
	size_t mask;
};

/* Index o's members (o NULL or not an object: an empty index). Of equal keys the first is
 * kept, as cJSON_GetObjectItemCaseSensitive finds it. Free with json_index_free. */
void json_index_build(struct json_index *x, const struct cJSON *o);
/* The member named key, or NULL. */
const struct cJSON *json_index_find(const struct json_index *x, const char *key);
void json_index_free(struct json_index *x);

#endif
