/* fanout_collect.h: the client hosts' results (fanout_collect.c). Not for use outside run/. */
#ifndef SB_RUN_FANOUT_COLLECT_H
#define SB_RUN_FANOUT_COLLECT_H

#include "run/state_priv.h"

/* The hosts' results, merged into r->res (with the local one, already in r->res.client). */
void hosts_collect(struct run *r, const struct side_result *local, const struct hist *lat,
		   const struct hist *lat2);

#endif
