/* json.c: a run's result as the versioned JSON document (docs/json.md). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/out.h"
#include "report/out_priv.h"
#include "measure/tcp_info_sum.h"

#ifndef SB_VERSION
#define SB_VERSION "unknown"
#endif

static cJSON *errors_json(const struct side_counters *c)
{
	cJSON *j = cJSON_CreateObject();

	for (int k = 0; k < ERR_KINDS; k++)
		cJSON_AddNumberToObject(j, err_kind_names[k], (double)c->err[k]);
	return j;
}

/* The side's user-space memory, where its processes read it: peak and resident at the end of
 * the window, resident before the flows were opened, and (SHOWS_FLOW_MEMORY) what the flows
 * took each: (peak - before) / flows, in bytes. */
static void add_memory(cJSON *j, const struct side_result *s, const struct result *r)
{
	if (s->vm_hwm_kb <= 0)
		return;
	cJSON_AddNumberToObject(j, "vm_hwm_kb", s->vm_hwm_kb);
	cJSON_AddNumberToObject(j, "vm_rss_kb", s->vm_rss_kb);
	cJSON_AddNumberToObject(j, "memory_before_kb", s->mem_before_kb);
	if (r->cfg && (r->wl->shows & SHOWS_FLOW_MEMORY))
		cJSON_AddNumberToObject(j, "memory_per_flow",
					r3((s->vm_hwm_kb - s->mem_before_kb) * 1024 /
					   (double)(r->cfg->clients * r->cfg->flows)));
}

/* A side's time: its window, CPU (in all and per unit) and how its threads were scheduled;
 * u: the units its per-unit figures divide by. */
static void side_cpu_json(cJSON *j, const struct side_result *s, const struct result *r, double u)
{
	char key[64];

	cJSON_AddNumberToObject(j, "real_s", r6(r->duration_s));
	if (s->window_max_s > 0) {
		cJSON *w = cJSON_CreateObject();

		cJSON_AddNumberToObject(w, "min", r6(s->window_min_s));
		cJSON_AddNumberToObject(w, "max", r6(s->window_max_s));
		cJSON_AddItemToObject(j, "window_s", w);
	} else {
		cJSON_AddNullToObject(j, "window_s");
	}
	cJSON_AddNumberToObject(j, "user_s", r6(s->user_s));
	cJSON_AddNumberToObject(j, "sys_s", r6(s->sys_s));
	cJSON_AddNumberToObject(j, "cpu_us_per_unit", r3(result_cpu_us_per(s->user_s, s->sys_s, u)));
	cJSON_AddNumberToObject(j, "user_us_per_unit", r3(result_cpu_us_per(s->user_s, 0, u)));
	cJSON_AddNumberToObject(j, "sys_us_per_unit", r3(result_cpu_us_per(0, s->sys_s, u)));
	if (out_per_transaction(r))
		cJSON_AddNumberToObject(j, "cpu_us_per_transaction",
					r3(result_cpu_us_per(s->user_s, s->sys_s, u)));
	if (strcmp(r->wl->unit, "transaction")) {
		snprintf(key, sizeof(key), "cpu_us_per_%s", r->wl->unit);
		cJSON_AddNumberToObject(j, key, r3(result_cpu_us_per(s->user_s, s->sys_s, u)));
		snprintf(key, sizeof(key), "user_us_per_%s", r->wl->unit);
		cJSON_AddNumberToObject(j, key, r3(result_cpu_us_per(s->user_s, 0, u)));
		snprintf(key, sizeof(key), "sys_us_per_%s", r->wl->unit);
		cJSON_AddNumberToObject(j, key, r3(result_cpu_us_per(0, s->sys_s, u)));
	}
	/* Where the work waited: how often the side slept (voluntary) and was preempted. */
	cJSON_AddNumberToObject(j, "voluntary_switches", s->vcsw);
	cJSON_AddNumberToObject(j, "involuntary_switches", s->ivcsw);
	/* How long its threads were runnable but waited for a CPU (schedstat run delay). */
	cJSON_AddNumberToObject(j, "run_delay_s", r6(s->run_delay_s));
	cJSON_AddNumberToObject(j, "voluntary_switches_per_unit",
				u > 0 || isnan(u) ? r3(s->vcsw / u) : 0);
	cJSON_AddNumberToObject(j, "involuntary_switches_per_unit",
				u > 0 || isnan(u) ? r3(s->ivcsw / u) : 0);
}

