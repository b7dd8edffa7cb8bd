/* json_latency.c: a latency histogram as the result document's latency_us object: its
 * figures, which of them are only lower bounds (requests with no answer are in them at their
 * wait), and its CDF for the report page (docs/json.md). */
#include <cjson/cJSON.h>
#include <math.h>

#include "measure/hist.h"
#include "report/out_priv.h"

/* The distribution for a report's CDF: [us, fraction of values at or below], the histogram's
 * buckets joined until each point is 3% past the last (a few hundred points at most), the
 * first at the minimum and the last at the maximum (fraction 1). With requests that got no
 * answer it ends below the least of their waits, at the share known exactly (below 1: the
 * rest is unanswered, or answered later than that). */
static cJSON *cdf_json(const struct hist *h)
{
	cJSON *arr = cJSON_CreateArray();
	uint64_t seen = 0, known = 0;
	double last = 0;
	unsigned stop = h->censored ? hist_index(h->cens_min) : HIST_BUCKETS;

	for (unsigned i = 0; i < stop; i++)
		known += h->buckets[i];
	if (!known)
		return arr;
	for (unsigned i = 0; i < stop && seen < known; i++) {
		if (!h->buckets[i])
			continue;
		seen += h->buckets[i];
		double v = (double)hist_bucket_mid(i);

		v = v < (double)h->min ? (double)h->min : v > (double)h->max ? (double)h->max : v;
		if (seen < known && last > 0 && v < last * 1.03)
			continue;
		double pt[2] = {r3(v / 1e3), r6((double)seen / (double)h->count)};

		cJSON_AddItemToArray(arr, cJSON_CreateDoubleArray(pt, 2));
		last = v;
	}
	return arr;
}

cJSON *out_latency_json(const struct hist *h)
{
	cJSON *j = cJSON_CreateObject();
	static const struct {
		const char *key;
		double p;
	} pct[] = {{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}, {"p9999", 99.99}};

	cJSON *bound = cJSON_CreateArray();

	cJSON_AddNumberToObject(j, "count", (double)h->count);
	cJSON_AddNumberToObject(j, "min", h->count ? r3((double)h->min / 1e3) : 0);
	cJSON_AddNumberToObject(j, "mean", r3(hist_mean(h) / 1e3));
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
		uint64_t v = hist_percentile(h, pct[i].p);

		cJSON_AddNumberToObject(j, pct[i].key, r3((double)v / 1e3));
		if (hist_at_least(h, v))
			cJSON_AddItemToArray(bound, cJSON_CreateString(pct[i].key));
	}
	cJSON_AddNumberToObject(j, "max", r3((double)h->max / 1e3));
	if (h->censored) {
		cJSON_AddItemToArray(bound, cJSON_CreateString("mean"));
		cJSON_AddItemToArray(bound, cJSON_CreateString("max"));
	}
	/* Requests with no answer are in every figure at what they waited (censored): how
	 * many, the least wait, and which figures are therefore only lower bounds. */
	cJSON_AddNumberToObject(j, "unanswered", (double)h->censored);
	cJSON_AddNumberToObject(j, "unanswered_share", h->count ? r6((double)h->censored / (double)h->count) : 0);
	if (h->censored)
		cJSON_AddNumberToObject(j, "at_least_from_us", r3((double)h->cens_min / 1e3));
	else
		cJSON_AddNullToObject(j, "at_least_from_us");
	cJSON_AddItemToObject(j, "at_least", bound);
	cJSON_AddItemToObject(j, "cdf", cdf_json(h));
	return j;
}
