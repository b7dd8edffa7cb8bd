/* figures.h: reading the figures of base/figure_table.h (each declared there once: its key,
 * label, path, unit, whether higher is better, the workloads that have it) from a result
 * document, and naming them for a workload. --runs, compare, sweep (table, CSV, plot) and
 * explore all read figures through these and nothing else. */
#ifndef SB_FIGURES_H
#define SB_FIGURES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/figure_table.h"

struct cJSON;
struct workload;

/* The one name of figure f (its key: "rate", "server_syscalls"): compare's rows and --primary,
 * sweep's columns, --runs' summary, --fields. */
const char *figure_key(int f);
/* The label of figure f for a workload ("transactions/s", "megabytes/s"). */
const char *figure_label(int f, const struct workload *wl, char *buf, size_t len);
/* The width of a table's label column for a workload's figures: its longest label, at least
 * min, so that a long one ("softirq in ksoftirqd us/connection") does not push its row's values
 * out from under the header. */
int figure_label_width(const struct workload *wl, int min);
/* Figure f of a result document, or NAN. */
double figure_of(const struct cJSON *doc, int f);
/* The value at a dotted path of a JSON document, or NAN when absent or not a number. */
double json_path(const struct cJSON *doc, const char *path);
/* Every figure of one result document into out[nfigures] (NAN where the workload has none). */
void figures_of(const struct cJSON *doc, double *out);
#endif