/* A side's traffic: packets, bytes, connections and system calls (per unit too), and the
 * TCP_INFO counts of a workload that reads them. */
static void side_counts_json(cJSON *j, const struct side_result *s, const struct result *r,
			     double u)
{
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
				u > 0 || isnan(u) ? r3((double)s->c.syscalls / u) : 0);
	if (out_per_transaction(r))
		cJSON_AddNumberToObject(j, "syscalls_per_transaction",
					u > 0 || isnan(u) ? r3((double)s->c.syscalls / u) : 0);
	if (r->wl->tcp_info_every) {
		/* Over the window: only a workload that reads TCP_INFO at both edges has these. */
		bool edges = r->wl->shows & SHOWS_TCP_INFO_EDGES;

		cJSON_AddItemToObject(j, "retransmits", edges ? cJSON_CreateNumber((double)s->c.retrans)
							      : cJSON_CreateNull());
		cJSON_AddItemToObject(j, "segments_sent", edges ? cJSON_CreateNumber((double)s->c.segs_out)
								: cJSON_CreateNull());
		cJSON_AddItemToObject(j, "tcp_info",
				      tcp_info_sum_json(&s->c, &s->ti, r->wl->tcp_info_every));
	}
}

static cJSON *side_json(const struct side_result *s, const struct result *r)
{
	if (!s->present)
		return cJSON_CreateNull();
	cJSON *j = cJSON_CreateObject();
	double u = result_side_units(r, s == &r->server);

	cJSON_AddNumberToObject(j, "processes", s->processes);
	cJSON_AddItemToObject(j, "socket", knobs_seen_to_json(&s->sock));
	if (isnan(u)) /* the per-unit figures below are null, and this is why */
		cJSON_AddStringToObject(j, "per_unit_withheld", r->server_units_withheld);
	side_cpu_json(j, s, r, u);
	side_counts_json(j, s, r, u);
	cJSON_AddNumberToObject(j, "errors", (double)s->c.errors);
	cJSON_AddItemToObject(j, "errors_by_kind", errors_json(&s->c));
	cJSON_AddNumberToObject(j, "refused", (double)s->c.refused);
	cJSON_AddNumberToObject(j, "listen_drops", (double)s->c.listen_drops);
	if (s == &r->server && (r->wl->shows & SHOWS_ACCEPT_QUEUE)) {
		cJSON *q = cJSON_AddObjectToObject(j, "accept_queue");

		cJSON_AddNumberToObject(q, "open", (double)s->c.accept_queue_open);
		cJSON_AddNumberToObject(q, "close", (double)s->c.accept_queue_close);
	}
	cJSON_AddNumberToObject(j, "unfinished", (double)s->c.unfinished);
	if (s == &r->client && (r->wl->shows & SHOWS_IDLE_FLOWS))
		cJSON_AddNumberToObject(j, "idle_flows", (double)s->c.idle_flows);
	add_memory(j, s, r);
	return j;
}

/* What shaped the figures: this host's environment, the steal time the window saw, and the
 * agent's own environment when it ran elsewhere (null when not collected). */
static cJSON *env_json(const struct result *r)
{
	if (!r->env)
		return cJSON_CreateNull();
	cJSON *e = cJSON_Duplicate(r->env, true);
	cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "virtualization");

	if (v && r->machine_ok)
		cJSON_AddNumberToObject(v, "steal_pct_in_window", r3(r->machine.steal));
	else if (v)
		cJSON_AddNullToObject(v, "steal_pct_in_window");
	if (r->agent_env)
		cJSON_AddItemToObject(e, "agent", cJSON_Duplicate(r->agent_env, true));
	return e;
}

/* Where the window's softirq work ran, in seconds of all CPUs and per unit: inline (in a
 * syscall that re-enabled it, or on the way out of an interrupt, often on an idle CPU) and
 * in the ksoftirqd threads. With --profile, profile.modes splits the inline part further. */
