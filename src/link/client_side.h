/* client_side.h: a test's client side in the agent (client_side.c): SETUP with
 * "role":"client" (--clients-on). Not for use outside link/. */
#ifndef SB_CLIENT_SIDE_H
#define SB_CLIENT_SIDE_H

struct session;

void client_side_run(struct session *ss);

#endif
