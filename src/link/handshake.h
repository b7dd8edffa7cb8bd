/* handshake.h: the agent's side of a controller's handshake and the checks of a SETUP
 * (handshake.c): pure functions of their input, below the agent (serve.c), its session and
 * vouch.c, which use them. Not for use outside link/ but by the tests and fuzzers.
 */
#ifndef SB_HANDSHAKE_H
#define SB_HANDSHAKE_H

#include <stddef.h>

#include "link/auth.h"

/* The handshake of a controller that does not hold the test yet, one whole frame at a time:
 * HELLO -> ACK (with a challenge when there is a secret), AUTH -> ACK, then SETUP; or, from a
 * client agent, VOUCH in place of SETUP (vouch.h). Pure, so it is fuzzed with the frame reader
 * (tests/fuzz/fuzz_session.c). */
enum serve_hs_state { HS_HELLO, HS_AUTH, HS_SETUP, HS_DONE, HS_FAILED, HS_VOUCH };

struct serve_hs {
	int state;
	const struct auth_key *key; /* the agent's secret, NULL: none */
	char challenge[2 * AUTH_CHALLENGE_LEN + 1];
};

/* Begin a handshake with the agent's secret key, which outlives it (a fresh challenge when key
 * is not NULL). */
void serve_hs_start(struct serve_hs *h, const struct auth_key *key);
/* Take one whole frame: fills the answer to send (*rtype 0: none) and returns the new state:
 * HS_DONE when the frame was the SETUP (its payload is the test), HS_VOUCH when it was a
 * VOUCH (answered by the caller, vouch_answer, and the connection dropped), HS_FAILED when the
 * connection is to be dropped after the answer. */
int serve_hs_frame(struct serve_hs *h, unsigned type, const char *payload, unsigned *rtype,
		   char *reply, size_t rlen);
struct opts;
struct workload;
/* A SETUP payload checked as the command line and the agent's caps (so) would: 0 with the
 * workload and its options (o, to opts_free), or -EINVAL (a usage error) / -EPERM (a cap)
 * with a one-line reason. Pure. */
int serve_setup_check(const struct opts *so, const char *payload, const struct workload **wl,
		      struct opts *o, char *err, size_t errlen);
/* The text of an ERROR frame. */
void serve_error_json(char *buf, size_t len, const char *msg, int err, int usage);

#endif
