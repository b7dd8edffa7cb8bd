/* table.c: a run's result as the human report. */
#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "report/out.h"
#include "report/out_priv.h"
#include "base/safe_text.h"
#include "base/util.h"

static void table_memory(const struct result *r, FILE *f);

/* One side's socket knobs as read back from its socket (cc, mss, tos, local address, device).
 * The server's come from the agent, maybe another host's: its words are escaped. */
static void knobs_line(FILE *f, const char *side, const struct knobs_seen *k)
{
	char mss[16] = "-", cc[4 * sizeof(k->cc)], local[4 * sizeof(k->local)],
	     dev[4 * sizeof(k->dev)];

	if (!k->seen)
		return;
	if (k->tcp)
		snprintf(mss, sizeof(mss), "%d", k->mss);
	safe_text(cc, sizeof(cc), k->cc);
	safe_text(local, sizeof(local), *k->local ? k->local : "-");
	safe_text(dev, sizeof(dev), k->dev);
	fprintf(f, "  %-28s %-6s %s%s%smss %s, tos 0x%02x, local %s%s%s\n", "socket (read back)", side,
		k->tcp ? "cc " : "", k->tcp ? cc : "", k->tcp ? ", " : "", mss, k->tos, local,
		*k->dev ? ", device " : "", dev);
}

/* A percentile of one figure over a side's connections read, where its spread holds them all
 * (tcp-crr); NAN: none. */
static double ti_pct(const struct side_result *s, enum tcp_info_fig fig, double p)
{
	uint32_t n = tcp_info_dist_count(&s->ti);

	return n && n == s->c.ti_conns ? tcp_info_dist_pct(&s->ti.h[fig], p) : NAN;
}

/* The percentile rows of tcp-crr's sampled connections, where a side has them. */
static void table_tcp_info_pct(const struct result *r, FILE *f)
{
	static const struct {
		const char *label;
		enum tcp_info_fig fig;
		double p;
	} rows[] = {{"  rtt p50 (us)", TI_RTT, 50},	    {"  rtt p90 (us)", TI_RTT, 90},
		    {"  rtt p99 (us)", TI_RTT, 99},	    {"  cwnd p50 (segments)", TI_CWND, 50},
		    {"  cwnd p99 (segments)", TI_CWND, 99}};

	if (isnan(ti_pct(&r->client, TI_RTT, 50)) && isnan(ti_pct(&r->server, TI_RTT, 50)))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		out_side_row(f, rows[i].label, r, 0, ti_pct(&r->client, rows[i].fig, rows[i].p),
			     ti_pct(&r->server, rows[i].fig, rows[i].p));
}

/* TCP_INFO per side, where a side read it: connections read, rtt, min_rtt, cwnd. */
static void table_tcp_info(const struct result *r, FILE *f)
{
	const struct side_counters *c = &r->client.c, *s = &r->server.c;
	double cn = (double)c->ti_conns, sn = (double)s->ti_conns;

	if (!c->ti_conns && !s->ti_conns)
		return;
	out_side_row(f, "TCP_INFO connections read", r, 0, cn, sn);
	out_side_row(f, "  rtt mean (us)", r, 1, cn ? (double)c->ti_rtt_sum / cn : NAN,
		     sn ? (double)s->ti_rtt_sum / sn : NAN);
	out_side_row(f, "  rtt max (us)", r, 0, cn ? (double)c->ti_rtt_max : NAN,
		     sn ? (double)s->ti_rtt_max : NAN);
	out_side_row(f, "  min_rtt, least (us)", r, 0, cn ? (double)c->ti_minrtt_min : NAN,
		     sn ? (double)s->ti_minrtt_min : NAN);
	out_side_row(f, "  cwnd mean (segments)", r, 1, cn ? (double)c->ti_cwnd_sum / cn : NAN,
		     sn ? (double)s->ti_cwnd_sum / sn : NAN);
	table_tcp_info_pct(r, f);
}

