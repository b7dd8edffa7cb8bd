/* out_priv.h: what the report's writers share (out.c, json.c, table.c). Not for use outside
 * report/. */
#ifndef SB_OUT_PRIV_H
#define SB_OUT_PRIV_H

#include <stdbool.h>

#include "measure/result.h"

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

struct cJSON;
/* -i: `intervals_scope` and `intervals` into the run's document (nothing without -i). */
void out_intervals_json(const struct result *r, struct cJSON *j);

#endif
