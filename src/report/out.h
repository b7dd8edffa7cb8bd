/* out.h: the result of a run and the only code that prints it (table or JSON).
 * It reads a result and the workload's table and prints; it runs nothing and opens no socket.
 */
#ifndef SB_OUT_H
#define SB_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "measure/result.h"
#include "workload/workload.h"

struct cJSON;

/* The units the window moved (the workload's count: transactions, megabytes, packets), and
 * per second. */
double result_units(const struct result *r);
double result_rate(const struct result *r);
/* The human report. */
void out_table(const struct result *r, FILE *f);
struct cJSON;

/* The versioned JSON document (docs/json.md). */
void out_json(const struct result *r, FILE *f);
/* The same document as a cJSON tree (caller frees), and printing one. */
struct cJSON *out_result_json(const struct result *r);
void out_print_json(struct cJSON *j, FILE *f);

/* The noise check before a run: each finding of measure/noise.h as a warning on f (what, what
 * it does, the fix); nothing when the machine looks quiet. Only where f is a terminal (as the
 * progress line), or with SOCKBENCH_NOISE_CHECK=1 in the environment: scripts read stderr.
 * Returns the number of findings. */
int out_noise_warnings(FILE *f);

#endif
