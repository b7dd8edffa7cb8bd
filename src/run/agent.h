/* agent.h: one agent link of the coordinator (agent.c). Not for use outside run/. */
#ifndef SB_RUN_AGENT_H
#define SB_RUN_AGENT_H

#include "run/state_priv.h"

struct cJSON;

int spawn_local_agent(struct run *r);
/* Split "HOST[:PORT]" or "[V6]:PORT". 0 or -errno (why in r). */
int split_hostport(struct run *r, const char *flag, const char *s, struct hostport *at);
int reach_agent(struct run *r, const char *host, const char *port);
int connect_agent(struct run *r, const char *host, const char *port);
/* HELLO (and AUTH) on fd; who names the agent in messages. 0 or -errno (why in r). */
int agent_greet(struct run *r, int fd, const char *who);
int agent_refused(struct run *r);
/* The config an agent gets: o (the run's options, or a client host's share) without the
 * controller's own files and addresses. */
struct cJSON *setup_config(const struct run *r, const struct opts *o);
/* The server's data address, its token, and the server agent's control address that a client
 * agent checks them with (the "target" of a client host's SETUP). Caller frees. */
struct cJSON *server_target(const struct run *r);
const char *agent_said(struct run *r);
void reap_agent(struct run *r);
/* The server agent's RESULT (END first if the window did not send it), then BYE. */
void collect_server(struct run *r);

#endif
