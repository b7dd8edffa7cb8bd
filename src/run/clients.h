/* clients.h: the client processes of this host (clients.c). Not for use outside run/. */
#ifndef SB_RUN_CLIENTS_H
#define SB_RUN_CLIENTS_H

#include "run/state_priv.h"

int fork_clients(struct run *r);
int dead_client(struct run *r);
int wait_ready(struct run *r);
const char *check_fatal(struct run *r);
void collect_clients(struct run *r);
/* PH_DRAIN, then PH_STOP: wait until every client of this host has nothing of the window in
 * flight, bound_s at most (Ctrl-C ends it at once). Returns how long it took, in seconds. */
double clients_drain(struct run *r, double bound_s);

#endif
