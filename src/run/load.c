/* load.c: what the clients' counts say of a whole run once they are in: an open-loop run that
 * did not hold its load, or a run whose every unit failed, is partial, with the reason (and the
 * second exits 1). Only run.c calls it.
 */
#include <stdio.h>

#include "run/load.h"
#include "workload/openloop.h"

/* "no connection of the window completed: 10,247 failed or went unanswered (reset 10,247)":
 * with each kind of error the clients counted. */
static void fail_reason(const struct run *r, char *buf, size_t len)
{
	const struct side_counters *c = &r->res.client.c;
	size_t at = (size_t)snprintf(buf, len, "no %s of the window completed: %llu failed or went "
				     "unanswered", r->wl->unit,
				     (unsigned long long)r->res.lat->censored);
	const char *sep = " (";

	for (int k = 0; k < ERR_KINDS && at < len; k++) {
		if (!c->err[k])
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s %llu", sep, err_kind_names[k],
				       (unsigned long long)c->err[k]);
		sep = ", ";
	}
	if (*sep == ',' && at < len)
		snprintf(buf + at, len - at, ")");
}

/* Once the clients' counts are in: a run that did not hold its load (open loop), or whose
 * every unit failed (exit 1 too), is partial, with the reason. */
void load_check(struct run *r)
{
	char held[400];
	const struct side_counters *c = &r->res.client.c;

	if (result_open_loop(&r->res) && !ol_holding(c, ol_run_delay(&r->res.client), held, sizeof(held)))
		mark_partial(r, held);
	else if (r->wl->holding && !r->wl->holding(&r->res, held, sizeof(held)))
		mark_partial(r, held);
	else if (!c->transactions && r->res.lat->censored) {
		fail_reason(r, held, sizeof(held));
		mark_partial(r, held);
		r->failed = true; /* nothing measured of the server but its refusals: exit 1 */
	}
}
