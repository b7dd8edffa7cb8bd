/* table.c: a run's result as the human report. */
#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "report/out.h"
#include "report/out_priv.h"

static void headline_table(const struct headline *h, FILE *f)
{
	for (int i = 0; i < h->nrows; i++) {
		if (isnan(h->row[i].value))
			fprintf(f, "  %-28s %14s", h->row[i].label, "");
		else
			fprintf(f, "  %-28s %14.*f", h->row[i].label, h->row[i].decimals,
				h->row[i].value);
		fprintf(f, "%s%s\n", h->row[i].note[0] ? "  " : "", h->row[i].note);
	}
}

static void side_row(FILE *f, const char *label, const struct result *r, const char *fmt,
		     double a, double b)
{
	char ca[32] = "-", cb[32] = "-";

	if (r->client.present && !isnan(a))
		snprintf(ca, sizeof(ca), fmt, a);
	if (r->server.present && !isnan(b)) /* NaN: withheld (result_server_units) */
		snprintf(cb, sizeof(cb), fmt, b);
	fprintf(f, "  %-28s %14s %14s\n", label, ca, cb);
}

static void table_memory(const struct result *r, FILE *f);

static void table_sides(const struct result *r, FILE *f)
{
	const struct side_result *c = &r->client, *s = &r->server;
	double d = r->duration_s, n = result_units(r), ns = result_server_units(r);
	char label[64];
	/* A stream's unit is what the receiver got: say so, or "per packet" here would read as
	 * the headline's per packet sent. */
	const char *unit = out_per_transaction(r) ? r->wl->unit
			   : !strcmp(r->wl->unit, "megabyte") ? "MB received"
							      : "packet received";

	fprintf(f, "\n  %-28s %14s %14s\n", "per side", "client", "server");
	side_row(f, "processes", r, "%.0f", c->processes, s->processes);
	if (out_is_udp(r)) {
		side_row(f, "packets sent/s", r, "%.0f", result_per_s(c->c.tx_packets, d),
			 result_per_s(s->c.tx_packets, d));
		side_row(f, "packets received/s", r, "%.0f", result_per_s(c->c.rx_packets, d),
			 result_per_s(s->c.rx_packets, d));
	}
	if (!out_is_udp(r)) {
		side_row(f, "MB sent", r, "%.1f", (double)c->c.tx_bytes / 1e6,
			 (double)s->c.tx_bytes / 1e6);
		side_row(f, "MB received", r, "%.1f", (double)c->c.rx_bytes / 1e6,
			 (double)s->c.rx_bytes / 1e6);
	}
	side_row(f, "real (s)", r, "%.3f", d, d);
	side_row(f, "user (s)", r, "%.3f", c->user_s, s->user_s);
	side_row(f, "sys (s)", r, "%.3f", c->sys_s, s->sys_s);
	snprintf(label, sizeof(label), "user us per %s", unit);
	side_row(f, label, r, "%.2f", result_cpu_us_per(c->user_s, 0, n), result_cpu_us_per(s->user_s, 0, ns));
	snprintf(label, sizeof(label), "sys us per %s", unit);
	side_row(f, label, r, "%.2f", result_cpu_us_per(0, c->sys_s, n), result_cpu_us_per(0, s->sys_s, ns));
	snprintf(label, sizeof(label), "CPU us per %s", unit);
	side_row(f, label, r, "%.2f", result_cpu_us_per(c->user_s, c->sys_s, n),
		 result_cpu_us_per(s->user_s, s->sys_s, ns));
	if (c->c.syscalls || s->c.syscalls) {
		snprintf(label, sizeof(label), "syscalls per %s", unit);
		side_row(f, label, r, "%.2f", n > 0 ? (double)c->c.syscalls / n : 0,
			 ns > 0 || isnan(ns) ? (double)s->c.syscalls / ns : 0);
	}
	if (isnan(ns))
		fprintf(f, "  %-28s %s\n", "", r->server_units_withheld);
	if (!out_is_udp(r) && r->wl->units) {
		side_row(f, "retransmits (TCP_INFO)", r, "%.0f", (double)c->c.retrans, (double)s->c.retrans);
		side_row(f, "segments sent (TCP_INFO)", r, "%.0f", (double)c->c.segs_out,
			 (double)s->c.segs_out);
	}
	side_row(f, "errors", r, "%.0f", (double)c->c.errors, (double)s->c.errors);
	for (int k = 0; k < ERR_KINDS; k++) {
		if (!c->c.err[k] && !s->c.err[k])
			continue;
		snprintf(label, sizeof(label), "  %s", err_kind_names[k]);
		side_row(f, label, r, "%.0f", (double)c->c.err[k], (double)s->c.err[k]);
	}
	if (s->c.refused)
		side_row(f, "refused (no slot or memory)", r, "%.0f", 0.0, (double)s->c.refused);
	if (s->c.listen_drops)
		side_row(f, "listener drops", r, "%.0f", 0.0, (double)s->c.listen_drops);
	if (c->c.idle_flows)
		side_row(f, "idle flows (none in window)", r, "%.0f", (double)c->c.idle_flows, 0.0);
	table_memory(r, f);
}

