/* hist.c: see hist.h. */
#include "measure/hist.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hist_reset(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned hist_index(uint64_t v)
{
	if (v < (1u << HIST_SUB_BITS))
		return (unsigned)v;
	unsigned shift = (unsigned)(63 - __builtin_clzll(v)) - HIST_SUB_BITS + 1;

	if (shift > HIST_MAX_SHIFT)
		return HIST_BUCKETS - 1;
	return shift * HIST_HALF + (unsigned)(v >> shift);
}

/* Lowest value and width of bucket i. */
static void bucket_range(unsigned i, uint64_t *lo, uint64_t *width)
{
	if (i < (1u << HIST_SUB_BITS)) {
		*lo = i;
		*width = 1;
		return;
	}
	/* i = shift * HALF + sub, with sub = v >> shift in [HALF, 2 * HALF). */
	unsigned shift = i / HIST_HALF - 1;
	uint64_t sub = i - shift * HIST_HALF;

	*lo = sub << shift;
	*width = 1ULL << shift;
}

void hist_record(struct hist *h, uint64_t v)
{
	h->buckets[hist_index(v)]++;
	h->count++;
	h->sum += (double)v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_record_censored(struct hist *h, uint64_t v)
{
	hist_record(h, v);
	if (!h->censored || v < h->cens_min)
		h->cens_min = v;
	h->censored++;
}

bool hist_at_least(const struct hist *h, uint64_t v)
{
	return h->censored && hist_index(v) >= hist_index(h->cens_min);
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	if (src->censored && (!dst->censored || src->cens_min < dst->cens_min))
		dst->cens_min = src->cens_min;
	dst->censored += src->censored;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	if (!h->count)
		return 0;
	if (p >= 100.0)
		return h->max;
	uint64_t rank = (uint64_t)(p / 100.0 * (double)h->count + 0.999999999);
	uint64_t seen = 0;

	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen < rank)
			continue;
		uint64_t lo, width, v;

		bucket_range(i, &lo, &width);
		v = lo + width / 2;
		if (v < h->min)
			v = h->min;
		if (v > h->max)
			v = h->max;
		return v;
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? h->sum / (double)h->count : 0.0;
}

/* "count min max sum" and then " GAP:COUNT" for each bucket that holds values, GAP being its
 * index less the previous one's (the first: its index). */
size_t hist_encode(const struct hist *h, char *out, size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "%llu %llu %llu %.17g", (unsigned long long)h->count,
				    (unsigned long long)h->min, (unsigned long long)h->max, h->sum);
	unsigned last = 0;

	if (h->censored && n < cap)
		n += (size_t)snprintf(out + n, cap - n, " !%llu,%llu", (unsigned long long)h->censored,
				      (unsigned long long)h->cens_min);
	for (unsigned i = 0; i < HIST_BUCKETS && n < cap; i++) {
		if (!h->buckets[i])
			continue;
		n += (size_t)snprintf(out + n, cap - n, " %u:%llu", i - last,
				      (unsigned long long)h->buckets[i]);
		last = i;
	}
	return n;
}

int hist_decode(struct hist *h, const char *s)
{
	char *end;
	unsigned long long at = 0, total = 0;

	hist_reset(h);
	h->count = strtoull(s, &end, 10);
	h->min = strtoull(end, &end, 10);
	h->max = strtoull(end, &end, 10);
	h->sum = strtod(end, &end);
	if (end == s)
		return -EINVAL;
	/* Every sum checked before it is made: a gap or a count near 2^64 would wrap around to a
	 * bucket index or a total that passes (strtoull also takes "-1" as 2^64 - 1). */
	if (strchr(end, '-'))
		return -EINVAL;
	if (end[0] == ' ' && end[1] == '!') {
		h->censored = strtoull(end + 2, &end, 10);
		if (*end != ',')
			return -EINVAL;
		h->cens_min = strtoull(end + 1, &end, 10);
		if (!h->censored || h->censored > h->count || (*end && *end != ' '))
			return -EINVAL;
	}
	for (bool first = true; *end; first = false) {
		unsigned long long gap = strtoull(end, &end, 10), c;

		if (*end != ':')
			return -EINVAL;
		c = strtoull(end + 1, &end, 10);
		if ((!first && gap == 0) || gap >= HIST_BUCKETS - at || c > h->count - total ||
		    (*end && *end != ' '))
			return -EINVAL;
		at += gap;
		h->buckets[at] = c;
		total += c;
	}
	if (total != h->count || (h->count && h->min > h->max) ||
	    (h->censored && (h->cens_min < h->min || h->cens_min > h->max)))
		return -EINVAL;
	/* The censored values sit at or above their least wait's bucket: so many must be there
	 * (else a forged text marks exact percentiles that are not). */
	uint64_t above = 0;

	for (unsigned i = h->censored ? hist_index(h->cens_min) : HIST_BUCKETS; i < HIST_BUCKETS; i++)
		above += h->buckets[i];
	if (above < h->censored)
		return -EINVAL;
	if (!h->count)
		h->min = UINT64_MAX, h->max = 0;
	return 0;
}

uint64_t hist_bucket_mid(unsigned i)
{
	uint64_t lo, width;

	bucket_range(i < HIST_BUCKETS ? i : HIST_BUCKETS - 1, &lo, &width);
	return lo + width / 2;
}
