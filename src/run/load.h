/* load.h: the run's verdict on its load (load.c). Not for use outside run/. */
#ifndef SB_RUN_LOAD_H
#define SB_RUN_LOAD_H

#include "run/state_priv.h"

/* Mark the run partial when it did not hold its load (open loop: ol_holding, with whose the
 * lag was) or no unit of its window completed (then failed too: exit 1). */
void load_check(struct run *r);

#endif
