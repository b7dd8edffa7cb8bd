/* stall.h: the stall watch (stall.c). Not for use outside run/. */
#ifndef SB_RUN_STALL_H
#define SB_RUN_STALL_H

#include "run/state_priv.h"

/* The clients' progress on every host. */
uint64_t progress_sum(const struct run *r);
void stall_end(struct run *r, uint64_t now);
void stall_watch(struct run *r);

#endif
