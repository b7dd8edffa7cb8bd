/* out.c: see out.h. Every figure printed here comes from struct result. */
#include "report/out.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef SB_VERSION
#define SB_VERSION "unknown"
#endif

#define MAX_PAIRS 4

double result_units(const struct result *r)
{
	return r->wl->units ? r->wl->units(r) : (double)r->client.c.transactions;
}

double result_rate(const struct result *r)
{
	return r->duration_s > 0 ? result_units(r) / r->duration_s : 0.0;
}


/* Round for printing: JSON readers get figures, not 17-digit noise. */
static double r3(double v)
{
	return round(v * 1000.0) / 1000.0;
}

static double r6(double v)
{
	return round(v * 1e6) / 1e6;
}

static bool is_udp(const struct result *r)
{
	return !strcmp(r->wl->snmp_proto, "Udp");
}

/* The headline packet rate: what the server received per second (each of its recvmsg and
 * sendmsg, as the report counted), or the client's answers when the server did not report. */
static double packets_per_s(const struct result *r)
{
	if (r->server.present)
		return result_per_s(r->server.c.rx_packets, r->duration_s);
	return result_per_s(r->client.c.rx_packets, r->duration_s);
}

static double units(const struct result *r)
{
	return result_units(r);
}

/* Workloads that count transactions (not bytes or packets of a stream). */
static bool per_transaction(const struct result *r)
{
	return !r->wl->units;
}

static cJSON *errors_json(const struct side_counters *c)
{
	cJSON *j = cJSON_CreateObject();

	for (int k = 0; k < ERR_KINDS; k++)
		cJSON_AddNumberToObject(j, err_kind_names[k], (double)c->err[k]);
	return j;
}

static cJSON *side_json(const struct side_result *s, const struct result *r)
{
	if (!s->present)
		return cJSON_CreateNull();
	cJSON *j = cJSON_CreateObject();
	char key[64];

	cJSON_AddNumberToObject(j, "processes", s->processes);
	cJSON_AddNumberToObject(j, "real_s", r6(r->duration_s));
	cJSON_AddNumberToObject(j, "user_s", r6(s->user_s));
	cJSON_AddNumberToObject(j, "sys_s", r6(s->sys_s));
	cJSON_AddNumberToObject(j, "cpu_us_per_unit", r3(result_cpu_us_per(s->user_s, s->sys_s, units(r))));
	if (per_transaction(r))
		cJSON_AddNumberToObject(j, "cpu_us_per_transaction",
					r3(result_cpu_us_per(s->user_s, s->sys_s, units(r))));
	if (strcmp(r->wl->unit, "transaction")) {
		snprintf(key, sizeof(key), "cpu_us_per_%s", r->wl->unit);
		cJSON_AddNumberToObject(j, key, r3(result_cpu_us_per(s->user_s, s->sys_s, units(r))));
		snprintf(key, sizeof(key), "user_us_per_%s", r->wl->unit);
		cJSON_AddNumberToObject(j, key, r3(result_cpu_us_per(s->user_s, 0, units(r))));
		snprintf(key, sizeof(key), "sys_us_per_%s", r->wl->unit);
		cJSON_AddNumberToObject(j, key, r3(result_cpu_us_per(0, s->sys_s, units(r))));
	}
	cJSON_AddNumberToObject(j, "packets_sent", (double)s->c.tx_packets);
	cJSON_AddNumberToObject(j, "packets_received", (double)s->c.rx_packets);
	cJSON_AddNumberToObject(j, "packets_sent_per_s", r3(result_per_s(s->c.tx_packets, r->duration_s)));
	cJSON_AddNumberToObject(j, "packets_received_per_s",
				r3(result_per_s(s->c.rx_packets, r->duration_s)));
	cJSON_AddNumberToObject(j, "bytes_sent", (double)s->c.tx_bytes);
	cJSON_AddNumberToObject(j, "bytes_received", (double)s->c.rx_bytes);
	cJSON_AddNumberToObject(j, "connections", (double)s->c.connects);
	cJSON_AddNumberToObject(j, "syscalls", (double)s->c.syscalls);
	cJSON_AddNumberToObject(j, "syscalls_per_unit",
				units(r) > 0 ? r3((double)s->c.syscalls / units(r)) : 0);
	if (per_transaction(r))
		cJSON_AddNumberToObject(j, "syscalls_per_transaction",
					units(r) > 0 ? r3((double)s->c.syscalls / units(r)) : 0);
	if (!strcmp(r->wl->snmp_proto, "Tcp")) {
		cJSON_AddNumberToObject(j, "retransmits", (double)s->c.retrans);
		cJSON_AddNumberToObject(j, "segments_sent", (double)s->c.segs_out);
	}
	cJSON_AddNumberToObject(j, "errors", (double)s->c.errors);
	cJSON_AddItemToObject(j, "errors_by_kind", errors_json(&s->c));
	cJSON_AddNumberToObject(j, "refused", (double)s->c.refused);
	cJSON_AddNumberToObject(j, "listen_drops", (double)s->c.listen_drops);
	return j;
}

