/* clients.h: the client processes of this host (clients.c). Not for use outside run/. */
#ifndef SB_RUN_CLIENTS_H
#define SB_RUN_CLIENTS_H

#include "run/state_priv.h"

int fork_clients(struct run *r);
int dead_client(struct run *r);
int wait_ready(struct run *r);
const char *check_fatal(struct run *r);
void collect_clients(struct run *r);

#endif
