/* result.h: the result of one run: what each side measured over the window, the kernel's
 * counters and the machine's CPU over it, the latency histograms and the profile; and the
 * arithmetic every reader of a result shares (rates, CPU per unit). Data only: it prints
 * nothing and knows no workload beyond a pointer to it. */
#ifndef SB_RESULT_H
#define SB_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/opts.h"
#include "measure/hist.h"
#include "measure/interval.h"
#include "measure/kstat.h"
#include "measure/side.h"

struct cJSON;
struct workload;

#define RESULT_SCHEMA 1

struct side_result {
	bool present;  /* false when that side never reported (it died, or the run was cut) */
	int processes; /* processes that reported */
	double user_s, sys_s;
	double vcsw, ivcsw; /* context switches in the window: slept, preempted */
	double run_delay_s; /* its threads' time runnable but not running (schedstat), summed */
	int threads;	    /* ... over so many threads (of its processes, at the window's end) */
	/* The side's own windows, from when each of its processes saw the window open to when it
	 * saw it close: the shortest and the longest (0: none timed). Beside the coordinator's
	 * window they say how far the side's counts can stray from the kernel's. */
	double window_min_s, window_max_s;
	/* User-space memory of its processes, summed (kB; 0: not measured): resident before the
	 * workload opened its flows, and peak (VmHWM) and resident (VmRSS) at the window's end. */
	double mem_before_kb, vm_hwm_kb, vm_rss_kb;
	struct side_counters c;
	struct knobs_seen sock; /* the socket knobs in force (nothing seen: not read) */
	/* tcp-crr: the spread of the TCP_INFO its sampled connections read (c.ti_* has their
	 * sums); a dist that holds fewer than c.ti_conns (a client host's that did not fit its
	 * RESULT) gives no percentiles. */
	struct tcp_info_dist ti;
};

/* Take one process's own window into a side's shortest and longest. */
void side_window_add(struct side_result *s, double window_s);
/* A side's own measures (user_s to vm_rss_kb), each once in one table of keys, into the RESULT
 * a serve agent or a client host sends the coordinator ... */
void side_measures_put(struct cJSON *j, const struct side_result *s);
/* ... and from it back into s: each a number, or 0 where it is not one. */
void side_measures_get(const struct cJSON *j, struct side_result *s);

/* One client host of a fanned-out run (--clients-on), as it measured itself. */
struct host_result {
	char name[280];
	bool local;   /* the controller's own host */
	bool present; /* it reported */
	int clients;
	double window_s; /* its own window, as it timed it */
	struct side_result side;
	uint64_t p50_ns, p99_ns; /* its own latency percentiles (the merge is in lat) */
	bool kernel_ok;
	struct snmp kernel; /* its kernel's counter deltas over its window */
	char why[400];	    /* why it did not report, or not all of it */
};

struct result {
	const struct workload *wl;
	const struct opts *cfg;
	bool partial;
	char partial_reason[320];
	/* Why the server's per-unit figures are withheld ("": they are not): a client host lost or
	 * short of clients leaves units the server served that this run did not count. */
	char server_units_withheld[200];
	double duration_s; /* the measured window, as the coordinator timed it */
	/* After it, how long its requests took to be answered or counted lost (workload.h's
	 * drains; -1: no drain) */
	double drain_s;
	double warmup_s;
	struct hist *lat;  /* per unit (round trip / connection), all clients */
	struct hist *lat2; /* connect() alone */
	struct side_result client, server;
	bool server_local; /* same machine: the kernel counters include the server's side */
	bool machine_ok;
	struct cpu_split machine;
	/* Softirq work of the window by where it ran: inline (/proc/stat's softirq: on the way
	 * out of an interrupt or inside a syscall that re-enabled it, on any CPU) and deferred to
	 * the ksoftirqd threads (their own CPU time). Seconds, all CPUs; -1: not measured. */
	double softirq_inline_s, softirq_ksoftirqd_s;
	bool kernel_ok;
	struct snmp kernel; /* counter deltas over the window */
	/* A time-based window: how long after each edge the protocol's counters were read
	 * (microseconds; -1: a count-based window, read while no traffic flowed). */
	double kread_open_us, kread_close_us;
	struct cJSON *profile;	  /* --profile: prof_json(), or NULL */
	struct cJSON *trace;	  /* --trace: trace_json(), or NULL */
	struct cJSON *env;	  /* this host's environment (env_collect), or NULL */
	struct cJSON *agent_env;  /* with --server: the agent's, as it reported it, or NULL */
	char profile_error[300]; /* why there is no profile, when one was asked for */
	/* --clients-on: every client host (client above is their sum, lat their merge), and
	 * how far apart their windows opened and closed, known within skew_err_ms. */
	struct host_result *hosts;
	int nhosts;
	double skew_open_ms, skew_close_ms, skew_err_ms;
	/* A stream's rate over the window (--plot, JSON rate_over_window): the payload the
	 * local clients sent and received, Gbit/s over each step, at the step's middle (s since
	 * the window opened). */
	double *series_t, *series_gbit;
	int nseries;
	double series_step_s;
	/* -i: the interval reports of the local clients (measure/interval.h; NULL without), and
	 * whose they are ("all clients", "this host's clients"). */
	struct interval *intervals;
	int nintervals;
	char intervals_scope[40];
};

/* A workload's own headline figures, as data (workload.h's headline hook fills it; only
 * report/ prints it): text rows, and members of the JSON document by dotted path. */
#define HEADLINE_ROWS 8
#define HEADLINE_KEYS 24
struct headline {
	struct {
		const char *label;
		double value; /* NAN: none shown */
		int decimals;
		char note[160]; /* after the value, or "" */
	} row[HEADLINE_ROWS];
	struct {
		const char *path; /* "a" or "a.b": an object a is made for it */
		double value;	  /* NAN: null */
		int decimals;	  /* rounded to so many places; -1: as it is */
		enum { HK_NUMBER, HK_BOOL, HK_TEXT } kind; /* HK_BOOL: value != 0 */
		char text[480];	  /* HK_TEXT: the string (a reason whole: holding_load_reason) */
	} key[HEADLINE_KEYS];
	int nrows, nkeys;
};

/* A text row: label, value (NAN: none) with decimals, and a note made from fmt (NULL: none). */
void headline_row(struct headline *h, const char *label, double value, int decimals,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A JSON member at path: value (NAN: null), rounded to decimals places (-1: not rounded). */
void headline_key(struct headline *h, const char *path, double value, int decimals);
/* A JSON member at path: true or false. */
void headline_key_bool(struct headline *h, const char *path, bool value);
/* A JSON member at path: the text (NULL: null). */
void headline_key_text(struct headline *h, const char *path, const char *text);

/* An open-loop run (--rate on a request/response workload): its clients kept a schedule. */
bool result_open_loop(const struct result *r);
/* A stream's receivers' recv_spin_ns as their hosts chose it: the largest of the receiving
 * sides that told it (the server, the client with --reverse, both with --bidir); -1: none
 * did (an agent built before it, or a side with no receiver). */
int64_t result_recv_spin_ns(const struct result *r);
/* count / seconds, 0 when seconds is 0. */
double result_per_s(uint64_t count, double seconds);
/* (user + sys) in microseconds per unit, 0 when count is 0. */
double result_cpu_us_per(double user_s, double sys_s, double count);
/* Percent by which ours differs from the kernel's count (0 when both are 0). */
double result_diff_pct(uint64_t ours, uint64_t kernel);

#endif