static cJSON *latency_json(const struct hist *h)
{
	cJSON *j = cJSON_CreateObject();
	static const struct {
		const char *key;
		double p;
	} pct[] = {{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}};

	cJSON_AddNumberToObject(j, "count", (double)h->count);
	cJSON_AddNumberToObject(j, "min", h->count ? r3((double)h->min / 1e3) : 0);
	cJSON_AddNumberToObject(j, "mean", r3(hist_mean(h) / 1e3));
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		cJSON_AddNumberToObject(j, pct[i].key, r3((double)hist_percentile(h, pct[i].p) / 1e3));
	cJSON_AddNumberToObject(j, "max", r3((double)h->max / 1e3));
	return j;
}

static cJSON *machine_json(const struct cpu_split *m)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddNumberToObject(j, "user", r3(m->user));
	cJSON_AddNumberToObject(j, "system", r3(m->system));
	cJSON_AddNumberToObject(j, "softirq", r3(m->softirq));
	cJSON_AddNumberToObject(j, "irq", r3(m->irq));
	cJSON_AddNumberToObject(j, "idle", r3(m->idle));
	cJSON_AddNumberToObject(j, "steal", r3(m->steal));
	return j;
}

static cJSON *kernel_check_json(const struct result *r)
{
	struct kernel_pair p[MAX_PAIRS];
	int n = r->wl->kernel_pairs(r, p);
	cJSON *j = cJSON_CreateObject(), *c = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "scope", r->server_local ? "client+server" : "client");
	for (int i = 0; i < n; i++) {
		cJSON *e = cJSON_CreateObject();
		int64_t k = kstat_snmp_get(&r->kernel, p[i].name);

		cJSON_AddNumberToObject(e, "ours", (double)p[i].ours);
		cJSON_AddNumberToObject(e, "kernel", (double)k);
		cJSON_AddNumberToObject(e, "diff_pct", r3(result_diff_pct(p[i].ours, (uint64_t)k)));
		cJSON_AddItemToObject(c, p[i].name, e);
	}
	cJSON_AddItemToObject(j, "counters", c);
	return j;
}

static void add_headline(cJSON *j, const struct result *r)
{
	const struct side_counters *c = &r->client.c;
	char key[64];

	cJSON_AddStringToObject(j, "unit", r->wl->unit);
	cJSON_AddNumberToObject(j, "rate", r3(result_rate(r)));
	if (per_transaction(r)) {
		cJSON_AddNumberToObject(j, "transactions", (double)c->transactions);
		cJSON_AddNumberToObject(j, "transactions_per_s",
					r3(result_per_s(c->transactions, r->duration_s)));
	}
	if (strcmp(r->wl->unit, "transaction")) {
		snprintf(key, sizeof(key), "%ss", r->wl->unit);
		cJSON_AddNumberToObject(j, key, r3(units(r)));
		snprintf(key, sizeof(key), "%ss_per_s", r->wl->unit);
		cJSON_AddNumberToObject(j, key, r3(result_rate(r)));
	}
	if (is_udp(r) && !cJSON_HasObjectItem(j, "packets_per_s"))
		cJSON_AddNumberToObject(j, "packets_per_s", r3(packets_per_s(r)));
	if (r->wl->headline)
		r->wl->headline(r, NULL, j);
	if (per_transaction(r)) { /* the client's view; streams have their own headline */
		cJSON_AddNumberToObject(j, "bytes_received", (double)c->rx_bytes);
		cJSON_AddNumberToObject(j, "lost", (double)c->lost);
		cJSON_AddNumberToObject(j, "late", (double)c->late);
	}
	cJSON_AddNumberToObject(j, "errors", (double)(c->errors + r->server.c.errors));
	if (per_transaction(r))
		cJSON_AddItemToObject(j, "latency_us", latency_json(r->lat));
	if (r->lat2->count)
		cJSON_AddItemToObject(j, "connect_latency_us", latency_json(r->lat2));
}

