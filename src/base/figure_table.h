/* figure_table.h: every figure a result can be compared on, one X-macro line each, and what a
 * workload shows (the SHOWS_* flags that say which workloads' documents hold a figure).
 *
 * X(ID, "key", "label", "path", "alt", "unit", better, shows)
 * ID: FIG_ID, its index. key: its name in summaries, CSV summary rows and compare's rows.
 * label: for tables, a %s standing for the workload's unit. path: where a result document
 * holds it ("sides.client.sys_s"); alt: where documents of older versions had it, or NULL.
 * unit: of its value, as the report page writes it (NULL: a count). better: HIGHER or LOWER.
 * shows: the SHOWS_* flags of the workloads that have it (any of them; 0: every workload).
 *
 * One line makes the figure a --runs summary, a compare row (in the Holm family), a sweep and
 * explore figure, a default CSV column and a --fields name of the workloads that show it, and
 * a key a saved result must hold at 0 or more (result_file.c: every figure is a count, a rate,
 * a share or a time). The run's JSON (report/json.c) must hold it at that path. It lives at
 * the bottom (base/) because result_file.c checks saved results with it.
 */
#ifndef SB_FIGURE_TABLE_H
#define SB_FIGURE_TABLE_H

#include <stdbool.h>
#include <stddef.h>

/* What a workload shows beyond what every workload does (struct workload's shows, and
 * workload_shows() with the flags its other members imply). */
enum shows {
	SHOWS_TRANSACTIONS = 1 << 0,   /* it counts transactions: latencies, lost, late (implied) */
	SHOWS_STREAM = 1 << 1,	       /* a stream: its rate in Gbit/s (implied) */
	SHOWS_DRAIN = 1 << 2,	       /* it drains after the window (implied) */
	SHOWS_DATAGRAMS = 1 << 3,      /* datagrams numbered in sequence: packets, loss, jitter */
	SHOWS_MEGABYTES = 1 << 4,      /* payload counted in megabytes */
	SHOWS_TCP_INFO_EDGES = 1 << 5, /* TCP_INFO read at both edges of the window: retransmits */
	SHOWS_CONNECTIONS = 1 << 6,    /* a connection per unit: connect() latency, CPU per one */
	SHOWS_ACCEPT_QUEUE = 1 << 7,   /* the server's accept queue at the window's edges */
	SHOWS_FLOW_MEMORY = 1 << 8,    /* the memory each of its flows took */
	SHOWS_IDLE_FLOWS = 1 << 9,     /* flows that moved nothing in the window */
};

/* A figure of each side, the client's row then the server's: ID becomes CLIENT_ID and SERVER_ID,
 * the key, label and path (under sides.SIDE.) take the side's name; _ALT: with the older path. */
#define FIG_SIDES_ALT(X, ID, key, label, path, alt, unit, better, shows)                           \
	X(CLIENT_##ID, "client_" key, "client " label, "sides.client." path,                       \
	  "sides.client." alt, unit, better, shows)                                                \
	X(SERVER_##ID, "server_" key, "server " label, "sides.server." path,                       \
	  "sides.server." alt, unit, better, shows)
#define FIG_SIDES(X, ID, key, label, path, unit, better, shows)                                    \
	X(CLIENT_##ID, "client_" key, "client " label, "sides.client." path, NULL, unit, better,   \
	  shows)                                                                                   \
	X(SERVER_##ID, "server_" key, "server " label, "sides.server." path, NULL, unit, better,   \
	  shows)

