/* json_budget.h: cJSON's allocations counted against a budget (cJSON_InitHooks), for a
 * document read from a file anyone may have written (result_file.c). A tree takes 64 bytes a
 * value and malloc's own 16 beside it, whatever the value's text: 2 bytes of "0," in an array
 * become 80 in memory, so the text's size alone bounds nothing. Past its budget an allocation
 * fails and the parse with it, which is then told apart from text that is not JSON, as is a
 * malloc the system refused (ulimit -v). */
#ifndef SB_JSON_BUDGET_H
#define SB_JSON_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

struct json_budget {
	size_t budget;	/* bytes cJSON may hold at once (malloc's usable size and header) */
	size_t used;	/* bytes it holds now, of what it took since json_budget_begin */
	size_t peak;
	bool over;	/* an allocation was refused: it would have passed the budget */
	bool refused;	/* malloc returned NULL within the budget */
};

/* The least memory a parse of txt (n bytes) takes: a node (sizeof(cJSON)) for each value,
 * counted by the commas between them outside strings (0 where txt is no array or object).
 * One pass, nothing allocated: a text whose least is past a budget is refused unparsed. */
size_t json_budget_least(const char *txt, size_t n);
/* Count cJSON's allocations against b from now on. The hooks are the whole process's: no other
 * thread may use cJSON until json_budget_end (report and compare read their files first). */
void json_budget_begin(struct json_budget *b, size_t budget);
/* cJSON allocates with malloc again; what was counted is freed as any other memory. */
void json_budget_end(void);

#endif
