/* interval.c: snapshots and the intervals between them (interval.h). */
#include <math.h>
#include <string.h>

#include "measure/interval.h"

static uint64_t load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

void ivl_hist_read(struct hist *sum, const struct hist *const *live, int n)
{
	hist_reset(sum);
	for (int k = 0; k < n; k++) {
		const struct hist *h = live[k];
		uint64_t mn = load(&h->min), mx = load(&h->max);

		for (unsigned i = 0; i < HIST_BUCKETS; i++) {
			uint64_t c = load(&h->buckets[i]);

			sum->buckets[i] += c;
			sum->count += c;
		}
		uint64_t cn = load(&h->censored), cm = load(&h->cens_min);

		if (cn && (!sum->censored || cm < sum->cens_min))
			sum->cens_min = cm;
		sum->censored += cn;
		if (load(&h->count) && mn < sum->min)
			sum->min = mn;
		if (load(&h->count) && mx > sum->max)
			sum->max = mx;
	}
}

void ivl_hist_diff(struct hist *d, const struct hist *cur, const struct hist *prev)
{
	hist_reset(d);
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t c = cur->buckets[i] > prev->buckets[i] ? cur->buckets[i] - prev->buckets[i]
								: 0;
		d->buckets[i] = c;
		d->count += c;
	}
	d->min = cur->min;
	d->max = cur->max;
	/* The least wait of the unanswered so far (a bound for this interval's too). */
	d->censored = cur->censored > prev->censored ? cur->censored - prev->censored : 0;
	d->cens_min = cur->cens_min;
}

static double pct_of(double part, double whole)
{
	return whole > 0 ? part / whole * 100 : NAN;
}

static void ivl_cpu(struct interval *iv, const struct ivl_snap *a, const struct ivl_snap *b,
		    double hz)
{
	iv->cpu_client_pct = pct_of((double)(b->client_ticks - a->client_ticks) / hz, iv->len_s);
	iv->cpu_server_pct = a->server_ok && b->server_ok
				     ? pct_of((double)(b->server_ticks - a->server_ticks) / hz, iv->len_s)
				     : NAN;
	iv->machine_busy_pct = NAN;
	if (a->machine_ok && b->machine_ok) {
		struct cpu_split s;

		kstat_cpu_split(&a->machine, &b->machine, &s);
		iv->machine_busy_pct = 100 - s.idle;
	}
}

void ivl_make(struct interval *iv, const struct ivl_snap *a, const struct ivl_snap *b,
	      const struct ivl_run *run)
{
	bool k = a->kernel_ok && b->kernel_ok;
	const char *proto = run->proto;
	struct hist *tmp = run->tmp;

	memset(iv, 0, sizeof(*iv));
	iv->t_s = (double)(b->t_ns - run->t_open) / 1e9;
	iv->len_s = (double)(b->t_ns - a->t_ns) / 1e9;
	iv->units = b->units > a->units ? b->units - a->units : 0;
	iv->rate = iv->len_s > 0 ? iv->units / iv->len_s : 0;
	iv->samples = iv->p50_us = iv->p99_us = iv->unanswered = NAN;
	if (a->has_lat && b->has_lat) {
		ivl_hist_diff(tmp, &b->lat, &a->lat);
		iv->samples = (double)tmp->count;
		iv->unanswered = (double)tmp->censored;
		if (tmp->count) {
			uint64_t p50 = hist_percentile(tmp, 50), p99 = hist_percentile(tmp, 99);

			iv->p50_us = (double)p50 / 1e3;
			iv->p99_us = (double)p99 / 1e3;
			iv->p50_at_least = hist_at_least(tmp, p50);
			iv->p99_at_least = hist_at_least(tmp, p99);
		}
	}
	ivl_cpu(iv, a, b, run->hz);
	iv->retransmits = iv->udp_drops = NAN;
	if (k && proto && !strcmp(proto, "Tcp"))
		iv->retransmits = (double)(b->retrans - a->retrans);
	if (k && proto && !strcmp(proto, "Udp"))
		iv->udp_drops = (double)(b->udp_drops - a->udp_drops);
}
