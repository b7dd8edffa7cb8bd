/* seq.c: see seq.h. */
#include "measure/seq.h"

#include <string.h>

static void put_be(uint8_t *p, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static uint64_t get_be(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

void seq_hdr_put(uint8_t *p, const struct seq_hdr *h)
{
	put_be(p, 8, h->seq);
	put_be(p + 8, 4, h->flow);
	put_be(p + 12, 4, h->magic);
	put_be(p + 16, 8, h->token);
	put_be(p + 24, 8, h->sent_ns);
}

void seq_hdr_stamp(uint8_t *p, uint64_t sent_ns)
{
	put_be(p + 24, 8, sent_ns);
}

int seq_hdr_get(const uint8_t *p, size_t n, struct seq_hdr *h)
{
	if (n < SEQ_HDR_LEN)
		return -1;
	h->seq = get_be(p, 8);
	h->flow = (uint32_t)get_be(p + 8, 4);
	h->magic = (uint32_t)get_be(p + 12, 4);
	h->token = get_be(p + 16, 8);
	h->sent_ns = get_be(p + 24, 8);
	return 0;
}

bool seq_plausible(const struct seq_flow *f, uint64_t seq)
{
	if (!f->any)
		return true;
	return seq > f->hi ? seq - f->hi <= SEQ_MAX_GAP : f->hi - seq <= SEQ_MAX_GAP;
}

static uint64_t *word(struct seq_flow *f, uint64_t seq)
{
	return &f->seen[seq % SEQ_SEEN_BITS / 64];
}

static bool bit_seen(const struct seq_flow *f, uint64_t seq)
{
	return f->seen[seq % SEQ_SEEN_BITS / 64] & 1ULL << (seq % 64);
}

void seq_take(struct seq_flow *f, uint64_t seq)
{
	uint64_t bit = 1ULL << (seq % 64);

	if (!f->any) {
		f->any = true;
		f->lo = f->hi = seq;
		f->got = 1;
		*word(f, seq) |= bit;
		return;
	}
	if (seq > f->hi) {
		/* The window of remembered numbers slides: forget those it leaves behind. */
		if (seq - f->hi >= SEQ_SEEN_BITS)
			memset(f->seen, 0, sizeof(f->seen));
		else
			/* Counted by distance, never up to seq: at 2^64 - 1, q <= seq always holds
			 * (the data fuzzer found that loop never ending). */
			for (uint64_t d = 1, q; d <= seq - f->hi; d++) {
				q = f->hi + d;
				*word(f, q) &= ~(1ULL << (q % 64));
			}
		f->hi = seq;
		*word(f, seq) |= bit;
		f->got++;
		return;
	}
	bool remembered = f->hi - seq < SEQ_SEEN_BITS;

	if (remembered && bit_seen(f, seq)) {
		f->dups++;
		return;
	}
	/* Older than what is remembered and not below the lowest seen: a late arrival or a
	 * duplicate. Counting it as come would hide a loss when it is a duplicate, so it is
	 * counted apart, and the loss may be overstated by at most that many. */
	if (!remembered && seq >= f->lo) {
		f->unsure++;
		return;
	}
	f->reordered++;
	if (remembered)
		*word(f, seq) |= bit;
	if (seq < f->lo)
		f->lo = seq; /* below every number seen: never seen, so late and new */
	f->got++;
}

void jitter_take(struct jitter *j, uint64_t sent_ns, uint64_t arrived_ns)
{
	int64_t transit = (int64_t)(arrived_ns - sent_ns);

	if (j->n++) {
		/* In double: any two 64-bit times a sender wrote differ without overflow. */
		double d = (double)transit - (double)j->last;

		j->j += ((d < 0 ? -d : d) - j->j) / 16.0;
	}
	j->last = transit;
}

bool seq_missing(const struct seq_flow *f, uint64_t seq)
{
	if (!f->any || seq <= f->lo || seq >= f->hi || f->hi - seq >= SEQ_SEEN_BITS)
		return false;
	return !bit_seen(f, seq);
}

uint64_t seq_lost(const struct seq_flow *f)
{
	uint64_t span = f->any ? f->hi - f->lo + 1 : 0;

	return span > f->got ? span - f->got : 0;
}