struct cJSON *out_result_json(const struct result *r)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddNumberToObject(j, "schema", RESULT_SCHEMA);
	cJSON_AddStringToObject(j, "tool", "sockbench");
	cJSON_AddStringToObject(j, "version", SB_VERSION);
	cJSON_AddStringToObject(j, "workload", r->wl->name);
	cJSON_AddItemToObject(j, "config", opts_to_json(r->wl->opts, r->cfg));
	cJSON_AddBoolToObject(j, "partial", r->partial);
	if (r->partial)
		cJSON_AddStringToObject(j, "partial_reason", r->partial_reason);
	else
		cJSON_AddNullToObject(j, "partial_reason");
	cJSON_AddNumberToObject(j, "duration_s", r6(r->duration_s));
	cJSON_AddNumberToObject(j, "warmup_s", r3(r->warmup_s));
	add_headline(j, r);
	cJSON *sides = cJSON_AddObjectToObject(j, "sides");

	cJSON_AddItemToObject(sides, "client", side_json(&r->client, r));
	cJSON_AddItemToObject(sides, "server", side_json(&r->server, r));
	cJSON_AddItemToObject(j, "machine_cpu",
			      r->machine_ok ? machine_json(&r->machine) : cJSON_CreateNull());
	if (r->kernel_ok) {
		cJSON *k = cJSON_AddObjectToObject(j, "kernel");

		for (int i = 0; i < r->kernel.n; i++)
			cJSON_AddNumberToObject(k, r->kernel.name[i], (double)r->kernel.v[i]);
		cJSON_AddItemToObject(j, "kernel_check", kernel_check_json(r));
	} else {
		cJSON_AddNullToObject(j, "kernel");
	}
	if (r->profile) {
		cJSON *pj = cJSON_Duplicate(r->profile, true);

		cJSON_AddBoolToObject(pj, "available", true);
		cJSON_AddItemToObject(j, "profile", pj);
	} else if (r->cfg->profile) {
		cJSON *pj = cJSON_AddObjectToObject(j, "profile");

		cJSON_AddBoolToObject(pj, "available", false);
		cJSON_AddStringToObject(pj, "error", r->profile_error);
	}
	return j;
}

void out_print_json(struct cJSON *j, FILE *f)
{
	char *txt = cJSON_Print(j);

	fprintf(f, "%s\n", txt);
	free(txt);
}

void out_json(const struct result *r, FILE *f)
{
	cJSON *j = out_result_json(r);

	out_print_json(j, f);
	cJSON_Delete(j);
}

static void side_row(FILE *f, const char *label, const struct result *r, const char *fmt,
		     double a, double b)
{
	char ca[32] = "-", cb[32] = "-";

	if (r->client.present)
		snprintf(ca, sizeof(ca), fmt, a);
	if (r->server.present)
		snprintf(cb, sizeof(cb), fmt, b);
	fprintf(f, "  %-28s %14s %14s\n", label, ca, cb);
}