static cJSON *softirq_json(const struct result *r)
{
	if (r->softirq_inline_s < 0)
		return cJSON_CreateNull();
	cJSON *j = cJSON_CreateObject();
	double u = result_units(r);

	cJSON_AddNumberToObject(j, "inline_s", r6(r->softirq_inline_s));
	cJSON_AddNumberToObject(j, "inline_us_per_unit", u > 0 ? r3(r->softirq_inline_s * 1e6 / u) : 0);
	if (r->softirq_ksoftirqd_s >= 0) {
		cJSON_AddNumberToObject(j, "ksoftirqd_s", r6(r->softirq_ksoftirqd_s));
		cJSON_AddNumberToObject(j, "ksoftirqd_us_per_unit",
					u > 0 ? r3(r->softirq_ksoftirqd_s * 1e6 / u) : 0);
	} else {
		cJSON_AddNullToObject(j, "ksoftirqd_s");
		cJSON_AddNullToObject(j, "ksoftirqd_us_per_unit");
	}
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
	int n = out_kernel_pairs(r, p);
	const char *missing = out_pairs_missing(r);
	cJSON *j = cJSON_CreateObject(), *c = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "scope", r->nhosts ? "this host's clients"
					    : r->server_local ? "client+server" : "client");
	for (int i = 0; i < n; i++) {
		cJSON *e = cJSON_CreateObject();
		int64_t k = kstat_snmp_get(&r->kernel, p[i].name);

		cJSON_AddNumberToObject(e, "ours", (double)p[i].ours);
		cJSON_AddNumberToObject(e, "kernel", (double)k);
		if (missing) /* ours lack a side's counts: no difference to state */
			cJSON_AddNullToObject(e, "diff_pct");
		else
			cJSON_AddNumberToObject(e, "diff_pct",
						r3(result_diff_pct(p[i].ours, (uint64_t)k)));
		cJSON_AddItemToObject(c, p[i].name, e);
	}
	cJSON_AddItemToObject(j, "counters", c);
	if (r->kread_open_us >= 0 && r->kread_close_us >= 0) {
		cJSON *l = cJSON_AddObjectToObject(j, "read_after_edge_us");

		cJSON_AddNumberToObject(l, "open", r3(r->kread_open_us));
		cJSON_AddNumberToObject(l, "close", r3(r->kread_close_us));
	}
	return j;
}

/* --clients-on: one entry per client host, each as it measured itself. */
static cJSON *hosts_json(const struct result *r)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; i < r->nhosts; i++) {
		const struct host_result *h = &r->hosts[i];
		struct kernel_pair p[MAX_PAIRS];
		cJSON *e = cJSON_CreateObject(), *k = cJSON_CreateObject();
		double u = out_host_units(r, h);

		cJSON_AddStringToObject(e, "host", h->name);
		cJSON_AddBoolToObject(e, "local", h->local);
		cJSON_AddBoolToObject(e, "present", h->present);
		cJSON_AddNumberToObject(e, "clients", h->clients);
		if (h->why[0])
			cJSON_AddStringToObject(e, "why", h->why);
		if (!h->present) {
			cJSON_AddItemToArray(a, e);
			cJSON_Delete(k);
			continue;
		}
		cJSON_AddNumberToObject(e, "window_s", r3(h->window_s));
		cJSON_AddNumberToObject(e, "units", r3(u));
		cJSON_AddNumberToObject(e, "rate", r3(h->window_s > 0 ? u / h->window_s : 0));
		cJSON_AddNumberToObject(e, "cpu_us_per_unit",
					r3(result_cpu_us_per(h->side.user_s, h->side.sys_s, u)));
		cJSON_AddNumberToObject(e, "syscalls_per_unit",
					r3(u > 0 ? (double)h->side.c.syscalls / u : 0));
		cJSON_AddNumberToObject(e, "user_s", r3(h->side.user_s));
		cJSON_AddNumberToObject(e, "sys_s", r3(h->side.sys_s));
		cJSON_AddNumberToObject(e, "latency_p50_us", r3((double)h->p50_ns / 1e3));
		cJSON_AddNumberToObject(e, "latency_p99_us", r3((double)h->p99_ns / 1e3));
		cJSON_AddItemToObject(e, "counters", side_counters_to_json(&h->side.c));
		int n = out_host_pairs(r, h, p);

		for (int i2 = 0; i2 < n; i2++) {
			int64_t v = kstat_snmp_get(&h->kernel, p[i2].name);
			cJSON *c = cJSON_CreateObject();

			if (v < 0) {
				cJSON_Delete(c);
				continue;
			}
			cJSON_AddNumberToObject(c, "ours", (double)p[i2].ours);
			cJSON_AddNumberToObject(c, "kernel", (double)v);
			cJSON_AddNumberToObject(c, "diff_pct", r3(result_diff_pct(p[i2].ours, (uint64_t)v)));
			cJSON_AddItemToObject(k, p[i2].name, c);
		}
		cJSON_AddItemToObject(e, "kernel_check", k);
		cJSON_AddItemToArray(a, e);
	}
	return a;
}