/* User-space memory of each side's processes (VmHWM), and what each flow took of it. */
static void table_memory(const struct result *r, FILE *f)
{
	const struct side_result *c = &r->client, *s = &r->server;
	double flows = r->cfg ? (double)(r->cfg->clients * r->cfg->flows) : 0;

	if (c->vm_hwm_kb <= 0 && s->vm_hwm_kb <= 0)
		return;
	side_row(f, "memory peak, VmHWM (MB)", r, "%.1f", c->vm_hwm_kb / 1024, s->vm_hwm_kb / 1024);
	if (strcmp(r->wl->name, "tcp-rr") || flows <= 0)
		return;
	side_row(f, "memory per flow (bytes)", r, "%.0f",
		 (c->vm_hwm_kb - c->mem_before_kb) * 1024 / flows,
		 (s->vm_hwm_kb - s->mem_before_kb) * 1024 / flows);
}

static void table_kernel(const struct result *r, FILE *f)
{
	struct kernel_pair p[MAX_PAIRS];

	if (r->machine_ok)
		fprintf(f, "\n  machine CPU: user %.1f%%  system %.1f%%  softirq %.1f%%  irq %.1f%%  "
			   "idle %.1f%%  steal %.1f%%\n",
			r->machine.user, r->machine.system, r->machine.softirq, r->machine.irq,
			r->machine.idle, r->machine.steal);
	if (r->softirq_inline_s >= 0 && result_units(r) > 0)
		fprintf(f, "  softirq work per %s: %.2f us inline (in syscalls, or leaving interrupts)"
			   ", %.2f us in ksoftirqd%s\n", r->wl->unit,
			r->softirq_inline_s * 1e6 / result_units(r),
			r->softirq_ksoftirqd_s >= 0 ? r->softirq_ksoftirqd_s * 1e6 / result_units(r) : 0,
			r->softirq_ksoftirqd_s >= 0 ? "" : " (no ksoftirqd threads found)");
	if (!r->kernel_ok)
		return;
	int np = out_kernel_pairs(r, p);

	fprintf(f, "\n  kernel counters over the window (%s)\n",
		r->nhosts ? "this machine: its own clients only; each host's are below"
		: r->server_local ? "client and server on this machine" : "this machine: client side");
	for (int i = 0; i < r->kernel.n; i++) {
		const char *n = r->kernel.name[i];

		fprintf(f, "    %-22s %12llu", n, (unsigned long long)r->kernel.v[i]);
		for (int k = 0; k < np; k++)
			if (!strcmp(n, p[k].name))
				fprintf(f, "   sockbench %llu (%+.2f%%)", (unsigned long long)p[k].ours,
					result_diff_pct(p[k].ours, r->kernel.v[i]));
		fputc('\n', f);
	}
}

/* --clients-on: a row per client host, each as it measured itself. */
static void table_hosts(const struct result *r, FILE *f)
{
	struct kernel_pair p[MAX_PAIRS];

	if (!r->nhosts)
		return;
	fprintf(f, "\n  client hosts: %d; their windows opened within %.2f ms of each other and "
		   "closed within %.2f ms (each edge known to +-%.2f ms, half a control round trip)\n",
		r->nhosts, r->skew_open_ms, r->skew_close_ms, r->skew_err_ms);
	fprintf(f, "    %-26s %7s %12s %10s %10s %7s %9s %9s\n", "host", "clients", "rate/s",
		"CPU us/u", "calls/u", "errors", "p50 us", "p99 us");
	for (int i = 0; i < r->nhosts; i++) {
		const struct host_result *h = &r->hosts[i];
		double u = out_host_units(r, h);

		if (!h->present) {
			fprintf(f, "    %-26s %7d  no result: %s\n", h->name, h->clients, h->why);
			continue;
		}
		fprintf(f, "    %-26s %7d %12.1f %10.2f %10.2f %7llu %9.1f %9.1f\n", h->name,
			h->clients, h->window_s > 0 ? u / h->window_s : 0,
			result_cpu_us_per(h->side.user_s, h->side.sys_s, u),
			u > 0 ? (double)h->side.c.syscalls / u : 0,
			(unsigned long long)h->side.c.errors, (double)h->p50_ns / 1e3,
			(double)h->p99_ns / 1e3);
		int np = out_host_pairs(r, h, p);

		for (int k = 0; k < np; k++) {
			int64_t v = kstat_snmp_get(&h->kernel, p[k].name);

			if (v >= 0)
				fprintf(f, "      its kernel %-14s %12lld   its count %llu (%+.2f%%)\n",
					p[k].name, (long long)v, (unsigned long long)p[k].ours,
					result_diff_pct(p[k].ours, (uint64_t)v));
		}
		if (h->why[0])
			fprintf(f, "      note: %s\n", h->why);
	}
}

