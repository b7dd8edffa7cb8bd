/* opts_json.c: options as a JSON object (the effective config of a result, a SETUP's config)
 * and back, with the command line's checks. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/opts_priv.h"

/* A list option's lines as an array of strings ([] when none). */
static cJSON *list_json(const char *s)
{
	cJSON *a = cJSON_CreateArray();
	char item[4096];

	while (s && *s) {
		size_t n = strcspn(s, "\n");

		snprintf(item, sizeof(item), "%.*s", (int)n, s);
		cJSON_AddItemToArray(a, cJSON_CreateString(item));
		s += n + (s[n] == '\n');
	}
	return a;
}

struct cJSON *opts_to_json(const struct opt_def *defs, const struct opts *o)
{
	cJSON *obj = cJSON_CreateObject();

	for (; defs->name; defs++) {
		const void *p = cfield(o, defs);

		switch (defs->type) {
		case OPT_INT:
			cJSON_AddNumberToObject(obj, defs->field, (double)*(const long *)p);
			break;
		case OPT_DBL:
			cJSON_AddNumberToObject(obj, defs->field, *(const double *)p);
			break;
		case OPT_BOOL:
			cJSON_AddBoolToObject(obj, defs->field, *(const bool *)p);
			break;
		case OPT_U64:
			cJSON_AddNumberToObject(obj, defs->field, (double)*(const uint64_t *)p);
			break;
		case OPT_ENUM:
			cJSON_AddStringToObject(obj, defs->field, opts_word(defs->id, *(const int *)p));
			break;
		case OPT_STR:
			if (defs->max > 0) /* a list: an array of its lines */
				cJSON_AddItemToObject(obj, defs->field, list_json(*(char *const *)p));
			else if (*(char *const *)p)
				cJSON_AddStringToObject(obj, defs->field, *(char *const *)p);
			else
				cJSON_AddNullToObject(obj, defs->field);
			break;
		}
	}
	return obj;
}


/* One JSON member into its option, checked as on the command line. */
static int apply_json(const struct opt_def *d, const cJSON *it, struct opts *o, char *err,
		      size_t errlen)
{
	char text[64];

	if (d->type == OPT_BOOL) {
		if (!cJSON_IsBool(it))
			goto bad_type;
		*(bool *)field(o, d) = cJSON_IsTrue(it);
		return 0;
	}
	if (d->type == OPT_STR && d->max > 0 && cJSON_IsArray(it)) { /* a list */
		const cJSON *e;
		int ret = 0;

		free(*(char **)field(o, d));
		*(char **)field(o, d) = NULL;
		cJSON_ArrayForEach(e, it) {
			if (!cJSON_IsString(e))
				goto bad_type;
			if (!ret)
				ret = opts_set_value(d, e->valuestring, o, err, errlen);
		}
		return ret;
	}
	if (d->type == OPT_STR || d->type == OPT_ENUM) {
		if (cJSON_IsNull(it) && d->type == OPT_STR) {
			free(*(char **)field(o, d));
			*(char **)field(o, d) = NULL;
			return 0;
		}
		if (!cJSON_IsString(it))
			goto bad_type;
		return opts_set_value(d, it->valuestring, o, err, errlen);
	}
	if (!cJSON_IsNumber(it))
		goto bad_type;
	if (d->type == OPT_INT && it->valuedouble != floor(it->valuedouble))
		goto bad_type;
	snprintf(text, sizeof(text), d->type == OPT_INT ? "%.0f" : "%.17g", it->valuedouble);
	if (strpbrk(text, "eE")) /* the parser takes decimal digits only (opts_units.c) */
		snprintf(text, sizeof(text), "%.20f", it->valuedouble);
	return opts_set_value(d, text, o, err, errlen);
bad_type:
	snprintf(err, errlen, "config key '%s' has the wrong type", d->field);
	return -EINVAL;
}

int opts_from_json(const struct opt_def *table, const struct opt_override *ov,
		   const struct cJSON *obj, struct opts *o, char *err, size_t errlen)
{
	struct opt_def *defs = opts_effective(table, ov);
	const cJSON *it;
	int ret = 0;

	if (!cJSON_IsObject(obj)) {
		snprintf(err, errlen, "config is not a JSON object");
		free(defs);
		return -EINVAL;
	}
	cJSON_ArrayForEach(it, obj)
	{
		const struct opt_def *d = opts_find_field(defs, it->string);

		if (!d) {
			snprintf(err, errlen, "unknown config key '%s'", it->string);
			ret = -EINVAL;
			break;
		}
		ret = apply_json(d, it, o, err, errlen);
		if (ret)
			break;
		o->set[d->id] = true;
	}
	free(defs);
	return ret;
}
