/* seq.h: what a receiver learns from the sequence numbers of one flow: how many came, which
 * are missing (loss), which came after a later one (reordering), which came twice. Pure
 * arithmetic, unit-tested. */
#ifndef SB_SEQ_H
#define SB_SEQ_H

#include <stdbool.h>
#include <stdint.h>

#define SEQ_SEEN_BITS 1024 /* duplicates are told apart among the last 1024 numbers */

struct seq_flow {
	uint64_t lo, hi; /* lowest and highest number seen */
	uint64_t got;	 /* distinct numbers seen */
	uint64_t reordered, dups;
	uint64_t seen[SEQ_SEEN_BITS / 64];
	bool any;
};

/* Count one arrival of number seq. */
void seq_take(struct seq_flow *f, uint64_t seq);
/* Numbers between the lowest and the highest seen that never came. */
uint64_t seq_lost(const struct seq_flow *f);

#endif
