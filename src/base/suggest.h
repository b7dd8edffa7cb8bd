/* suggest.h: "did you mean": the nearest word by edit distance. Memory only. */
#ifndef SB_SUGGEST_H
#define SB_SUGGEST_H

#include <stddef.h>

/* The edit distance of a and b: insertions, deletions, substitutions and swaps of two
 * neighbours each count 1 (optimal string alignment). Words past 63 bytes: a large number. */
int suggest_distance(const char *a, const char *b);
/* Of the n words in cands (NULLs skipped), the nearest to word if it is near enough to be a
 * typo (distance 1, or 2 for words of 5 bytes or more, and less than half the word), or NULL. */
const char *suggest_nearest(const char *word, const char *const *cands, size_t n);

#endif
