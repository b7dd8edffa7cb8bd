/* figures.c: the table of figures (figures.h), and reading them from a result document. A
 * figure is read from the JSON document, so live runs (whose documents come back from their
 * child process) and saved files (compare a.json b.json) go through the same code. */
#include "report/figures.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "workload/workload.h"

const struct figure_def figures[NFIGURES] = {
	[FIG_RATE] = {"rate", "%ss/s", "rate", "transactions_per_s", true},
	[FIG_GBIT] = {"gbit_per_s", "Gbit/s", "gbit_per_s", NULL, true},
	[FIG_PACKETS_SENT] = {"packets_sent_per_s", "packets sent/s", "packets_sent_per_s", NULL, true},
	[FIG_LOSS] = {"loss_pct", "loss (%%)", "loss_pct", NULL, false},
	[FIG_P50] = {"latency_p50_us", "latency p50 (us)", "latency_us.p50", NULL, false},
	[FIG_P90] = {"latency_p90_us", "latency p90 (us)", "latency_us.p90", NULL, false},
	[FIG_P99] = {"latency_p99_us", "latency p99 (us)", "latency_us.p99", NULL, false},
	[FIG_P999] = {"latency_p999_us", "latency p99.9 (us)", "latency_us.p999", NULL, false},
	[FIG_P9999] = {"latency_p9999_us", "latency p99.99 (us)", "latency_us.p9999", NULL, false},
	[FIG_CONNECT_P50] = {"connect_p50_us", "connect() p50 (us)", "connect_latency_us.p50", NULL, false},
	[FIG_CLIENT_CPU] = {"client_cpu_us", "client CPU us/%s", "sides.client.cpu_us_per_unit",
	 "sides.client.cpu_us_per_transaction", false},
	[FIG_SERVER_CPU] = {"server_cpu_us", "server CPU us/%s", "sides.server.cpu_us_per_unit",
	 "sides.server.cpu_us_per_transaction", false},
	[FIG_CLIENT_USER_US] = {"client_user_us", "client user us/connection", "sides.client.user_us_per_connection", NULL, false},
	[FIG_CLIENT_SYS_US] = {"client_sys_us", "client sys us/connection", "sides.client.sys_us_per_connection", NULL, false},
	[FIG_SERVER_USER_US] = {"server_user_us", "server user us/connection", "sides.server.user_us_per_connection", NULL, false},
	[FIG_SERVER_SYS_US] = {"server_sys_us", "server sys us/connection", "sides.server.sys_us_per_connection", NULL, false},
	[FIG_CLIENT_USER_S] = {"client_user_s", "client user (s)", "sides.client.user_s", NULL, false},
	[FIG_CLIENT_SYS_S] = {"client_sys_s", "client sys (s)", "sides.client.sys_s", NULL, false},
	[FIG_SERVER_USER_S] = {"server_user_s", "server user (s)", "sides.server.user_s", NULL, false},
	[FIG_SERVER_SYS_S] = {"server_sys_s", "server sys (s)", "sides.server.sys_s", NULL, false},
	[FIG_CLIENT_SYSCALLS] = {"client_syscalls", "client syscalls/%s", "sides.client.syscalls_per_unit",
	 "sides.client.syscalls_per_transaction", false},
	[FIG_SERVER_SYSCALLS] = {"server_syscalls", "server syscalls/%s", "sides.server.syscalls_per_unit",
	 "sides.server.syscalls_per_transaction", false},
	[FIG_RETRANS] = {"retransmits", "retransmits", "retransmits", NULL, false},
	[FIG_CLIENT_VCSW] = {"client_sleeps", "client sleeps/%s", "sides.client.voluntary_switches_per_unit", NULL, false},
	[FIG_SERVER_VCSW] = {"server_sleeps", "server sleeps/%s", "sides.server.voluntary_switches_per_unit", NULL, false},
	[FIG_CLIENT_IVCSW] = {"client_preempted", "client preempted/%s", "sides.client.involuntary_switches_per_unit", NULL, false},
	[FIG_SERVER_IVCSW] = {"server_preempted", "server preempted/%s", "sides.server.involuntary_switches_per_unit", NULL, false},
	[FIG_SOFTIRQ_INLINE] = {"softirq_inline_us", "softirq inline us/%s", "softirq.inline_us_per_unit", NULL, false},
	[FIG_SOFTIRQ_KSOFTIRQD] = {"softirq_ksoftirqd_us", "softirq in ksoftirqd us/%s", "softirq.ksoftirqd_us_per_unit", NULL, false},
	[FIG_CLIENT_MEM_PER_FLOW] = {"client_mem_per_flow", "client memory/flow (B)", "sides.client.memory_per_flow", NULL, false},
	[FIG_SERVER_MEM_PER_FLOW] = {"server_mem_per_flow", "server memory/flow (B)", "sides.server.memory_per_flow", NULL, false},
};
const int nfigures = NFIGURES;

double json_path(const cJSON *doc, const char *path)
{
	char key[64];
	const char *p = path;
	const cJSON *it = doc;

	while (it && *p) {
		size_t n = strcspn(p, ".");

		snprintf(key, sizeof(key), "%.*s", (int)n, p);
		it = cJSON_GetObjectItemCaseSensitive(it, key);
		p += n + (p[n] == '.');
	}
	return cJSON_IsNumber(it) ? it->valuedouble : NAN;
}

double figure_of(const cJSON *doc, int f)
{
	double v = json_path(doc, figures[f].path);

	return isnan(v) && figures[f].alt ? json_path(doc, figures[f].alt) : v;
}

const char *figure_key(int f, const struct workload *wl)
{
	return f == 0 && wl && !wl->units ? "transactions_per_s" : figures[f].key;
}

const char *figure_label(int f, const struct workload *wl, char *buf, size_t len)
{
	snprintf(buf, len, figures[f].label, wl ? wl->unit : "transaction");
	return buf;
}

void figures_of(const cJSON *doc, double *out)
{
	for (int f = 0; f < nfigures; f++)
		out[f] = figure_of(doc, f);
}
