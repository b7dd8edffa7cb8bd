/* safe_text.h: text read from a file (a result's hostname, a kernel function name, a config
 * value) made safe to print on a terminal: control characters (C0, DEL, C1 as UTF-8 C2 80..9F)
 * and bytes that are not UTF-8 become \xNN, so a file cannot move the cursor, erase lines or
 * retitle the terminal (safe_text.c). The one place that decides what a terminal or a log
 * may get: every string from a peer (an agent, a controller) or a file passes here first. */
#ifndef SB_SAFE_TEXT_H
#define SB_SAFE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Whether s holds anything safe_text_dup would change. */
bool safe_text_needed(const char *s);
/* s with every unsafe byte as \xNN (caller frees). */
char *safe_text_dup(const char *s);
/* The same into out (cap bytes, cut at a character), returning out. */
const char *safe_text(char *out, size_t cap, const char *s);
/* For a log line (the agent's): as safe_text, but newline, CR and tab as \n, \r, \t, so
 * what a peer sent can never start a line of its own. Into out (cap bytes), returning out. */
const char *safe_text_log(char *out, size_t cap, const char *s);
/* A value in a log line: as safe_text_log, in double quotes, " and \ written \" and \\, so
 * where the value ends is plain; cut inside, the closing quote is still there. */
const char *safe_text_quoted(char *out, size_t cap, const char *s);

#endif
