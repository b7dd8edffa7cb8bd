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
		side_measures_get(j, &hr->side);
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

/* How far apart the hosts' windows opened and closed (ms since ours opened): the extremes so
 * far, and the largest uncertainty of an opening. */
struct skew {
	bool any;
	double lo_open, hi_open, lo_close, hi_close, err;
};

static void skew_add(struct skew *s, double open, double close, double err)
{
	if (!s->any || open < s->lo_open)
		s->lo_open = open;
	if (!s->any || open > s->hi_open)
		s->hi_open = open;
	if (!s->any || close < s->lo_close)
		s->lo_close = close;
	if (!s->any || close > s->hi_close)
		s->hi_close = close;
	s->err = err > s->err ? err : s->err;
	s->any = true;
}

/* This host's clients (local, and their histograms), the first of the run's hosts. */
static void collect_local(struct run *r, const struct side_result *local, const struct hist *lat,
			  const struct hist *lat2)
{
	struct result *res = &r->res;
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
}

/* A client host's RESULT, past its last STATEs, into hr and the run's client side; or the
 * host gone and the run partial. Whether it came. */
static bool collect_remote(struct run *r, struct remote_host *h, struct host_result *hr)
{
	const char *bad = NULL;
	unsigned type = 0;
	int ret = -EPIPE;

	snprintf(hr->name, sizeof(hr->name), "%s", h->name);
	hr->clients = h->clients;
	if (!h->gone) {
		for (int left = 1000; left > 0; left--) {
			ret = host_recv(r, h, &type, REPORT_MS);
			/* STATE, or the drain's ACK that came after the coordinator's bound */
			if (ret < 0 || (type != CTL_MSG_STATE && type != CTL_MSG_ACK))
				break;
		}
	}
	if (!h->gone && ret == 0 && type == CTL_MSG_RESULT &&
	    take_host_result(r, hr, r->buf, &bad)) {
		add_side(&r->res.client, &hr->side);
		ctl_send(h->ctl, CTL_MSG_BYE, NULL, 0);
		return true;
	}
	if (!h->gone && bad)
		host_gone(r, h, "sent a latency histogram that cannot be: %s", bad);
	else if (!h->gone)
		host_gone(r, h, "%s", "sent no result");
	snprintf(hr->why, sizeof(hr->why), "%s", h->why);
	mark_partial(r, hr->why);
	return false;
}

void hosts_collect(struct run *r, const struct side_result *local, const struct hist *lat,
		   const struct hist *lat2)
{
	struct result *res = &r->res;
	int n = r->nhosts + r->local_part;
	struct skew sk = {0};

	res->hosts = xcalloc((size_t)n, sizeof(*res->hosts));
	res->nhosts = n;
	res->client = (struct side_result){0};
	hist_reset(res->lat);
	hist_reset(res->lat2);
	if (r->local_part) {
		collect_local(r, local, lat, lat2);
		skew_add(&sk, 0, ns_to_s(r->t_close - r->t_open) * 1e3, 0);
	}
	for (int k = 0; k < r->nhosts; k++) {
		struct remote_host *h = &r->hosts[k];
		struct host_result *hr = &res->hosts[k + r->local_part];

		if (!collect_remote(r, h, hr) || !h->began)
			continue;
		/* Its window opened between our BEGIN and its ACK, and lasted its window_s. */
		double open =
		    ((double)h->begin_sent + (double)h->begin_acked) / 2 - (double)r->t_open;
		double e = ((double)h->begin_acked - (double)h->begin_sent) / 2;

		open /= 1e6;
		skew_add(&sk, open, open + hr->window_s * 1e3, e / 1e6);
	}
	res->skew_open_ms = sk.hi_open - sk.lo_open;
	res->skew_close_ms = sk.hi_close - sk.lo_close;
	res->skew_err_ms = sk.err;
}