static void table_latency(FILE *f, const char *label, const struct hist *h)
{
	fprintf(f, "  %-28s min %.1f  mean %.1f  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  "
		   "p99.99 %.1f  max %.1f\n",
		label, h->count ? (double)h->min / 1e3 : 0, hist_mean(h) / 1e3,
		(double)hist_percentile(h, 50) / 1e3, (double)hist_percentile(h, 90) / 1e3,
		(double)hist_percentile(h, 99) / 1e3, (double)hist_percentile(h, 99.9) / 1e3,
		(double)hist_percentile(h, 99.99) / 1e3, (double)h->max / 1e3);
}

/* The requests that timed out are not in the percentiles above; each waited at least the
 * timeout, so every percentile whose rank falls among them is at least that. */
static void table_censored(FILE *f, const struct hist *h, uint64_t lost, long timeout_ms)
{
	static const double ps[] = {50, 90, 99, 99.9, 99.99};
	double share = (double)lost / (double)(h->count + lost);
	const double *from = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(ps) && !from; i++)
		if (share > 1 - ps[i] / 100)
			from = &ps[i];
	fprintf(f, "  %-28s %llu unanswered after %ld ms are not in these", "",
		(unsigned long long)lost, timeout_ms);
	if (from)
		fprintf(f, "; counted, p%g and above would be %.0f or more\n", *from,
			(double)timeout_ms * 1000);
	else
		fprintf(f, " (%.4f%%: too few to move p99.99)\n", 100 * share);
}

static double num(const cJSON *j, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(j, key);

	return cJSON_IsNumber(it) ? it->valuedouble : 0;
}

static const char *str(const cJSON *j, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(j, key);

	return cJSON_IsString(it) ? it->valuestring : "";
}

/* The report's user-space profile: time share of each syscall, per side. */
static void table_syscalls(const cJSON *p, FILE *f)
{
	static const char *const sides[] = {"client", "server"};
	const cJSON *sys = cJSON_GetObjectItemCaseSensitive(p, "syscalls"), *e;

	for (int s = 0; s < 2; s++) {
		int shown = 0;

		fprintf(f, "  %s time by syscall:", sides[s]);
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(sys, sides[s]))
		{
			if (shown++ == 8 || num(e, "pct") < 0.5)
				break;
			fprintf(f, "%s %s %.1f%%", shown > 1 ? "," : "", str(e, "name"), num(e, "pct"));
		}
		fprintf(f, "%s\n", shown ? "" : " (no samples)");
	}
}

static void table_profile(const struct result *r, FILE *f)
{
	const cJSON *p = r->profile, *m = cJSON_GetObjectItemCaseSensitive(p, "modes"), *e;
	const cJSON *irq = cJSON_GetObjectItemCaseSensitive(p, "irq_enable");

	if (!p) {
		if (r->cfg->profile)
			fprintf(f, "\n  profile: not available: %s\n", r->profile_error);
		return;
	}
	fprintf(f, "\n  profile: %.0f samples of %s at %.0f Hz on every CPU, %.0f lost\n",
		num(p, "samples"), str(p, "event"), num(p, "hz"), num(p, "lost"));
	fprintf(f, "  time: client user %.1f%%, client kernel %.1f%%, server user %.1f%%, server "
		   "kernel %.1f%%, softirq and other %.1f%%, idle %.1f%%\n",
		num(m, "client_user"), num(m, "client_kernel"), num(m, "server_user"),
		num(m, "server_kernel"), num(m, "softirq_and_other"), num(m, "idle"));
	table_syscalls(p, f);
	fprintf(f, "\n  %-44s %7s %7s %7s %7s   (%% of non-idle samples)\n", "kernel function (self)",
		"total", "client", "server", "other");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(p, "functions"))
	fprintf(f, "  %-44.44s %6.2f%% %6.2f%% %6.2f%% %6.2f%%%s\n", str(e, "name"), num(e, "pct"),
		num(e, "client"), num(e, "server"), num(e, "other"),
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "irq_enable")) ? "  *" : "");
	fprintf(f, "  * irq-enable symbols, %.1f%% of non-idle samples in all: %s\n",
		num(irq, "pct"), str(irq, "note"));
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "server_profiled")))
		fprintf(f, "  (the server runs on another host: its samples are not here)\n");
}

