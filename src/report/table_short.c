/* table_short.c: the report a run prints by default: the headline, the latency, each side's CPU
 * per unit, and a line for each check that warns; -v prints the full one (table.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/out.h"
#include "report/out_priv.h"

#define KERNEL_DIFF_PCT 2.0 /* ours and the kernel's count further apart than this: said */
#define STEAL_PCT 5.0	    /* the hypervisor's steal over the window above this: said */

static void warn(FILE *f, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn(FILE *f, int *n, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "%s  warning: ", (*n)++ ? "" : "\n");
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

/* How far a side's own window strayed from the coordinator's (s): it counts that much more or
 * less than the kernel did over the coordinator's. */
static double side_skew(const struct side_result *s, double d)
{
	if (!s->present || s->window_max_s <= 0)
		return 0;
	return fmax(fabs(s->window_min_s - d), fabs(s->window_max_s - d));
}

/* Our counts against the kernel's, with the tolerance the tests use (tests/e2e/lib.sh, kok):
 * KERNEL_DIFF_PCT, plus 3, plus what the counter moves at its own rate in the delays between
 * the window's edges and the counters' reads and between the coordinator's window and each
 * side's. Byte counters are left to -v: a receive queue holds bytes at an edge that one counted
 * and the other did not, up to the socket buffers. */
static void warn_kernel_pairs(const struct result *r, FILE *f, int *n)
{
	struct kernel_pair p[MAX_PAIRS];
	char a[32], b[32];
	int np = r->kernel_ok ? out_kernel_pairs(r, p) : 0;
	double d = r->duration_s, lag = fmax(side_skew(&r->client, d), side_skew(&r->server, d));
	const char *missing = out_pairs_missing(r);

	if (np && missing) { /* ours lack that side's counts: no percentage says anything */
		warn(f, n, "the %s side sent no result: sockbench's counts lack its share, so they "
		     "are not compared with the kernel's (-v: every counter)", missing);
		return;
	}

	if (r->kread_open_us >= 0 && r->kread_close_us >= 0)
		lag += (r->kread_open_us + r->kread_close_us) / 1e6;
	for (int k = 0; k < np; k++) {
		int64_t kv = kstat_snmp_get(&r->kernel, p[k].name);
		double gap = kv >= 0 ? fabs((double)p[k].ours - (double)kv) : 0;

		if (kv < 0 || strstr(p[k].name, "Octets") || d <= 0 ||
		    gap <= KERNEL_DIFF_PCT / 100 * (double)kv + 3 + (double)kv / d * lag)
			continue;
		warn(f, n, "sockbench counted %s %s, the kernel %s (%+.2f%%): other traffic on this "
		     "machine? (-v: every counter)", fmt_sep(a, sizeof(a), (double)p[k].ours, 0),
		     p[k].name, fmt_sep(b, sizeof(b), (double)kv, 0),
		     result_diff_pct(p[k].ours, (uint64_t)kv));
	}
}

/* How a run whose receive buffers overflowed gives them more room. */
static const char *rcvbuf_hint(const struct result *r)
{
	if (r->wl && opt_find(r->wl->opts, "rcvbuf", 6))
		return "; --rcvbuf BYTES gives every socket more room";
	return "; more room: --sysctl net.core.rmem_default=BYTES (root), or fewer in flight";
}

/* The kernel's drop counters of the window that say the run lost something. */
static void warn_kernel_drops(const struct result *r, FILE *f, int *n)
{
	static const struct {
		const char *name, *what;
	} drops[] = {
		{"RcvbufErrors", "datagrams dropped: a receive buffer was full"},
		{"SndbufErrors", "datagrams not sent: a send buffer was full"},
		{"InCsumErrors", "packets with a bad checksum"},
		{"ListenOverflows", "connections dropped: a listen queue was full (--backlog)"},
		{"RetransSegs", "segments retransmitted"},
	};
	char a[32];

	if (!r->kernel_ok)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(drops); i++) {
		int64_t v = kstat_snmp_get(&r->kernel, drops[i].name);

		if (v > 0)
			warn(f, n, "%s %s (the kernel's %s, this machine, over the window)%s",
			     fmt_sep(a, sizeof(a), (double)v, 0), drops[i].what, drops[i].name,
			     strcmp(drops[i].name, "RcvbufErrors") ? "" : rcvbuf_hint(r));
	}
}

int out_table_warnings(const struct result *r, FILE *f)
{
	const struct side_counters *c = &r->client.c, *s = &r->server.c;
	char a[32], b[32];
	int n = 0;

	if (c->errors || s->errors)
		warn(f, &n, "errors: client %s, server %s (-v: by kind)",
		     fmt_sep(a, sizeof(a), (double)c->errors, 0), fmt_sep(b, sizeof(b), (double)s->errors, 0));
	if (s->refused || s->listen_drops)
		warn(f, &n, "the server refused %s connections and its listener dropped %s",
		     fmt_sep(a, sizeof(a), (double)s->refused, 0),
		     fmt_sep(b, sizeof(b), (double)s->listen_drops, 0));
	warn_kernel_pairs(r, f, &n);
	warn_kernel_drops(r, f, &n);
	if (r->machine_ok && r->machine.steal > STEAL_PCT)
		warn(f, &n, "the hypervisor took %.1f%% of the CPUs' time (steal): the figures move "
		     "with the host's other guests", r->machine.steal);
	return n;
}

/* The rate, the latency, and the workload's own rows. */
static void short_headline(const struct result *r, FILE *f)
{
	char label[64];

	if (!out_per_transaction(r)) {
		out_headline_rows(r, f);
		return;
	}
	out_rate_line(r, f);
	snprintf(label, sizeof(label), "%s (us)%s", r->wl->latency_label,
		 result_open_loop(r) ? ", from schedule" : "");
	out_latency_line(f, label, r->lat, false);
	out_table_censored(f, r->lat, r->cfg->timeout);
	if (r->lat2->count)
		out_latency_line(f, result_open_loop(r) ? "service (us), from the send"
							: "connect() (us)", r->lat2, false);
	out_headline_rows(r, f);
}

static void out_table_short(const struct result *r, FILE *f)
{
	out_table_top(r, f);
	short_headline(r, f);
	fprintf(f, "\n  %-28s %14s %14s\n", "per side", "client", "server");
	out_cpu_rows(r, f, false);
	out_table_hosts(r, f);
	out_table_profile(r, f);
	out_table_trace(r, f);
	out_table_warnings(r, f);
	fprintf(f, "\n  (-v: the full report; --json or --format csv: every figure)\n");
}

void out_table(const struct result *r, FILE *f)
{
	if (r->cfg->verbose)
		out_table_full(r, f);
	else
		out_table_short(r, f);
}
