/* fanout.h: the client hosts of --clients-on (fanout.c). Not for use outside run/. */
#ifndef SB_RUN_FANOUT_H
#define SB_RUN_FANOUT_H

#include "run/state_priv.h"

int hosts_parse(struct run *r);
int hosts_reach(struct run *r);
/* Frames from the hosts, without waiting: NULL, or why the run cannot go on. */
const char *hosts_watch(struct run *r);
void hosts_begin(struct run *r);
/* The window closed (a workload that drains): each host's clients told to drain; then each
 * host's word that its clients have nothing of the window in flight, until end_ns at most. */
void hosts_drain_begin(struct run *r);
void hosts_drain_wait(struct run *r, uint64_t end_ns);
void hosts_end(struct run *r);
uint64_t hosts_progress(const struct run *r);
int hosts_count(const struct run *r, bool warm);
void hosts_close(struct run *r);
/* One frame from host h; type in *type. 0, or -errno (the connection broke). STATE is
 * taken here. */
int host_recv(struct run *r, struct remote_host *h, unsigned *type, int ms);
/* Host h is lost to the run (fmt with one string says how): the run fails, the server's
 * per-unit figures are withheld; returns why, for the user. */
const char *host_gone(struct run *r, struct remote_host *h, const char *fmt, const char *arg);
/* The server served the clients of host, whose units this run does not all count. */
void withhold_server_units(struct run *r, const char *host);

#endif
