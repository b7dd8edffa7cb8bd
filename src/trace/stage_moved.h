/* stage_moved.h: which stage of a round trip moved between two sets of traced runs (compare's
 * A and B with --trace on both): per direction and stage, the median over each side's runs of
 * the stage's p50, and B's less A's, largest changes first. Descriptive: medians of the runs
 * taken, no interval (the round trip's own verdict is compare's). Reads result documents. */
#ifndef SB_STAGE_MOVED_H
#define SB_STAGE_MOVED_H

struct cJSON;
struct stage_moved;

/* From result documents of A's and B's runs; NULL unless each side has a traced run. */
struct stage_moved *stage_moved_of(struct cJSON *const *a, int na, struct cJSON *const *b, int nb);
/* The changes, largest first, with the method in a line. */
void stage_moved_print(const struct stage_moved *s);
/* [{direction, stage, a_p50_us, b_p50_us, change_us, runs_a, runs_b}], largest change first */
struct cJSON *stage_moved_json(const struct stage_moved *s);
void stage_moved_free(struct stage_moved *s);

#endif