static void table_sides(const struct result *r, FILE *f)
{
	const struct side_result *c = &r->client, *s = &r->server;
	double d = r->duration_s, n = units(r);
	char label[64];

	fprintf(f, "\n  %-28s %14s %14s\n", "per side", "client", "server");
	side_row(f, "processes", r, "%.0f", c->processes, s->processes);
	if (is_udp(r)) {
		side_row(f, "packets sent/s", r, "%.0f", result_per_s(c->c.tx_packets, d),
			 result_per_s(s->c.tx_packets, d));
		side_row(f, "packets received/s", r, "%.0f", result_per_s(c->c.rx_packets, d),
			 result_per_s(s->c.rx_packets, d));
	}
	if (!is_udp(r)) {
		side_row(f, "MB sent", r, "%.1f", (double)c->c.tx_bytes / 1e6,
			 (double)s->c.tx_bytes / 1e6);
		side_row(f, "MB received", r, "%.1f", (double)c->c.rx_bytes / 1e6,
			 (double)s->c.rx_bytes / 1e6);
	}
	side_row(f, "real (s)", r, "%.3f", d, d);
	side_row(f, "user (s)", r, "%.3f", c->user_s, s->user_s);
	side_row(f, "sys (s)", r, "%.3f", c->sys_s, s->sys_s);
	snprintf(label, sizeof(label), "user us per %s", r->wl->unit);
	side_row(f, label, r, "%.2f", result_cpu_us_per(c->user_s, 0, n), result_cpu_us_per(s->user_s, 0, n));
	snprintf(label, sizeof(label), "sys us per %s", r->wl->unit);
	side_row(f, label, r, "%.2f", result_cpu_us_per(0, c->sys_s, n), result_cpu_us_per(0, s->sys_s, n));
	snprintf(label, sizeof(label), "CPU us per %s", r->wl->unit);
	side_row(f, label, r, "%.2f", result_cpu_us_per(c->user_s, c->sys_s, n),
		 result_cpu_us_per(s->user_s, s->sys_s, n));
	if (c->c.syscalls || s->c.syscalls) {
		snprintf(label, sizeof(label), "syscalls per %s", r->wl->unit);
		side_row(f, label, r, "%.2f", n > 0 ? (double)c->c.syscalls / n : 0,
			 n > 0 ? (double)s->c.syscalls / n : 0);
	}
	if (!is_udp(r) && r->wl->units) {
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
}

static void table_kernel(const struct result *r, FILE *f)
{
	struct kernel_pair p[MAX_PAIRS];

	if (r->machine_ok)
		fprintf(f, "\n  machine CPU: user %.1f%%  system %.1f%%  softirq %.1f%%  irq %.1f%%  "
			   "idle %.1f%%  steal %.1f%%\n",
			r->machine.user, r->machine.system, r->machine.softirq, r->machine.irq,
			r->machine.idle, r->machine.steal);
	if (!r->kernel_ok)
		return;
	int np = r->wl->kernel_pairs(r, p);

	fprintf(f, "\n  kernel counters over the window (%s)\n",
		r->server_local ? "client and server on this machine" : "this machine: client side");
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

static void table_latency(FILE *f, const char *label, const struct hist *h)
{
	fprintf(f, "  %-28s min %.1f  mean %.1f  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f\n",
		label, h->count ? (double)h->min / 1e3 : 0, hist_mean(h) / 1e3,
		(double)hist_percentile(h, 50) / 1e3, (double)hist_percentile(h, 90) / 1e3,
		(double)hist_percentile(h, 99) / 1e3, (double)hist_percentile(h, 99.9) / 1e3,
		(double)h->max / 1e3);
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
	if (r->wl->headline) {
		r->wl->headline(r, f, NULL);
		table_sides(r, f);
		table_kernel(r, f);
		table_profile(r, f);
		return;
	}
	fprintf(f, "  %-28s %14llu  (%.0f/s)\n", label, (unsigned long long)c->transactions,
		result_per_s(c->transactions, r->duration_s));
	if (is_udp(r)) {
		fprintf(f, "  %-28s %14.0f\n", "packets/s (server recvmsg)", packets_per_s(r));
		fprintf(f, "  %-28s %14llu  late %llu\n", "lost (unanswered)",
			(unsigned long long)c->lost, (unsigned long long)c->late);
	} else {
		fprintf(f, "  %-28s %14llu\n", "bytes received", (unsigned long long)c->rx_bytes);
	}
	snprintf(label, sizeof(label), "%s (us)", r->wl->latency_label);
	table_latency(f, label, r->lat);
	if (r->lat2->count)
		table_latency(f, "connect() (us)", r->lat2);
	table_sides(r, f);
	table_kernel(r, f);
	table_profile(r, f);
}
