/* fanout_collect.c: --clients-on, at the end: each client host's RESULT (past its last
 * STATEs), merged with this host's clients: counts and CPU summed, latency histograms bucket
 * by bucket, and how far apart the hosts' windows opened and closed. It uses fanout.c's link
 * to the hosts and the run's state; only run.c calls it.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/safe_json.h"
#include "base/util.h"
#include "link/ctl.h"
#include "measure/tcp_info_sum.h"
#include "run/fanout.h"
#include "run/fanout_collect.h"

static double num(const cJSON *j, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(j, key);

	return cJSON_IsNumber(it) ? it->valuedouble : 0;
}

/* The host's own kernel counters and latency percentiles, from its RESULT. *bad: why a latency
 * histogram in it was refused (hist_decode), else left as it was. */
static bool take_host_result(struct run *r, struct host_result *hr, const char *payload,
			     const char **bad)
{
	cJSON *j = cJSON_Parse(payload);
	const cJSON *k, *it;
	struct hist *lat = xmalloc(sizeof(*lat)), *lat2 = xmalloc(sizeof(*lat2));
	bool ok = j && safe_json_tree(j) == 0 && /* its words: safe text before any output */
		  side_counters_from_json(cJSON_GetObjectItemCaseSensitive(j, "counters"),
					       &hr->side.c) == 0 &&
		  knobs_seen_from_json(cJSON_GetObjectItemCaseSensitive(j, "socket"),
				       &hr->side.sock) == 0;

	hist_reset(lat);
	hist_reset(lat2);
	if (ok) {
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, "lat");
		const cJSON *l2 = cJSON_GetObjectItemCaseSensitive(j, "lat2");

		if ((cJSON_IsString(l) && hist_decode(lat, l->valuestring, bad)) ||
		    (cJSON_IsString(l2) && hist_decode(lat2, l2->valuestring, bad)))
			ok = false;
	}
	if (ok) {
		hr->present = true;
		hr->side.present = true;
		hr->side.processes = (int)num(j, "processes");
		hr->side.user_s = num(j, "user_s");
		hr->side.sys_s = num(j, "sys_s");
		hr->side.vcsw = num(j, "voluntary_switches");
		hr->side.ivcsw = num(j, "involuntary_switches");
		hr->side.mem_before_kb = num(j, "memory_before_kb");
		hr->side.vm_hwm_kb = num(j, "vm_hwm_kb");
		hr->side.vm_rss_kb = num(j, "vm_rss_kb");
		tcp_info_sum_get_dist(j, &hr->side.ti);
		hr->window_s = num(j, "window_s");
		side_window_add(&hr->side, hr->window_s);
		hr->p50_ns = hist_percentile(lat, 50);
		hr->p99_ns = hist_percentile(lat, 99);
		hist_merge(r->res.lat, lat);
		hist_merge(r->res.lat2, lat2);
		k = cJSON_GetObjectItemCaseSensitive(j, "kernel");
		hr->kernel_ok = cJSON_IsObject(k);
		cJSON_ArrayForEach(it, k)
		{
			if (hr->kernel.n < SNMP_MAX && cJSON_IsNumber(it)) {
				snprintf(hr->kernel.name[hr->kernel.n], sizeof(hr->kernel.name[0]),
					 "%s", it->string);
				hr->kernel.v[hr->kernel.n++] = (uint64_t)it->valuedouble;
			}
		}
		/* Clients that sent nothing, or latencies that could not come: the run is not whole. */
		bool dropped = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "latency_dropped"));

		if (num(j, "missing") > 0 || dropped) {
			if (dropped)
				snprintf(hr->why, sizeof(hr->why), "the client host %.100s: its latencies "
					 "did not fit its result", hr->name);
			else
				snprintf(hr->why, sizeof(hr->why), "the client host %.100s: %.0f of its "
					 "clients sent no result", hr->name, num(j, "missing"));
			mark_partial(r, hr->why);
			withhold_server_units(r, hr->name);
		}
	}
	cJSON_Delete(j);
	free(lat);
	free(lat2);
	return ok;
}

