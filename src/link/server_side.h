/* server_side.h: a test's server side in the agent (server_side.c). Not for use outside link/. */
#ifndef SB_SERVER_SIDE_H
#define SB_SERVER_SIDE_H

struct session;

/* Run the test whose SETUP ss->setup holds, on ss->fd, to its end (BYE, an error, or a
 * silent controller), and put its --sysctl settings back; the caller frees the rest. */
void server_side_run(struct session *ss);

#endif
