/* tcp_info_dist.c: see tcp_info_dist.h. */
#include "measure/tcp_info_dist.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const tcp_info_dist_names[TI_FIGS] = {
    [TI_RTT] = "rtt_us", [TI_MIN_RTT] = "min_rtt_us", [TI_CWND] = "cwnd"};

unsigned tcp_info_dist_index(uint32_t v)
{
	if (v < TCP_INFO_DIST_EXACT)
		return v;
	/* shift: v >> shift is in [SUB, 2 * SUB): 1 for 64..127, 26 for 2^31.. */
	unsigned shift = (unsigned)(31 - __builtin_clz(v)) - 5;

	return TCP_INFO_DIST_EXACT + (shift - 1) * TCP_INFO_DIST_SUB + (v >> shift) -
	       TCP_INFO_DIST_SUB;
}

/* Lowest value and width of bucket i. */
static void bucket_range(unsigned i, uint64_t *lo, uint64_t *width)
{
	if (i < TCP_INFO_DIST_EXACT) {
		*lo = i;
		*width = 1;
		return;
	}
	unsigned shift = (i - TCP_INFO_DIST_EXACT) / TCP_INFO_DIST_SUB + 1;
	uint64_t sub = (i - TCP_INFO_DIST_EXACT) % TCP_INFO_DIST_SUB + TCP_INFO_DIST_SUB;

	*lo = sub << shift;
	*width = 1ULL << shift;
}

static void hist_take(struct tcp_info_hist *h, uint32_t v)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->count++;
	h->b[tcp_info_dist_index(v)]++;
}

void tcp_info_dist_record(struct tcp_info_dist *d, uint32_t rtt_us, uint32_t min_rtt_us,
			  uint32_t cwnd)
{
	hist_take(&d->h[TI_RTT], rtt_us);
	hist_take(&d->h[TI_MIN_RTT], min_rtt_us);
	hist_take(&d->h[TI_CWND], cwnd);
}

static void hist_add(struct tcp_info_hist *dst, const struct tcp_info_hist *src)
{
	if (!src->count)
		return;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (!dst->count || src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	for (unsigned i = 0; i < TCP_INFO_DIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

void tcp_info_dist_merge(struct tcp_info_dist *dst, const struct tcp_info_dist *src)
{
	for (int f = 0; f < TI_FIGS; f++)
		hist_add(&dst->h[f], &src->h[f]);
}

uint32_t tcp_info_dist_count(const struct tcp_info_dist *d)
{
	return d->h[TI_RTT].count;
}

uint32_t tcp_info_dist_pct(const struct tcp_info_hist *h, double p)
{
	if (!h->count)
		return 0;
	if (p >= 100.0)
		return h->max;
	uint64_t rank = (uint64_t)(p / 100.0 * (double)h->count + 0.999999999), seen = 0;

	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < TCP_INFO_DIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen < rank)
			continue;
		uint64_t lo, width, v;

		bucket_range(i, &lo, &width);
		v = lo + width / 2;
		return v < h->min ? h->min : v > h->max ? h->max : (uint32_t)v;
	}
	return h->max;
}

/* snprintf at offset n of a buffer of cap bytes, going on counting once it is full. */
#define PUT(out, n, cap, ...)                                                                      \
	((size_t)snprintf((out) + ((n) < (cap) ? (n) : (cap)), (n) < (cap) ? (cap) - (n) : 0,      \
			  __VA_ARGS__))

/* One figure: "count min max" and " GAP:COUNT" for each bucket that holds values, GAP being
 * its index less the previous one's (the first: its index), as hist_encode. */
static size_t hist_encode1(const struct tcp_info_hist *h, char *out, size_t n, size_t cap)
{
	unsigned last = 0;

	n += PUT(out, n, cap, "%u %u %u", h->count, h->min, h->max);
	for (unsigned i = 0; i < TCP_INFO_DIST_BUCKETS; i++) {
		if (!h->b[i])
			continue;
		n += PUT(out, n, cap, " %u:%u", i - last, h->b[i]);
		last = i;
	}
	return n;
}

size_t tcp_info_dist_encode(const struct tcp_info_dist *d, char *out, size_t cap)
{
	size_t n = 0;

	for (int f = 0; f < TI_FIGS; f++) {
		if (f)
			n += PUT(out, n, cap, ";");
		n = hist_encode1(&d->h[f], out, n, cap);
	}
	return n;
}

/* A number of at most 32 bits after the separator sep ('\0': none), and where it ended. */
static int u32_at(const char *s, char sep, char **end, uint32_t *v)
{
	unsigned long long x;

	if (sep && *s++ != sep)
		return -EINVAL;
	if (*s < '0' || *s > '9')
		return -EINVAL; /* strtoull would take a sign, or skip space */
	errno = 0;
	x = strtoull(s, end, 10);
	if (x > UINT32_MAX || errno)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

/* One figure, up to its ';' or the end; *s moves past it. */
static int hist_decode1(struct tcp_info_hist *h, const char **s)
{
	char *end = (char *)*s;
	uint64_t at = 0, total = 0;

	memset(h, 0, sizeof(*h));
	if (u32_at(end, 0, &end, &h->count) || u32_at(end, ' ', &end, &h->min) ||
	    u32_at(end, ' ', &end, &h->max))
		return -EINVAL;
	for (bool first = true; *end && *end != ';'; first = false) {
		uint32_t gap, c;

		if (u32_at(end, ' ', &end, &gap) || u32_at(end, ':', &end, &c))
			return -EINVAL;
		if ((!first && gap == 0) || gap >= TCP_INFO_DIST_BUCKETS - at ||
		    c > h->count - total)
			return -EINVAL;
		at += gap;
		h->b[at] = c;
		total += c;
	}
	if (total != h->count || (h->count && h->min > h->max) || (!h->count && (h->min || h->max)))
		return -EINVAL;
	*s = end;
	return 0;
}

int tcp_info_dist_decode(struct tcp_info_dist *d, const char *s)
{
	for (int f = 0; f < TI_FIGS; f++) {
		if (f && *s++ != ';')
			return -EINVAL;
		if (hist_decode1(&d->h[f], &s))
			return -EINVAL;
	}
	return *s ? -EINVAL : 0;
}
