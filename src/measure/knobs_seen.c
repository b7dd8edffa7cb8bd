/* knobs_seen.c: see knobs_seen.h. */
#include "measure/knobs_seen.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <string.h>

void knobs_seen_merge(struct knobs_seen *a, const struct knobs_seen *b)
{
	if (!a->seen && b->seen)
		*a = *b;
}

cJSON *knobs_seen_to_json(const struct knobs_seen *k)
{
	cJSON *j;

	if (!k->seen)
		return cJSON_CreateNull();
	j = cJSON_CreateObject();
	cJSON_AddItemToObject(j, "cc", k->tcp ? cJSON_CreateString(k->cc) : cJSON_CreateNull());
	cJSON_AddItemToObject(j, "mss", k->tcp ? cJSON_CreateNumber(k->mss) : cJSON_CreateNull());
	cJSON_AddNumberToObject(j, "tos", k->tos);
	cJSON_AddItemToObject(j, "local", *k->local ? cJSON_CreateString(k->local)
						    : cJSON_CreateNull());
	cJSON_AddItemToObject(j, "device", *k->dev ? cJSON_CreateString(k->dev) : cJSON_CreateNull());
	return j;
}

/* A string member into buf (absent or null: ""); false when it is something else or too long. */
static bool take_text(const cJSON *j, const char *key, char *buf, size_t cap)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(j, key);

	*buf = 0;
	if (!it || cJSON_IsNull(it))
		return true;
	if (!cJSON_IsString(it) || strlen(it->valuestring) >= cap)
		return false;
	strcpy(buf, it->valuestring);
	return true;
}

static bool take_int(const cJSON *j, const char *key, int *v)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(j, key);

	*v = -1;
	if (!it || cJSON_IsNull(it))
		return true;
	if (!cJSON_IsNumber(it) || it->valuedouble < -1 || it->valuedouble > 1 << 20)
		return false;
	*v = (int)it->valuedouble;
	return true;
}

int knobs_seen_from_json(const cJSON *j, struct knobs_seen *k)
{
	memset(k, 0, sizeof(*k));
	if (!j || cJSON_IsNull(j))
		return 0;
	if (!cJSON_IsObject(j) || !take_text(j, "cc", k->cc, sizeof(k->cc)) ||
	    !take_int(j, "mss", &k->mss) || !take_int(j, "tos", &k->tos) ||
	    !take_text(j, "local", k->local, sizeof(k->local)) ||
	    !take_text(j, "device", k->dev, sizeof(k->dev)))
		return -EINVAL;
	k->tcp = *k->cc != 0;
	k->seen = true;
	return 0;
}

void knobs_seen_config(cJSON *config, const struct knobs_seen *client)
{
	if (!client->seen)
		return;
	if (client->tcp && cJSON_HasObjectItem(config, "cc"))
		cJSON_ReplaceItemInObjectCaseSensitive(config, "cc", cJSON_CreateString(client->cc));
	if (cJSON_HasObjectItem(config, "tos"))
		cJSON_ReplaceItemInObjectCaseSensitive(config, "tos", cJSON_CreateNumber(client->tos));
}
