/* tcp_info_sum.c: see tcp_info_sum.h. */
#include "measure/tcp_info_sum.h"

#include <cjson/cJSON.h>
#include <math.h>

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

cJSON *tcp_info_sum_json(const struct side_counters *c, int every)
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
	return j;
}
