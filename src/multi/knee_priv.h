/* knee_priv.h: what knee.c (the search) and knee_out.c (its table, JSON and plot) share. */
#ifndef SB_KNEE_PRIV_H
#define SB_KNEE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "base/opts.h"
#include "run/run.h"
#include "workload/workload.h"

#define MAX_PTS 40 /* runs of a search, at most */

struct knee_pt {
	double offered, achieved, p50, p99, p999, pslo, cpu_c, cpu_s, lost_share;
	double lag99; /* the generator's schedule lag, p99 (us) */
	bool holding, pass;
	bool pslo_at_least; /* pslo is a lower bound: its rank falls among unanswered requests */
	enum run_status status;
	char holding_why[200];
	char why[240];
};

struct knee {
	const struct workload *wl;
	struct opts o;
	char *slo, *plot;
	long max_rate, min_rate;
	double budget, pct, limit_us, run_s, overhead_s;
	uint64_t t0;
	struct knee_pt pt[MAX_PTS];
	int n;
};

/* The key of percentile p in a run's latency_us ("p99"), or NULL. */
const char *knee_pct_key(double p);
/* Where the lowest rate tried failed (the ramp stopped at its first run): a --min-rate to try
 * instead: half the lowest, or half what it answered where it answered less (a tenth of the
 * lowest at least); 0: no run of it measured anything, so its rate is not why. */
long knee_lower_min_rate(const struct knee *k);
/* The outputs: 0, or 1 when no rate held the SLO (or --plot failed: said). */
int knee_print_table(const struct knee *k, double lo, double hi);
int knee_print_json(const struct knee *k, double lo, double hi);
int knee_plot(const struct knee *k);

#endif