/* A workload's headline members (result.h) into the document. */
static void headline_json(cJSON *j, const struct headline *h)
{
	for (int i = 0; i < h->nkeys; i++) {
		const char *path = h->key[i].path, *dot = strchr(path, '.');
		double v = h->key[i].value, scale = pow(10, h->key[i].decimals);
		cJSON *obj = j;
		char head[64];

		if (dot) {
			snprintf(head, sizeof(head), "%.*s", (int)(dot - path), path);
			obj = cJSON_GetObjectItemCaseSensitive(j, head);
			if (!obj)
				obj = cJSON_AddObjectToObject(j, head);
			path = dot + 1;
		}
		if (isnan(v))
			cJSON_AddNullToObject(obj, path);
		else if (h->key[i].kind == HK_BOOL)
			cJSON_AddBoolToObject(obj, path, v != 0);
		else if (h->key[i].kind == HK_TEXT)
			cJSON_AddStringToObject(obj, path, h->key[i].text);
		else
			cJSON_AddNumberToObject(obj, path,
						h->key[i].decimals < 0 ? v : round(v * scale) / scale);
	}
}

static void add_headline(cJSON *j, const struct result *r)
{
	const struct side_counters *c = &r->client.c;
	char key[64];

	cJSON_AddStringToObject(j, "unit", r->wl->unit);
	cJSON_AddNumberToObject(j, "rate", r3(result_rate(r)));
	if (out_per_transaction(r)) {
		cJSON_AddNumberToObject(j, "transactions", (double)c->transactions);
		cJSON_AddNumberToObject(j, "transactions_per_s",
					r3(result_per_s(c->transactions, r->duration_s)));
	}
	if (strcmp(r->wl->unit, "transaction")) {
		snprintf(key, sizeof(key), "%ss", r->wl->unit);
		cJSON_AddNumberToObject(j, key, r3(result_units(r)));
		snprintf(key, sizeof(key), "%ss_per_s", r->wl->unit);
		cJSON_AddNumberToObject(j, key, r3(result_rate(r)));
	}
	if (out_is_udp(r) && !cJSON_HasObjectItem(j, "packets_per_s"))
		cJSON_AddNumberToObject(j, "packets_per_s", r3(out_packets_per_s(r)));
	if (r->wl->headline) {
		struct headline h = {.nrows = 0};

		r->wl->headline(r, &h);
		headline_json(j, &h);
	}
	if (out_per_transaction(r)) { /* the client's view; streams have their own headline */
		cJSON_AddNumberToObject(j, "bytes_received", (double)c->rx_bytes);
		cJSON_AddNumberToObject(j, "lost", (double)c->lost);
		cJSON_AddNumberToObject(j, "late", (double)c->late);
	}
	cJSON_AddNumberToObject(j, "errors", (double)(c->errors + r->server.c.errors));
	if (out_per_transaction(r)) {
		/* Every request of the window that got no answer (timed out, failed, or still
		 * unanswered when the drain ended), as a share of all of them. */
		cJSON_AddNumberToObject(j, "loss_pct", r->lat->count ? r6(100.0 * (double)r->lat->censored /
								      (double)r->lat->count) : 0);
		cJSON_AddItemToObject(j, "latency_us", out_latency_json(r->lat));
	}
	if (r->lat2->count) /* open loop (--rate): each answer timed from its actual send */
		cJSON_AddItemToObject(j, result_open_loop(r) ? "service_latency_us" : "connect_latency_us",
				      out_latency_json(r->lat2));
}

