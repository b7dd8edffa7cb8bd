/* out_priv.h: what the report's writers share (out.c, json.c, table.c). Not for use outside
 * report/. */
#ifndef SB_OUT_PRIV_H
#define SB_OUT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "measure/result.h"

/* Round for printing: JSON readers get figures, not 17-digit noise (3 or 6 places). */
static inline double r3(double v)
{
	return __builtin_round(v * 1000.0) / 1000.0;
}

static inline double r6(double v)
{
	return __builtin_round(v * 1e6) / 1e6;
}

#define MAX_PAIRS 4 /* kernel counters a workload cross-checks */

/* The workload counts UDP datagrams (its /proc/net/snmp row is Udp). */
bool out_is_udp(const struct result *r);
/* The headline packet rate: the server's receive and send calls per second, or the client's
 * answers when the server did not report. */
double out_packets_per_s(const struct result *r);
/* The workload counts transactions (not bytes or packets of a stream). */
bool out_per_transaction(const struct result *r);

/* --clients-on: a client host's units over its own window (a stream's sending host: its
 * sends), and its kernel's counters paired with its own counts. */
double out_host_units(const struct result *r, const struct host_result *h);
int out_host_pairs(const struct result *r, const struct host_result *h, struct kernel_pair *p);
/* The pairs of the top-level check: this machine's kernel against what this machine's
 * sides counted (fanned out: this host's clients only, or none). */
int out_kernel_pairs(const struct result *r, struct kernel_pair *p);
/* The side this machine's kernel counted whose counts are not in the pairs, because it sent no
 * result ("client" or "server"; the kernel's count holds its traffic, ours does not), or NULL:
 * the pairs cannot be compared then. */
const char *out_pairs_missing(const struct result *r);
/* The short report's warnings, a line each ("  warning: ..."), which -v prints too: how many. */
int out_table_warnings(const struct result *r, FILE *f);

/* The run's title: "sockbench WL: description" (-i prints it above its interval lines). */
void out_run_title(const struct result *r, FILE *f);
/* The report's first lines: the title, a partial run's reason and the window's length. Where
 * -i printed the title above its lines on stdout, a blank line instead of it. */
void out_table_top(const struct result *r, FILE *f);
/* The headline of a run that counts transactions, the same in both reports:
 * "transactions/s   38,400  (38,463 in 1.002 s)". */
void out_rate_line(const struct result *r, FILE *f);
/* The workload's own headline rows (workload.h's headline hook), value under value. */
void out_headline_rows(const struct result *r, FILE *f);
/* A row of the per-side table: label, the client's a and the server's b (NaN or a side that
 * did not report: "-"). */
void out_side_row(FILE *f, const char *label, const struct result *r, int decimals, double a,
		  double b);
/* Each side's CPU per unit (all: user, sys and syscalls too). The unit is the workload's
 * (transaction, connection), or for a stream what that side did, named in a row of its own:
 * "MB sent" for the sender, "MB received" for the receiver. */
void out_cpu_rows(const struct result *r, FILE *f, bool all);
/* A latency line: p50, p99, p99.9, max (full: min, mean, p90, p99.99 too), in us. */
void out_latency_line(FILE *f, const char *label, const struct hist *h, bool full);
/* The full report (-v): every count per side, the kernel's counters, the environment. */
void out_table_full(const struct result *r, FILE *f);
/* Parts of it the short report shows too: --clients-on's hosts, --profile's profile, and the
 * note under the latency of the requests that timed out. */
void out_table_hosts(const struct result *r, FILE *f);
void out_table_profile(const struct result *r, FILE *f);
/* --trace: where a round trip goes, stage by stage (table_trace.c); nothing without it. */
void out_table_trace(const struct result *r, FILE *f);
void out_table_censored(FILE *f, const struct hist *h, long timeout_ms);
/* The latency_us object of a histogram (json_latency.c). */
struct cJSON *out_latency_json(const struct hist *h);

struct cJSON;
/* -i: `intervals_scope` and `intervals` into the run's document (nothing without -i). */
void out_intervals_json(const struct result *r, struct cJSON *j);

#endif