#define FIGURE_LIST(X)                                                                             \
	X(RATE, "rate", "%ss/s", "rate", "transactions_per_s", "per s", HIGHER, 0)                \
	X(GBIT, "gbit_per_s", "Gbit/s", "gbit_per_s", NULL, "Gbit/s", HIGHER, SHOWS_STREAM)        \
	X(PACKETS_SENT, "packets_sent_per_s", "packets sent/s", "packets_sent_per_s", NULL,        \
	  "per s", HIGHER, SHOWS_DATAGRAMS)                                                        \
	X(LOSS, "loss_pct", "loss (%%)", "loss_pct", NULL, "%", LOWER,                            \
	  SHOWS_TRANSACTIONS | SHOWS_DATAGRAMS)                                                    \
	X(P50, "latency_p50_us", "latency p50 (us)", "latency_us.p50", NULL, "us", LOWER,          \
	  SHOWS_TRANSACTIONS)                                                                      \
	X(P90, "latency_p90_us", "latency p90 (us)", "latency_us.p90", NULL, "us", LOWER,          \
	  SHOWS_TRANSACTIONS)                                                                      \
	X(P99, "latency_p99_us", "latency p99 (us)", "latency_us.p99", NULL, "us", LOWER,          \
	  SHOWS_TRANSACTIONS)                                                                      \
	X(P999, "latency_p999_us", "latency p99.9 (us)", "latency_us.p999", NULL, "us", LOWER,     \
	  SHOWS_TRANSACTIONS)                                                                      \
	X(P9999, "latency_p9999_us", "latency p99.99 (us)", "latency_us.p9999", NULL, "us", LOWER, \
	  SHOWS_TRANSACTIONS)                                                                      \
	X(CONNECT_P50, "connect_p50_us", "connect() p50 (us)", "connect_latency_us.p50", NULL,     \
	  "us", LOWER, SHOWS_CONNECTIONS)                                                          \
	FIG_SIDES_ALT(X, CPU, "cpu_us", "CPU us/%s", "cpu_us_per_unit", "cpu_us_per_transaction",  \
		      "us per unit", LOWER, 0)                                                     \
	X(CLIENT_USER_US, "client_user_us", "client user us/%s", "sides.client.user_us_per_unit",   \
	  "sides.client.user_us_per_connection", "us per unit", LOWER, 0)                          \
	X(CLIENT_SYS_US, "client_sys_us", "client sys us/%s", "sides.client.sys_us_per_unit",      \
	  "sides.client.sys_us_per_connection", "us per unit", LOWER, 0)                           \
	X(SERVER_USER_US, "server_user_us", "server user us/%s", "sides.server.user_us_per_unit",   \
	  "sides.server.user_us_per_connection", "us per unit", LOWER, 0)                          \
	X(SERVER_SYS_US, "server_sys_us", "server sys us/%s", "sides.server.sys_us_per_unit",      \
	  "sides.server.sys_us_per_connection", "us per unit", LOWER, 0)                           \
	X(CLIENT_USER_S, "client_user_s", "client user (s)", "sides.client.user_s", NULL, "s",     \
	  LOWER, 0)                                                                                \
	X(CLIENT_SYS_S, "client_sys_s", "client sys (s)", "sides.client.sys_s", NULL, "s", LOWER, \
	  0)                                                                                       \
	X(SERVER_USER_S, "server_user_s", "server user (s)", "sides.server.user_s", NULL, "s",     \
	  LOWER, 0)                                                                                \
	X(SERVER_SYS_S, "server_sys_s", "server sys (s)", "sides.server.sys_s", NULL, "s", LOWER, \
	  0)                                                                                       \
	FIG_SIDES_ALT(X, SYSCALLS, "syscalls", "syscalls/%s", "syscalls_per_unit",                 \
		      "syscalls_per_transaction", "per unit", LOWER, 0)                            \
	X(RETRANS, "retransmits", "retransmits", "retransmits", NULL, NULL, LOWER,                 \
	  SHOWS_TCP_INFO_EDGES)                                                                    \
	FIG_SIDES(X, VCSW, "sleeps", "sleeps/%s", "voluntary_switches_per_unit", "per unit", LOWER, \
		  0)                                                                               \
	FIG_SIDES(X, IVCSW, "preempted", "preempted/%s", "involuntary_switches_per_unit",          \
		  "per unit", LOWER, 0)                                                            \
	X(SOFTIRQ_INLINE, "softirq_inline_us", "softirq inline us/%s",                             \
	  "softirq.inline_us_per_unit", NULL, "us per unit", LOWER, 0)                             \
	X(SOFTIRQ_KSOFTIRQD, "softirq_ksoftirqd_us", "softirq in ksoftirqd us/%s",                 \
	  "softirq.ksoftirqd_us_per_unit", NULL, "us per unit", LOWER, 0)                          \
	FIG_SIDES(X, MEM_PER_FLOW, "mem_per_flow", "memory/flow (B)", "memory_per_flow", "B", LOWER, \
		  SHOWS_FLOW_MEMORY)

enum figure_id {
#define FIGURE_ID(id, ...) FIG_##id,
	FIGURE_LIST(FIGURE_ID)
#undef FIGURE_ID
	NFIGURES,
};

struct figure_def {
	const char *key;   /* its name in summaries and CSV */
	const char *label; /* for tables; a %s stands for the workload's unit */
	const char *path;  /* in the result document */
	const char *alt;   /* where documents of older versions had it, or NULL */
	const char *unit;  /* of its value (NULL: a count) */
	bool higher_better;
	unsigned shows; /* the workloads that have it (SHOWS_*; 0: every one) */
};

extern const struct figure_def figures[NFIGURES];
extern const int nfigures;

/* The figure named by the n bytes at name: its one name (key: "server_syscalls"), or its JSON
 * path ("sides.server.syscalls_per_unit") or an older path ("transactions_per_s"), which every
 * command takes too. -1: none. */
int figure_named(const char *name, size_t n);

/* Does a workload that shows these (SHOWS_*) have something marked `marked`? */
static inline bool shows_any(unsigned shows, unsigned marked)
{
	return !marked || (shows & marked);
}
#endif
