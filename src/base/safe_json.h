/* safe_json.h: safe_text (safe_text.h) over a cJSON document: every key and string holding a
 * byte safe_text rewrites is replaced by its safe text. For what a peer sent (an agent's
 * RESULT), a file (result_file.c) or this host's names (the environment: a hostname, an
 * interface name) before any of it is printed: cJSON writes JSON with DEL and the C1 controls
 * (U+0080-U+009F) as they are, which some terminals obey. */
#ifndef SB_SAFE_JSON_H
#define SB_SAFE_JSON_H

#include <stdbool.h>

struct cJSON;

/* One cJSON string (a key or value, cJSON's to free) made safe in memory from cJSON_malloc (so
 * counted where json_budget.h counts). false: no memory for it (*s unchanged). */
bool safe_json_string(char **s);
/* doc and everything below it. 0, or -ENOMEM. */
int safe_json_tree(struct cJSON *doc);

#endif