/* What the workload's "auto" options resolved to, and why (workload.choices). */
static void json_choices(cJSON *config, const struct result *r)
{
	struct choice ch[CHOICES_MAX];
	int n = r->wl->choices ? r->wl->choices(r->cfg, r, ch) : 0;

	for (int i = 0; i < n && config; i++)
		cJSON_AddStringToObject(config, ch[i].key, ch[i].value);
}

struct cJSON *out_result_json(const struct result *r)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddNumberToObject(j, "schema", RESULT_SCHEMA);
	cJSON_AddStringToObject(j, "tool", "sockbench");
	cJSON_AddStringToObject(j, "version", SB_VERSION);
	cJSON_AddStringToObject(j, "workload", r->wl->name);
	cJSON_AddItemToObject(j, "config", opts_to_json(r->wl->opts, r->cfg));
	knobs_seen_config(cJSON_GetObjectItemCaseSensitive(j, "config"), &r->client.sock);
	json_choices(cJSON_GetObjectItemCaseSensitive(j, "config"), r);
	cJSON_AddBoolToObject(j, "partial", r->partial);
	if (r->partial)
		cJSON_AddStringToObject(j, "partial_reason", r->partial_reason);
	else
		cJSON_AddNullToObject(j, "partial_reason");
	cJSON_AddNumberToObject(j, "duration_s", r6(r->duration_s));
	cJSON_AddNumberToObject(j, "warmup_s", r3(r->warmup_s));
	if (r->wl->drains && r->drain_s >= 0) /* the drain after the window (workload.h) */
		cJSON_AddNumberToObject(j, "drain_s", r6(r->drain_s));
	else if (r->wl->drains) /* none: interrupted, a count-based window, or fanned out */
		cJSON_AddNullToObject(j, "drain_s");
	add_headline(j, r);
	cJSON *sides = cJSON_AddObjectToObject(j, "sides");

	cJSON_AddItemToObject(sides, "client", side_json(&r->client, r));
	cJSON_AddItemToObject(sides, "server", side_json(&r->server, r));
	cJSON_AddItemToObject(j, "machine_cpu",
			      r->machine_ok ? machine_json(&r->machine) : cJSON_CreateNull());
	cJSON_AddItemToObject(j, "softirq", softirq_json(r));
	if (r->kernel_ok) {
		cJSON *k = cJSON_AddObjectToObject(j, "kernel");

		for (int i = 0; i < r->kernel.n; i++)
			cJSON_AddNumberToObject(k, r->kernel.name[i], (double)r->kernel.v[i]);
		cJSON_AddItemToObject(j, "kernel_check", kernel_check_json(r));
	} else {
		cJSON_AddNullToObject(j, "kernel");
	}
	if (r->nhosts) {
		cJSON *w = cJSON_AddObjectToObject(j, "window_skew_ms");

		cJSON_AddNumberToObject(w, "open", r3(r->skew_open_ms));
		cJSON_AddNumberToObject(w, "close", r3(r->skew_close_ms));
		cJSON_AddNumberToObject(w, "uncertainty", r3(r->skew_err_ms));
		cJSON_AddItemToObject(j, "hosts", hosts_json(r));
	}
	if (r->nseries) {
		cJSON *s = cJSON_AddObjectToObject(j, "rate_over_window"), *pts;

		cJSON_AddStringToObject(s, "what", "payload Gbit/s the clients sent and received");
		cJSON_AddNumberToObject(s, "step_s", r3(r->series_step_s));
		pts = cJSON_AddArrayToObject(s, "points");
		for (int i = 0; i < r->nseries; i++) {
			double pt[2] = {r3(r->series_t[i]), r6(r->series_gbit[i])};

			cJSON_AddItemToArray(pts, cJSON_CreateDoubleArray(pt, 2));
		}
	}
	out_intervals_json(r, j);
	cJSON_AddItemToObject(j, "environment", env_json(r));
	if (r->trace)
		cJSON_AddItemToObject(j, "trace", cJSON_Duplicate(r->trace, true));
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
