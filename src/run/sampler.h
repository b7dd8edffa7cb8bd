/* sampler.h: the clients' running counts read during the window (sampler.c): a stream's rate
 * series (JSON rate_over_window) and the interval reports of -i. Not for use outside run/. */
#ifndef SB_RUN_SAMPLER_H
#define SB_RUN_SAMPLER_H

#include "run/state_priv.h"

/* The window opened at t0 (the clients' counts are all 0 then). */
void sampler_begin(struct run *r, uint64_t t0);
/* Each step of the window: a series point, an interval, when one is due. */
void sampler_tick(struct run *r, uint64_t now);
/* The window closed at r->t_close: the last interval's edge (CPU, kernel counters). */
void sampler_close(struct run *r);
/* After the clients reported: the last interval takes what they counted up to the moment they
 * saw the window close; it is printed, and the sampler freed. */
void sampler_finish(struct run *r);

#endif