static void table_sides(const struct result *r, FILE *f)
{
	const struct side_result *c = &r->client, *s = &r->server;
	double d = r->duration_s;
	char label[64];

	fprintf(f, "\n  %-28s %14s %14s\n", "per side", "client", "server");
	out_side_row(f, "processes", r, 0, c->processes, s->processes);
	if (out_is_udp(r)) {
		out_side_row(f, "packets sent/s", r, 0, result_per_s(c->c.tx_packets, d),
			     result_per_s(s->c.tx_packets, d));
		out_side_row(f, "packets received/s", r, 0, result_per_s(c->c.rx_packets, d),
			     result_per_s(s->c.rx_packets, d));
	}
	if (!out_is_udp(r)) {
		out_side_row(f, "MB sent", r, 1, (double)c->c.tx_bytes / 1e6,
			     (double)s->c.tx_bytes / 1e6);
		out_side_row(f, "MB received", r, 1, (double)c->c.rx_bytes / 1e6,
			     (double)s->c.rx_bytes / 1e6);
	}
	out_side_row(f, "real (s)", r, 3, d, d);
	out_side_row(f, "user (s)", r, 3, c->user_s, s->user_s);
	out_side_row(f, "sys (s)", r, 3, c->sys_s, s->sys_s);
	out_cpu_rows(r, f, true);
	if (!out_is_udp(r) && r->wl->units) {
		out_side_row(f, "retransmits (TCP_INFO)", r, 0, (double)c->c.retrans, (double)s->c.retrans);
		out_side_row(f, "segments sent (TCP_INFO)", r, 0, (double)c->c.segs_out,
			     (double)s->c.segs_out);
	}
	table_tcp_info(r, f);
	out_side_row(f, "errors", r, 0, (double)c->c.errors, (double)s->c.errors);
	for (int k = 0; k < ERR_KINDS; k++) {
		if (!c->c.err[k] && !s->c.err[k])
			continue;
		snprintf(label, sizeof(label), "  %s", err_kind_names[k]);
		out_side_row(f, label, r, 0, (double)c->c.err[k], (double)s->c.err[k]);
	}
	if (c->c.unfinished)
		out_side_row(f, "unfinished (in flight at the end)", r, 0, (double)c->c.unfinished, 0.0);
	if (s->c.refused)
		out_side_row(f, "refused (no slot or memory)", r, 0, 0.0, (double)s->c.refused);
	if (s->c.listen_drops)
		out_side_row(f, "listener drops", r, 0, 0.0, (double)s->c.listen_drops);
	if (c->c.idle_flows)
		out_side_row(f, "idle flows (none in window)", r, 0, (double)c->c.idle_flows, 0.0);
	table_memory(r, f);
	if (c->sock.seen || s->sock.seen)
		fputc('\n', f);
	knobs_line(f, "client", &c->sock);
	knobs_line(f, "server", &s->sock);
}

/* User-space memory of each side's processes (VmHWM), and what each flow took of it. */
static void table_memory(const struct result *r, FILE *f)
{
	const struct side_result *c = &r->client, *s = &r->server;
	double flows = r->cfg ? (double)(r->cfg->clients * r->cfg->flows) : 0;

	if (c->vm_hwm_kb <= 0 && s->vm_hwm_kb <= 0)
		return;
	out_side_row(f, "memory peak, VmHWM (MB)", r, 1, c->vm_hwm_kb / 1024, s->vm_hwm_kb / 1024);
	if (!(r->wl->shows & SHOWS_FLOW_MEMORY) || flows <= 0)
		return;
	out_side_row(f, "memory per flow (bytes)", r, 0,
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
	const char *missing = out_pairs_missing(r);

	fprintf(f, "\n  kernel counters over the window (%s)\n",
		r->nhosts ? "this machine: its own clients only; each host's are below"
		: r->server_local ? "client and server on this machine" : "this machine: client side");
	for (int i = 0; i < r->kernel.n; i++) {
		const char *n = r->kernel.name[i];

		char a[32], b[32];

		fprintf(f, "    %-22s %14s", n, fmt_sep(a, sizeof(a), (double)r->kernel.v[i], 0));
		for (int k = 0; k < np; k++) {
			if (strcmp(n, p[k].name))
				continue;
			fmt_sep(b, sizeof(b), (double)p[k].ours, 0);
			if (missing)
				fprintf(f, "   sockbench %s (without the %s side: no result)", b,
					missing);
			else
				fprintf(f, "   sockbench %s (%+.2f%%)", b,
					result_diff_pct(p[k].ours, r->kernel.v[i]));
		}
		fputc('\n', f);
	}
}

/* --clients-on: a row per client host, each as it measured itself. */
void out_table_hosts(const struct result *r, FILE *f)
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
		char nb[4][32];

		fprintf(f, "    %-26s %7d %12s %10.2f %10.2f %7s %9s %9s\n", h->name, h->clients,
			fmt_sep(nb[0], 32, h->window_s > 0 ? u / h->window_s : 0, 1),
			result_cpu_us_per(h->side.user_s, h->side.sys_s, u),
			u > 0 ? (double)h->side.c.syscalls / u : 0,
			fmt_sep(nb[1], 32, (double)h->side.c.errors, 0),
			fmt_sep(nb[2], 32, (double)h->p50_ns / 1e3, 1),
			fmt_sep(nb[3], 32, (double)h->p99_ns / 1e3, 1));
		int np = out_host_pairs(r, h, p);

		for (int k = 0; k < np; k++) {
			int64_t v = kstat_snmp_get(&h->kernel, p[k].name);

			if (v >= 0)
				fprintf(f, "      its kernel %-14s %12s   its count %s (%+.2f%%)\n",
					p[k].name, fmt_sep(nb[0], 32, (double)v, 0),
					fmt_sep(nb[1], 32, (double)p[k].ours, 0),
					result_diff_pct(p[k].ours, (uint64_t)v));
		}
		if (h->why[0])
			fprintf(f, "      note: %s\n", h->why);
	}
}