/* A member's text, "-" for null or missing; a.b paths. */
static const char *env_str(const cJSON *e, const char *path, char *buf, size_t len)
{
	char key[64];
	const cJSON *it = e;

	for (const char *p = path; it && *p;) {
		size_t n = strcspn(p, ".");

		snprintf(key, sizeof(key), "%.*s", (int)n, p);
		it = cJSON_GetObjectItemCaseSensitive(it, key);
		p += n + (p[n] == '.');
	}
	if (cJSON_IsString(it))
		snprintf(buf, len, "%s", it->valuestring);
	else if (cJSON_IsNumber(it))
		snprintf(buf, len, "%.0f", it->valuedouble);
	else if (cJSON_IsBool(it))
		snprintf(buf, len, "%s", cJSON_IsTrue(it) ? "on" : "off");
	else
		snprintf(buf, len, "-");
	return buf;
}

/* Two lines of what shaped the figures (the whole of it is in --json's "environment"). */
static void table_env(FILE *f, const char *label, const cJSON *e)
{
	char a[128], b[160], c[64], d[64], g[64], h[64], k[64];

	if (!e)
		return;
	fprintf(f, "\n  %s: Linux %s, %s CPUs online (%s), hypervisor %s, clocksource %s,\n",
		label, env_str(e, "kernel.release", a, sizeof(a)), env_str(e, "cpu.online", c, sizeof(c)),
		env_str(e, "cpu.model", b, sizeof(b)), env_str(e, "virtualization.hypervisor", d, sizeof(d)),
		env_str(e, "clocksource", g, sizeof(g)));
	fprintf(f, "    governor %s, turbo %s; ", env_str(e, "cpu.governor", a, sizeof(a)),
		env_str(e, "cpu.turbo", c, sizeof(c)));
	fprintf(f, "interface %s (driver %s, MTU %s, qdisc %s, GRO %s, GSO %s, TSO %s)\n",
		env_str(e, "interface.name", b, sizeof(b)), env_str(e, "interface.driver", d, sizeof(d)),
		env_str(e, "interface.mtu", g, sizeof(g)), env_str(e, "interface.qdisc", h, sizeof(h)),
		env_str(e, "interface.offloads.gro", k, sizeof(k)),
		env_str(e, "interface.offloads.gso", a, sizeof(a)),
		env_str(e, "interface.offloads.tso", c, sizeof(c)));
}

void out_table(const struct result *r, FILE *f)
{
	const struct side_counters *c = &r->client.c;
	char desc[300], label[64];

	r->wl->describe(r->cfg, desc, sizeof(desc));
	fprintf(f, "sockbench %s: %s\n", r->wl->name, desc);
	if (r->partial)
		fprintf(f, "PARTIAL RESULT: %s\n", r->partial_reason);
	fprintf(f, "measured %.3f s after the warm-up\n\n", r->duration_s);
	snprintf(label, sizeof(label), "%ss", r->wl->unit);
	if (r->wl->headline && !out_per_transaction(r)) {
		struct headline h = {.nrows = 0};

		r->wl->headline(r, &h);
		headline_table(&h, f);
		table_sides(r, f);
		table_hosts(r, f);
		table_kernel(r, f);
		table_profile(r, f);
		table_env(f, "environment", r->env);
		table_env(f, "agent's environment", r->agent_env);
		return;
	}
	fprintf(f, "  %-28s %14llu  (%.0f/s)\n", label, (unsigned long long)c->transactions,
		result_per_s(c->transactions, r->duration_s));
	if (out_is_udp(r)) {
		fprintf(f, "  %-28s %14.0f\n", "packets/s (server recvmsg)", out_packets_per_s(r));
		fprintf(f, "  %-28s %14llu  late %llu\n", "lost (unanswered)",
			(unsigned long long)c->lost, (unsigned long long)c->late);
	} else {
		fprintf(f, "  %-28s %14llu\n", "bytes received", (unsigned long long)c->rx_bytes);
	}
	snprintf(label, sizeof(label), "%s (us)%s", r->wl->latency_label,
		 result_open_loop(r) ? ", from its scheduled send" : "");
	table_latency(f, label, r->lat);
	if (out_is_udp(r) && c->lost)
		table_censored(f, r->lat, c->lost, r->cfg->timeout);
	if (r->lat2->count)
		table_latency(f, result_open_loop(r) ? "service (us), from the actual send"
						     : "connect() (us)", r->lat2);
	if (r->wl->headline) { /* a request/response workload's own rows (open loop) */
		struct headline h = {.nrows = 0};

		r->wl->headline(r, &h);
		headline_table(&h, f);
	}
	table_sides(r, f);
	table_hosts(r, f);
	table_kernel(r, f);
	table_profile(r, f);
	table_env(f, "environment", r->env);
	table_env(f, "agent's environment", r->agent_env);
}
