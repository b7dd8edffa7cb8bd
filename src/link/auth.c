/* auth.c: see auth.h. */
#include "link/auth.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define CONTEXT "sockbench-auth-v1"
#define SIGN_CONTEXT "sockbench-vouch-v1\n"

static int init(void)
{
	return sodium_init() < 0 ? -EIO : 0;
}

int auth_load(const char *path, struct auth_key *key, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	struct stat st;

	if (!f) {
		snprintf(err, errlen, "--auth-file %s: %s", path, strerror(errno));
		return -errno;
	}
	key->len = fread(key->k, 1, sizeof(key->k), f);
	bool longer = fgetc(f) != EOF;
	bool everyone = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 004);

	fclose(f);
	while (key->len && (key->k[key->len - 1] == '\n' || key->k[key->len - 1] == '\r'))
		key->len--;
	if (longer || key->len < 16) {
		snprintf(err, errlen, "--auth-file %s: the secret must be 16 to %d bytes", path,
			 AUTH_KEY_MAX);
		return -EINVAL;
	}
	if (everyone)
		fprintf(stderr, "sockbench: warning: --auth-file %s is readable by everyone\n", path);
	return init();
}

void auth_challenge(char *hex, size_t hexlen)
{
	unsigned char c[AUTH_CHALLENGE_LEN];

	init();
	randombytes_buf(c, sizeof(c));
	sodium_bin2hex(hex, hexlen, c, sizeof(c));
}

static int mac_of(const struct auth_key *key, const char *challenge_hex,
		  unsigned char mac[crypto_auth_hmacsha256_BYTES])
{
	unsigned char c[AUTH_CHALLENGE_LEN];
	size_t clen;
	crypto_auth_hmacsha256_state st;

	if (strlen(challenge_hex) != 2 * AUTH_CHALLENGE_LEN ||
	    sodium_hex2bin(c, sizeof(c), challenge_hex, strlen(challenge_hex), NULL, &clen, NULL) ||
	    clen != sizeof(c))
		return -EINVAL;
	crypto_auth_hmacsha256_init(&st, key->k, key->len);
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)CONTEXT, strlen(CONTEXT));
	crypto_auth_hmacsha256_update(&st, c, sizeof(c));
	crypto_auth_hmacsha256_final(&st, mac);
	return 0;
}

int auth_answer(const struct auth_key *key, const char *challenge_hex, char *mac_hex, size_t len)
{
	unsigned char mac[crypto_auth_hmacsha256_BYTES];

	if (init() || mac_of(key, challenge_hex, mac))
		return -EINVAL;
	sodium_bin2hex(mac_hex, len, mac, sizeof(mac));
	return 0;
}

bool auth_verify(const struct auth_key *key, const char *challenge_hex, const char *mac_hex)
{
	unsigned char want[crypto_auth_hmacsha256_BYTES], got[crypto_auth_hmacsha256_BYTES];
	size_t glen;

	if (init() || mac_of(key, challenge_hex, want))
		return false;
	if (sodium_hex2bin(got, sizeof(got), mac_hex, strlen(mac_hex), NULL, &glen, NULL) ||
	    glen != sizeof(got))
		return false;
	return sodium_memcmp(want, got, sizeof(got)) == 0;
}

static void sign_of(const struct auth_key *key, const char *text,
		    unsigned char mac[crypto_auth_hmacsha256_BYTES])
{
	crypto_auth_hmacsha256_state st;

	crypto_auth_hmacsha256_init(&st, key->k, key->len);
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)SIGN_CONTEXT,
				      strlen(SIGN_CONTEXT));
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)text, strlen(text));
	crypto_auth_hmacsha256_final(&st, mac);
}

int auth_sign(const struct auth_key *key, const char *text, char *mac_hex, size_t len)
{
	unsigned char mac[crypto_auth_hmacsha256_BYTES];

	if (init() || len < 2 * sizeof(mac) + 1)
		return -EINVAL;
	sign_of(key, text, mac);
	sodium_bin2hex(mac_hex, len, mac, sizeof(mac));
	return 0;
}

bool auth_sign_ok(const struct auth_key *key, const char *text, const char *mac_hex)
{
	unsigned char want[crypto_auth_hmacsha256_BYTES], got[crypto_auth_hmacsha256_BYTES];
	size_t glen;

	if (init())
		return false;
	sign_of(key, text, want);
	if (sodium_hex2bin(got, sizeof(got), mac_hex, strlen(mac_hex), NULL, &glen, NULL) ||
	    glen != sizeof(got))
		return false;
	return sodium_memcmp(want, got, sizeof(got)) == 0;
}