/* The requests that got no answer are in the percentiles above at the time each waited (a
 * lower bound of its latency): say how many, and that a figure marked ≥ is only a bound. */
void out_table_censored(FILE *f, const struct hist *h, long timeout_ms)
{
	char a[32], b[32];

	if (!h->censored)
		return;
	fprintf(f, "  %-28s %s unanswered or failed (%.2f%%) are in these at what each waited "
		"(%s us or more; --timeout %ld ms): \u2265 marks a lower bound\n", "",
		fmt_sep(a, sizeof(a), (double)h->censored, 0),
		100.0 * (double)h->censored / (double)h->count,
		fmt_sep(b, sizeof(b), (double)h->cens_min / 1e3, 0), timeout_ms);
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

void out_table_profile(const struct result *r, FILE *f)
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

const char *out_env_str(const cJSON *e, const char *path, char *buf, size_t len)
{
	char key[64];
	const cJSON *it = e;

	for (const char *p = path; it && *p;) {
		size_t n = strcspn(p, ".");

		snprintf(key, sizeof(key), "%.*s", (int)n, p);
		it = cJSON_GetObjectItemCaseSensitive(it, key);
		p += n + (p[n] == '.');
	}
	if (cJSON_IsString(it)) /* an agent's, or this host's (a hostname, an interface name) */
		safe_text(buf, len, it->valuestring);
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
		label, out_env_str(e, "kernel.release", a, sizeof(a)), out_env_str(e, "cpu.online", c, sizeof(c)),
		out_env_str(e, "cpu.model", b, sizeof(b)), out_env_str(e, "virtualization.hypervisor", d, sizeof(d)),
		out_env_str(e, "clocksource", g, sizeof(g)));
	fprintf(f, "    governor %s, turbo %s; ", out_env_str(e, "cpu.governor", a, sizeof(a)),
		out_env_str(e, "cpu.turbo", c, sizeof(c)));
	fprintf(f, "interface %s (driver %s, MTU %s, qdisc %s, GRO %s, GSO %s, TSO %s)\n",
		out_env_str(e, "interface.name", b, sizeof(b)), out_env_str(e, "interface.driver", d, sizeof(d)),
		out_env_str(e, "interface.mtu", g, sizeof(g)), out_env_str(e, "interface.qdisc", h, sizeof(h)),
		out_env_str(e, "interface.offloads.gro", k, sizeof(k)),
		out_env_str(e, "interface.offloads.gso", a, sizeof(a)),
		out_env_str(e, "interface.offloads.tso", c, sizeof(c)));
}

void out_table_full(const struct result *r, FILE *f)
{
	const struct side_counters *c = &r->client.c;
	char label[64], v[2][32];

	out_table_top(r, f);
	if (out_per_transaction(r)) {
		out_rate_line(r, f);
		if (out_is_udp(r)) {
			fprintf(f, "  %-28s %14s\n", "packets/s (server recvmsg)",
				fmt_sep(v[0], 32, out_packets_per_s(r), 0));
			fprintf(f, "  %-28s %14s  late %s\n", "lost (unanswered)",
				fmt_sep(v[0], 32, (double)c->lost, 0), fmt_sep(v[1], 32, (double)c->late, 0));
		} else {
			fprintf(f, "  %-28s %14s\n", "bytes received", fmt_sep(v[0], 32, (double)c->rx_bytes, 0));
		}
		snprintf(label, sizeof(label), "%s (us)%s", r->wl->latency_label,
			 result_open_loop(r) ? ", from its scheduled send" : "");
		out_latency_line(f, label, r->lat, true);
		out_table_censored(f, r->lat, r->cfg->timeout);
		if (r->lat2->count)
			out_latency_line(f, result_open_loop(r) ? "service (us), from the actual send"
								: "connect() (us)", r->lat2, true);
	}
	out_headline_rows(r, f); /* a stream's figures; an open-loop run's own rows */
	table_sides(r, f);
	out_table_hosts(r, f);
	table_kernel(r, f);
	out_table_profile(r, f);
	out_table_trace(r, f);
	table_env(f, "environment", r->env);
	table_env(f, "agent's environment", r->agent_env);
	out_table_warnings(r, f); /* every warning the short report gives */
}
