/* out.h: the result of a run and the only code that prints it (table or JSON). */
#ifndef SB_OUT_H
#define SB_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"
#include "kstat.h"
#include "workload.h"

struct cJSON;

#define RESULT_SCHEMA 1

struct side_result {
	bool present;  /* false when that side never reported (it died, or the run was cut) */
	int processes; /* processes that reported */
	double user_s, sys_s;
	struct side_counters c;
};

struct result {
	const struct workload *wl;
	const struct opts *cfg;
	bool partial;
	char partial_reason[320];
	double duration_s; /* the measured window, as the coordinator timed it */
	double warmup_s;
	struct hist *lat;  /* per unit (round trip / connection), all clients */
	struct hist *lat2; /* connect() alone */
	struct side_result client, server;
	bool server_local; /* same machine: the kernel counters include the server's side */
	bool machine_ok;
	struct cpu_split machine;
	bool kernel_ok;
	struct snmp kernel; /* counter deltas over the window */
	struct cJSON *profile;	  /* --profile: prof_json(), or NULL */
	char profile_error[300]; /* why there is no profile, when one was asked for */
};

/* count / seconds, 0 when seconds is 0. */
double out_rate(uint64_t count, double seconds);
/* (user + sys) in microseconds per unit, 0 when count is 0. */
double out_cpu_us_per(double user_s, double sys_s, double count);
/* The units the window moved (the workload's count: transactions, megabytes, packets), and
 * per second. */
double result_units(const struct result *r);
double result_rate(const struct result *r);
/* Percent by which ours differs from the kernel's count (0 when both are 0). */
double out_diff_pct(uint64_t ours, uint64_t kernel);
/* The human report. */
void out_table(const struct result *r, FILE *f);
struct cJSON;

/* The versioned JSON document (docs/json.md). */
void out_json(const struct result *r, FILE *f);
/* The same document as a cJSON tree (caller frees), and printing one. */
struct cJSON *out_result_json(const struct result *r);
void out_print_json(struct cJSON *j, FILE *f);

#endif
