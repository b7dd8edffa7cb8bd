/* trace_rows.h: --trace's "where a round trip goes" as rows, for the text table, the report
 * page and --plot alike: each stage in a round trip's order, with its p50, p99 and mean per
 * round trip (its whole time over the packets of its direction read). */
#ifndef SB_REPORT_TRACE_ROWS_H
#define SB_REPORT_TRACE_ROWS_H

#include <stdbool.h>

struct cJSON;

#define TRACE_ROWS 14

enum trace_part { TRACE_PART_REQUEST, TRACE_PART_SERVER, TRACE_PART_ANSWER, TRACE_PART_CLIENT };

struct trace_row {
	char label[24];	  /* "request socket" */
	const char *desc; /* "socket queue -> read, awake" */
	enum trace_part part;
	bool seen;	   /* the stage held packets */
	double p50, p99;   /* us; NAN when not seen */
	double mean;	   /* us per round trip; 0 when not seen */
};

/* The rows of trace (the result's "trace" JSON), and the sum of their means. A client's time
 * from its read to its next request is a round trip's only in a closed loop (it ends one and
 * starts the next): an open loop's schedule sends, and that row is left out. Returns the
 * rows written (at most TRACE_ROWS), 0 without a trace. */
int trace_rows(const struct cJSON *trace, bool closed, struct trace_row *rows, double *sum);

/* One request and one answer packet a round trip (udp-rr, ping-pong tcp-rr), within 1% of the
 * answered round trips: only then do the means add up to the round trip's. Not so where TCP
 * merges messages into fewer segments, or a connection carries two answers (tcp-crr). */
bool trace_one_packet_each_way(const struct cJSON *trace, double answered);

#endif
