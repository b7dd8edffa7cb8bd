/* result.c: the arithmetic shared by every reader of a result. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/util.h"
#include "measure/result.h"

/* A side's measures by their keys in an agent's RESULT (the keys of the run's JSON's sides). */
static const struct {
	const char *key;
	size_t at; /* offsetof(struct side_result, ...), a double */
} side_measures[] = {
	{"user_s", offsetof(struct side_result, user_s)},
	{"sys_s", offsetof(struct side_result, sys_s)},
	{"voluntary_switches", offsetof(struct side_result, vcsw)},
	{"involuntary_switches", offsetof(struct side_result, ivcsw)},
	{"run_delay_s", offsetof(struct side_result, run_delay_s)},
	{"memory_before_kb", offsetof(struct side_result, mem_before_kb)},
	{"vm_hwm_kb", offsetof(struct side_result, vm_hwm_kb)},
	{"vm_rss_kb", offsetof(struct side_result, vm_rss_kb)},
};

double result_per_s(uint64_t count, double seconds)
{
	return seconds > 0 ? (double)count / seconds : 0.0;
}

double result_cpu_us_per(double user_s, double sys_s, double count)
{
	if (isnan(count)) /* units not known (withheld): no figure, not 0 */
		return NAN;
	return count > 0 ? (user_s + sys_s) * 1e6 / count : 0.0;
}

double result_diff_pct(uint64_t ours, uint64_t kernel)
{
	if (!kernel)
		return ours ? 100.0 : 0.0;
	return 100.0 * ((double)ours - (double)kernel) / (double)kernel;
}

void headline_row(struct headline *h, const char *label, double value, int decimals,
		  const char *fmt, ...)
{
	va_list ap;

	if (h->nrows == HEADLINE_ROWS)
		return;
	h->row[h->nrows].label = label;
	h->row[h->nrows].value = value;
	h->row[h->nrows].decimals = decimals;
	h->row[h->nrows].note[0] = '\0';
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(h->row[h->nrows].note, sizeof(h->row[h->nrows].note), fmt, ap);
		va_end(ap);
	}
	h->nrows++;
}

void headline_key(struct headline *h, const char *path, double value, int decimals)
{
	if (h->nkeys == HEADLINE_KEYS)
		return;
	h->key[h->nkeys].path = path;
	h->key[h->nkeys].value = value;
	h->key[h->nkeys].decimals = decimals;
	h->key[h->nkeys].kind = HK_NUMBER;
	h->nkeys++;
}

void side_measures_put(cJSON *j, const struct side_result *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(side_measures); i++)
		cJSON_AddNumberToObject(j, side_measures[i].key,
					*(const double *)((const char *)s + side_measures[i].at));
}

void side_measures_get(const cJSON *j, struct side_result *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(side_measures); i++) {
		const cJSON *it = cJSON_GetObjectItemCaseSensitive(j, side_measures[i].key);

		*(double *)((char *)s + side_measures[i].at) = cJSON_IsNumber(it) ? it->valuedouble : 0;
	}
}

void side_window_add(struct side_result *s, double window_s)
{
	if (!(window_s > 0))
		return;
	if (s->window_max_s == 0 || window_s < s->window_min_s)
		s->window_min_s = window_s;
	if (window_s > s->window_max_s)
		s->window_max_s = window_s;
}

void headline_key_bool(struct headline *h, const char *path, bool value)
{
	headline_key(h, path, value, 0);
	if (h->nkeys && h->key[h->nkeys - 1].path == path)
		h->key[h->nkeys - 1].kind = HK_BOOL;
}

void headline_key_text(struct headline *h, const char *path, const char *text)
{
	headline_key(h, path, text ? 0 : NAN, 0);
	if (!h->nkeys || h->key[h->nkeys - 1].path != path || !text)
		return;
	h->key[h->nkeys - 1].kind = HK_TEXT;
	snprintf(h->key[h->nkeys - 1].text, sizeof(h->key[h->nkeys - 1].text), "%s", text);
}

int64_t result_recv_spin_ns(const struct result *r)
{
	const struct side_result *s[2] = {r->cfg->reverse ? NULL : &r->server,
					  r->cfg->reverse || r->cfg->bidir ? &r->client : NULL};
	int64_t seen = -1;

	for (int i = 0; i < 2; i++)
		if (s[i] && s[i]->present && s[i]->c.recv_spin_told &&
		    (int64_t)s[i]->c.recv_spin_ns > seen)
			seen = (int64_t)s[i]->c.recv_spin_ns;
	return seen;
}

bool result_open_loop(const struct result *r)
{
	return r->client.c.scheduled || r->client.c.gen_dropped;
}