static void add_side(struct side_result *to, const struct side_result *s)
{
	to->present |= s->present;
	to->processes += s->processes;
	to->user_s += s->user_s;
	to->sys_s += s->sys_s;
	to->vcsw += s->vcsw;
	to->ivcsw += s->ivcsw;
	to->mem_before_kb += s->mem_before_kb;
	to->vm_hwm_kb += s->vm_hwm_kb;
	to->vm_rss_kb += s->vm_rss_kb;
	if (s->window_max_s > 0) {
		side_window_add(to, s->window_min_s);
		side_window_add(to, s->window_max_s);
	}
	side_counters_add(&to->c, &s->c);
	knobs_seen_merge(&to->sock, &s->sock);
	tcp_info_dist_merge(&to->ti, &s->ti);
}

void hosts_collect(struct run *r, const struct side_result *local, const struct hist *lat,
		   const struct hist *lat2)
{
	struct result *res = &r->res;
	int n = r->nhosts + r->local_part;
	double lo_open = 0, hi_open = 0, lo_close = 0, hi_close = 0, err = 0;
	bool first = true;

	res->hosts = xcalloc((size_t)n, sizeof(*res->hosts));
	res->nhosts = n;
	res->client = (struct side_result){0};
	hist_reset(res->lat);
	hist_reset(res->lat2);
	if (r->local_part) {
		struct host_result *hr = &res->hosts[0];

		snprintf(hr->name, sizeof(hr->name), "local");
		hr->local = true;
		hr->present = local->present;
		hr->clients = (int)r->local_o.clients;
		hr->side = *local;
		hr->window_s = ns_to_s(r->t_close - r->t_open);
		hr->p50_ns = hist_percentile(lat, 50);
		hr->p99_ns = hist_percentile(lat, 99);
		hr->kernel_ok = res->kernel_ok;
		hr->kernel = res->kernel;
		hist_merge(res->lat, lat);
		hist_merge(res->lat2, lat2);
		add_side(&res->client, local);
		lo_open = hi_open = 0;
		lo_close = hi_close = ns_to_s(r->t_close - r->t_open) * 1e3;
		first = false;
	}
	for (int k = 0; k < r->nhosts; k++) {
		struct remote_host *h = &r->hosts[k];
		struct host_result *hr = &res->hosts[k + r->local_part];
		const char *bad = NULL;
		unsigned type = 0;
		int ret = -EPIPE;

		snprintf(hr->name, sizeof(hr->name), "%s", h->name);
		hr->clients = h->clients;
		if (!h->gone) {
			for (int left = 1000; left > 0; left--) {
				ret = host_recv(r, h, &type, REPORT_MS);
				if (ret < 0 || type != CTL_MSG_STATE)
					break;
			}
		}
		if (!h->gone && ret == 0 && type == CTL_MSG_RESULT &&
		    take_host_result(r, hr, r->buf, &bad)) {
			add_side(&res->client, &hr->side);
			ctl_send(h->ctl, CTL_MSG_BYE, NULL, 0);
		} else {
			if (!h->gone && bad)
				host_gone(r, h, "sent a latency histogram that cannot be: %s", bad);
			else if (!h->gone)
				host_gone(r, h, "%s", "sent no result");
			snprintf(hr->why, sizeof(hr->why), "%s", h->why);
			mark_partial(r, hr->why);
			continue;
		}
		if (!h->began)
			continue;
		/* Its window opened between our BEGIN and its ACK, and lasted its window_s. */
		double open =
		    ((double)h->begin_sent + (double)h->begin_acked) / 2 - (double)r->t_open;
		double e = ((double)h->begin_acked - (double)h->begin_sent) / 2;

		open /= 1e6;
		double close = open + hr->window_s * 1e3;

		if (first || open < lo_open)
			lo_open = open;
		if (first || open > hi_open)
			hi_open = open;
		if (first || close < lo_close)
			lo_close = close;
		if (first || close > hi_close)
			hi_close = close;
		err = e / 1e6 > err ? e / 1e6 : err;
		first = false;
	}
	res->skew_open_ms = hi_open - lo_open;
	res->skew_close_ms = hi_close - lo_close;
	res->skew_err_ms = err;
}
