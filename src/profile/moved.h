/* moved.h: where the time moved between two sets of profiled runs (compare A/B, explore's
 * strategies against the baseline): CPU microseconds per unit of work in each syscall of each
 * side and in each kernel function, largest changes first. Each run's side total is the
 * side's CPU per unit from rusage, divided as that side's samples fell.
 * It reads result documents and prints; it samples nothing itself.
 */
#ifndef SB_MOVED_H
#define SB_MOVED_H

struct cJSON;
struct moved_set;

/* Functions outside a run's --profile-top list count 0 there: profile this many. */
#define MOVED_PROFILE_TOP 512

/* From result documents of A's and B's runs; NULL unless every one holds a profile. */
struct moved_set *moved_of(struct cJSON *const *a, int na, struct cJSON *const *b, int nb);
/* The largest changes: up to show syscalls and show functions, with a line on the method. */
void moved_print(const struct moved_set *s, const char *unit, int show);
/* {syscalls: [{name, a_us_per_unit, b_us_per_unit, change}], functions: [...]} */
struct cJSON *moved_json(const struct moved_set *s);
void moved_free(struct moved_set *s);

#endif
