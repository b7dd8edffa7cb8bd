/* seq.h: what a receiver learns from the sequence numbers of one flow: how many came, which
 * are missing (loss), which came after a later one (reordering), which came twice. Pure
 * arithmetic, unit-tested. */
#ifndef SB_SEQ_H
#define SB_SEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SEQ_SEEN_BITS 1024 /* duplicates are told apart among the last 1024 numbers */

/* RFC 3550's interarrival jitter, as iperf3 reports it: each datagram's transit (its arrival
 * on the receiver's clock minus its send time on the sender's: an offset between the two
 * clocks cancels) is compared with the previous one's of its flow, in arrival order, and the
 * jitter moves a sixteenth of the way to that difference: J += (|D| - J) / 16. */
struct jitter {
	int64_t last; /* the previous datagram's transit, ns */
	double j;     /* ns */
	uint64_t n;   /* datagrams taken */
};

struct seq_flow {
	uint64_t lo, hi; /* lowest and highest number seen */
	uint64_t got;	 /* distinct numbers seen */
	uint64_t reordered, dups;
	uint64_t unsure; /* came more than SEQ_SEEN_BITS behind the highest, at or above the lowest:
			  * a late one or a duplicate, which cannot be told; counted as neither */
	uint64_t seen[SEQ_SEEN_BITS / 64];
	bool any;
	struct jitter jit;
};

/* udp-stream's header, at the start of every datagram: its sequence number in its flow, the
 * flow, what it is (magic), and the test's token (from the agent, random per test), so that
 * what nobody of the test sent is told apart and never counted. */
#define SEQ_HDR_LEN 32
#define SEQ_MAX_GAP (1ULL << 20) /* a number this far from its flow's highest is not believed */

struct seq_hdr {
	uint64_t seq, token;
	uint32_t flow, magic;
	uint64_t sent_ns; /* CLOCK_MONOTONIC when the sender's call sent it (jitter) */
};

void seq_hdr_put(uint8_t *p, const struct seq_hdr *h);
/* Set the send time of a header already written. */
void seq_hdr_stamp(uint8_t *p, uint64_t sent_ns);
/* Read a header from n bytes: 0, or -1 if they are too few. */
int seq_hdr_get(const uint8_t *p, size_t n, struct seq_hdr *h);
/* Could seq be a number of flow f (within SEQ_MAX_GAP of its highest)? A forged 2^40 is not. */
bool seq_plausible(const struct seq_flow *f, uint64_t seq);

/* Count one arrival of number seq. */
void seq_take(struct seq_flow *f, uint64_t seq);
/* One datagram's send and arrival times into its flow's jitter. */
void jitter_take(struct jitter *j, uint64_t sent_ns, uint64_t arrived_ns);

/* Is seq one of the numbers between the lowest and the highest seen that has not come (among
 * the last SEQ_SEEN_BITS, the ones remembered)? */
bool seq_missing(const struct seq_flow *f, uint64_t seq);
/* Numbers between the lowest and the highest seen that never came. */
uint64_t seq_lost(const struct seq_flow *f);

#endif
