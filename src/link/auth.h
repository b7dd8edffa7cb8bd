/* auth.h: the agent's optional shared-secret authentication. The agent sends a random
 * challenge; the controller answers with HMAC-SHA256(secret, context || challenge) (libsodium);
 * the secret never crosses the wire and a recorded answer is useless for another challenge.
 * It touches memory and the secret's file only.
 */
#ifndef SB_AUTH_H
#define SB_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#define AUTH_CHALLENGE_LEN 32
#define AUTH_KEY_MAX 1024

struct auth_key {
	unsigned char k[AUTH_KEY_MAX];
	size_t len;
};

/* Read a secret file (a trailing newline is not part of it). 0, or -errno / -EINVAL with a
 * reason (too short: 16 bytes at least). */
int auth_load(const char *path, struct auth_key *key, char *err, size_t errlen);
/* A fresh random challenge, as hex (2 * AUTH_CHALLENGE_LEN + 1 bytes). */
void auth_challenge(char *hex, size_t hexlen);
/* The answer to a hex challenge, as hex (65 bytes). -EINVAL if the challenge is malformed. */
int auth_answer(const struct auth_key *key, const char *challenge_hex, char *mac_hex, size_t len);
/* Does mac_hex answer challenge_hex under key? Constant time. */
bool auth_verify(const struct auth_key *key, const char *challenge_hex, const char *mac_hex);
/* A server agent's signed word to a client agent (vouch.c): HMAC-SHA256(secret, its own
 * context || text) as hex (65 bytes), so it can never pass for an AUTH answer, nor one for it.
 * 0 or -EINVAL. */
int auth_sign(const struct auth_key *key, const char *text, char *mac_hex, size_t len);
/* Does mac_hex sign text under key (auth_sign)? Constant time. */
bool auth_sign_ok(const struct auth_key *key, const char *text, const char *mac_hex);

#endif
