/* libFuzzer target: a whole control session as the agent reads it, from the first byte to the
 * test it would run: the bytes go through the frame reader in pieces of any size (as a socket
 * hands them over), every whole frame through the handshake, and a SETUP that ends it through
 * the same checks as the command line and the agent's caps. The first byte says whether the
 * agent has a secret and how the bytes are cut. No crash, no leak, no undefined behaviour;
 * and the handshake's rules hold: no SETUP (nor VOUCH) is taken before a HELLO, nor without
 * AUTH when there is a secret. A VOUCH goes through the server agent's answer (a test running)
 * and the client agent's check of that answer; a SETUP, through the client side's target. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "link/ctl.h"
#include "base/opts.h"
#include "link/handshake.h"
#include "link/vouch.h"
#include "measure/side.h"
#include "workload/workload.h"

/* A VOUCH answered by an agent running a test for 127.0.0.1, and the answer checked as a
 * client agent would: a yes only for that test. */
static void vouch_fuzz(const struct auth_key *key, const char *payload)
{
	static struct vouch_board b;
	static bool init;
	struct server_ctx s = {.token = 0x0123456789abcdefULL, .port = 5001};
	struct vouch_target t = {.addr = "127.0.0.1", .port = 5001, .token = s.token};
	struct sockaddr_storage asker = {.ss_family = AF_INET};
	char reply[600], err[300];
	unsigned rt;

	if (!init) {
		vouch_board_init(&b);
		s.local.ss_family = s.peer.ss_family = AF_INET;
		((struct sockaddr_in *)&s.local)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		((struct sockaddr_in *)&s.peer)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		vouch_publish(&b, &s, "udp-rr", "udp");
		init = true;
	}
	((struct sockaddr_in *)&asker)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rt = vouch_answer(&b, key, &asker, payload, reply, sizeof(reply));
	if (strlen(reply) >= sizeof(reply) - 1)
		abort();
	vouch_reply_check(&t, key, "00", &(struct ctl_frame){rt, reply}, err, sizeof(err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct auth_key key = {.k = "0123456789abcdef0123456789abcdef", .len = 32};
	struct ctl_reader rd = {0};
	struct serve_hs hs;
	struct opts so;
	bool with_key, saw_hello = false, saw_auth = false;
	size_t cut, off = 1;

	if (size < 1)
		return 0;
	with_key = data[0] & 1;
	cut = 1 + (data[0] >> 1);
	opts_defaults(&so, NULL);
	serve_hs_start(&hs, with_key ? &key : NULL);
	ctl_reader_init(&rd, 16384);
	while (off < size) {
		size_t want = ctl_reader_want(&rd), n = size - off;

		n = n < cut ? n : cut;
		n = n < want ? n : want;
		int r = ctl_reader_feed(&rd, data + off, n);

		off += n;
		if (r < 0)
			break;
		if (r == 0)
			continue;
		char reply[600];
		unsigned rtype, type = rd.h.type;
		int st = serve_hs_frame(&hs, type, rd.payload, &rtype, reply, sizeof(reply));

		saw_hello |= type == CTL_MSG_HELLO;
		saw_auth |= type == CTL_MSG_AUTH && st == HS_SETUP;
		if (st == HS_VOUCH) {
			if (!saw_hello || (with_key && !saw_auth))
				abort();
			vouch_fuzz(with_key ? &key : NULL, rd.payload);
			break;
		}
		if (st == HS_DONE) {
			if (!saw_hello || (with_key && !saw_auth))
				abort();
			struct vouch_target t;
			char terr[300];

			vouch_target_parse(rd.payload, &t, terr, sizeof(terr));
			const struct workload *wl = NULL;
			struct opts o;
			char err[256];

			serve_setup_check(&so, rd.payload, &wl, &o, err, sizeof(err));
			opts_free(&o);
			break;
		}
		if (st == HS_FAILED)
			break;
		if (rtype && strlen(reply) > CTL_MAX_PAYLOAD)
			abort();
		ctl_reader_init(&rd, 16384);
	}
	ctl_reader_free(&rd);
	opts_free(&so);
	return 0;
}
