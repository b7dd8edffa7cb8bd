/* figures.h: every figure a result can be compared on, declared once: its key (summaries,
 * CSV, compare's rows), its label, where it stands in a result document, and whether higher is
 * better. --runs, compare, sweep (table, CSV, plot) and explore all read figures through this
 * table and nothing else. */
#ifndef SB_FIGURES_H
#define SB_FIGURES_H

#include <stdbool.h>
#include <stddef.h>

struct cJSON;
struct workload;

/* A figure of a result, read from its JSON document by path ("sides.client.sys_s"). */
enum figure_id {
	FIG_RATE,
	FIG_GBIT,
	FIG_PACKETS_SENT,
	FIG_LOSS,
	FIG_P50,
	FIG_P90,
	FIG_P99,
	FIG_P999,
	FIG_P9999,
	FIG_CONNECT_P50,
	FIG_CLIENT_CPU,
	FIG_SERVER_CPU,
	FIG_CLIENT_USER_US,
	FIG_CLIENT_SYS_US,
	FIG_SERVER_USER_US,
	FIG_SERVER_SYS_US,
	FIG_CLIENT_USER_S,
	FIG_CLIENT_SYS_S,
	FIG_SERVER_USER_S,
	FIG_SERVER_SYS_S,
	FIG_CLIENT_SYSCALLS,
	FIG_SERVER_SYSCALLS,
	FIG_RETRANS,
	FIG_CLIENT_VCSW,
	FIG_SERVER_VCSW,
	FIG_CLIENT_IVCSW,
	FIG_SERVER_IVCSW,
	FIG_SOFTIRQ_INLINE,
	FIG_SOFTIRQ_KSOFTIRQD,
	FIG_CLIENT_MEM_PER_FLOW,
	FIG_SERVER_MEM_PER_FLOW,
	NFIGURES,
};

struct figure_def {
	const char *key;   /* its name in summaries and CSV */
	const char *label; /* for tables; a %s stands for the workload's unit */
	const char *path;  /* in the result document */
	const char *alt;   /* where documents of older versions had it, or NULL */
	bool higher_better;
};

extern const struct figure_def figures[NFIGURES];
extern const int nfigures;

/* The key of figure f in compare's and sweep's output: the rate is "transactions_per_s" for
 * the workloads that count transactions (as it always was), "rate" for the others. */
const char *figure_key(int f, const struct workload *wl);
/* The label of figure f for a workload ("transactions/s", "megabytes/s"). */
const char *figure_label(int f, const struct workload *wl, char *buf, size_t len);
/* Figure f of a result document, or NAN. */
double figure_of(const struct cJSON *doc, int f);
/* The value at a dotted path of a JSON document, or NAN when absent or not a number. */
double json_path(const struct cJSON *doc, const char *path);
/* Every figure of one result document into out[nfigures] (NAN where the workload has none). */
void figures_of(const struct cJSON *doc, double *out);
#endif
