/* tcp_info_sum.c: see tcp_info_sum.h. */
#include "measure/tcp_info_sum.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double mean(uint64_t sum, uint64_t n)
{
	return round((double)sum / (double)n * 10) / 10; /* 0.1 of the unit: TCP_INFO's are whole */
}

static cJSON *three(double lo, double avg, double hi)
{
	cJSON *j = cJSON_CreateObject();

	if (!isnan(lo))
		cJSON_AddNumberToObject(j, "min", lo);
	cJSON_AddNumberToObject(j, "mean", avg);
	if (!isnan(hi))
		cJSON_AddNumberToObject(j, "max", hi);
	return j;
}

/* p50, p90, p99 of one figure (and its max, where the sums keep none). */
static void add_pct(cJSON *j, const char *key, const struct tcp_info_hist *h)
{
	cJSON *o = cJSON_GetObjectItemCaseSensitive(j, key);

	cJSON_AddNumberToObject(o, "p50", tcp_info_dist_pct(h, 50));
	cJSON_AddNumberToObject(o, "p90", tcp_info_dist_pct(h, 90));
	cJSON_AddNumberToObject(o, "p99", tcp_info_dist_pct(h, 99));
	if (!cJSON_HasObjectItem(o, "max"))
		cJSON_AddNumberToObject(o, "max", h->max);
}

cJSON *tcp_info_sum_json(const struct side_counters *c, const struct tcp_info_dist *d,
			 int every)
{
	uint64_t n = c->ti_conns;
	cJSON *j;

	if (!n)
		return cJSON_CreateNull();
	j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "connections", (double)n);
	cJSON_AddNumberToObject(j, "sample_every", every);
	cJSON_AddItemToObject(j, "rtt_us", three((double)c->ti_rtt_min, mean(c->ti_rtt_sum, n),
						  (double)c->ti_rtt_max));
	cJSON_AddItemToObject(j, "rttvar_us", three(NAN, mean(c->ti_rttvar_sum, n), NAN));
	cJSON_AddItemToObject(j, "min_rtt_us", three((double)c->ti_minrtt_min,
						      mean(c->ti_minrtt_sum, n), NAN));
	cJSON_AddItemToObject(j, "cwnd", three((double)c->ti_cwnd_min, mean(c->ti_cwnd_sum, n),
						(double)c->ti_cwnd_max));
	cJSON_AddItemToObject(j, "delivery_rate_bytes_per_s",
			      three(NAN, mean(c->ti_rate_sum, n), (double)c->ti_rate_max));
	cJSON_AddNumberToObject(j, "retransmits", (double)c->ti_retrans);
	if (d && tcp_info_dist_count(d) == n)
		for (int f = 0; f < TI_FIGS; f++)
			add_pct(j, tcp_info_dist_names[f], &d->h[f]);
	return j;
}

void tcp_info_sum_put_dist(cJSON *j, const struct tcp_info_dist *d)
{
	char *txt;

	if (!tcp_info_dist_count(d))
		return;
	txt = malloc(TCP_INFO_DIST_TEXT_MAX);
	if (!txt)
		return;
	tcp_info_dist_encode(d, txt, TCP_INFO_DIST_TEXT_MAX);
	cJSON_AddStringToObject(j, "tcp_info_dist", txt);
	free(txt);
}

void tcp_info_sum_get_dist(const cJSON *j, struct tcp_info_dist *d)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(j, "tcp_info_dist");

	if (!cJSON_IsString(it) || tcp_info_dist_decode(d, it->valuestring))
		memset(d, 0, sizeof(*d));
}
