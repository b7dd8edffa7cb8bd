/* Control codec: round trip, and rejection of truncated, oversized, wrong-magic frames; the
 * handshake; a client agent's VOUCH and the server agent's answer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "link/auth.h"
#include "link/ctl.h"
#include "link/handshake.h"
#include "link/vouch.h"
#include "measure/side.h"

static void frame(uint8_t *buf, unsigned type, const char *payload)
{
	size_t n = strlen(payload);

	assert_int_equal(ctl_encode_hdr(buf, type, n), 0);
	memcpy(buf + CTL_HDR_LEN, payload, n);
}

static void test_round_trip(void **state)
{
	(void)state;
	uint8_t buf[128];
	struct ctl_hdr h;

	frame(buf, CTL_MSG_SETUP, "{\"a\":1}");
	assert_int_equal(ctl_parse_frame(buf, CTL_HDR_LEN + 7, &h), CTL_HDR_LEN + 7);
	assert_int_equal(h.type, CTL_MSG_SETUP);
	assert_int_equal(h.len, 7);
	assert_int_equal(h.version, CTL_VERSION);
	assert_memory_equal(buf + CTL_HDR_LEN, "{\"a\":1}", 7);
	assert_string_equal(ctl_type_name(CTL_MSG_RESULT), "RESULT");
	assert_string_equal(ctl_type_name(999), "?");
}

static void test_truncated(void **state)
{
	(void)state;
	uint8_t buf[64];
	struct ctl_hdr h;

	frame(buf, CTL_MSG_HELLO, "0123456789");
	for (size_t n = 0; n < CTL_HDR_LEN; n++)
		assert_int_equal(ctl_decode_hdr(buf, n, &h), -ENODATA);
	for (size_t n = CTL_HDR_LEN; n < CTL_HDR_LEN + 10; n++)
		assert_int_equal(ctl_parse_frame(buf, n, &h), -ENODATA);
}

static void test_bad_magic_version_type(void **state)
{
	(void)state;
	uint8_t buf[64];
	struct ctl_hdr h;

	frame(buf, CTL_MSG_HELLO, "x");
	buf[0] ^= 0xff;
	assert_int_equal(ctl_decode_hdr(buf, sizeof(buf), &h), -EBADMSG);
	frame(buf, CTL_MSG_HELLO, "x");
	buf[5] = CTL_VERSION + 1; /* a version this build does not speak */
	assert_int_equal(ctl_decode_hdr(buf, sizeof(buf), &h), -EPROTONOSUPPORT);
	frame(buf, CTL_MSG_HELLO, "x");
	buf[7] = 0; /* type 0 */
	assert_int_equal(ctl_decode_hdr(buf, sizeof(buf), &h), -EINVAL);
	buf[7] = CTL_MSG_MAX_ + 1;
	assert_int_equal(ctl_decode_hdr(buf, sizeof(buf), &h), -EINVAL);
	assert_int_equal(ctl_encode_hdr(buf, 0, 1), -EINVAL);
}

static void test_oversized(void **state)
{
	(void)state;
	uint8_t buf[CTL_HDR_LEN];
	struct ctl_hdr h;

	assert_int_equal(ctl_encode_hdr(buf, CTL_MSG_RESULT, CTL_MAX_PAYLOAD + 1), -EMSGSIZE);
	assert_int_equal(ctl_encode_hdr(buf, CTL_MSG_RESULT, CTL_MAX_PAYLOAD), 0);
	buf[8] = 0x7f; /* length 2 GB */
	assert_int_equal(ctl_decode_hdr(buf, sizeof(buf), &h), -EMSGSIZE);
}

static void test_socket_round_trip_and_limits(void **state)
{
	(void)state;
	int sv[2];
	char buf[64];
	unsigned type;
	uint8_t raw[CTL_HDR_LEN];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(ctl_send(sv[0], CTL_MSG_READY, "{\"port\":9}", 10), 0);
	assert_int_equal(ctl_recv(sv[1], &type, buf, sizeof(buf), 1000), 10);
	assert_int_equal(type, CTL_MSG_READY);
	assert_string_equal(buf, "{\"port\":9}");
	/* Larger than the caller's buffer: refused before reading the payload. */
	assert_int_equal(ctl_send(sv[0], CTL_MSG_RESULT, "0123456789012345678901234567890123456789"
							 "0123456789012345678901234567890123456789", 80), 0);
	assert_int_equal(ctl_recv(sv[1], &type, buf, sizeof(buf), 1000), -EMSGSIZE);
	close(sv[0]);
	close(sv[1]);

	/* Header only, then silence: a timeout, not a hang. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ctl_encode_hdr(raw, CTL_MSG_HELLO, 5);
	assert_int_equal(write(sv[0], raw, sizeof(raw)), (ssize_t)sizeof(raw));
	assert_int_equal(ctl_recv(sv[1], &type, buf, sizeof(buf), 100), -ETIMEDOUT);
	/* Peer gone: -EPIPE. */
	close(sv[0]);
	assert_int_equal(ctl_recv(sv[1], &type, buf, sizeof(buf), 100), -EPIPE);
	close(sv[1]);
}

static void test_expect(void **state)
{
	(void)state;
	int sv[2];
	char buf[64];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ctl_send(sv[0], CTL_MSG_ERROR, "{\"error\":\"no\"}", 14);
	assert_int_equal(ctl_expect(sv[1], CTL_MSG_READY, buf, sizeof(buf), 1000), -EREMOTEIO);
	assert_string_equal(buf, "{\"error\":\"no\"}");
	ctl_send(sv[0], CTL_MSG_ACK, NULL, 0);
	assert_int_equal(ctl_expect(sv[1], CTL_MSG_READY, buf, sizeof(buf), 1000), -EPROTO);
	close(sv[0]);
	close(sv[1]);
}

/* The agent's reader takes a frame in pieces of any size, reads no byte past it, and refuses
 * a payload over its limit from the header alone. */
static void test_reader(void **state)
{
	(void)state;
	uint8_t buf[128];
	struct ctl_reader r = {0};
	size_t len = CTL_HDR_LEN + 14, fed = 0;

	frame(buf, CTL_MSG_HELLO, "{\"protocol\":1}");
	memcpy(buf + len, "SKBN", 4); /* the start of a next frame, not to be taken */
	ctl_reader_init(&r, 100);
	for (int ret = 0; ret == 0;) {
		size_t want = ctl_reader_want(&r);

		assert_true(want > 0 && fed + want <= len);
		ret = ctl_reader_feed(&r, buf + fed, 1);
		fed++;
		assert_true(ret >= 0);
		if (ret)
			break;
	}
	assert_int_equal(fed, len);
	assert_int_equal(r.h.type, CTL_MSG_HELLO);
	assert_string_equal(r.payload, "{\"protocol\":1}");
	ctl_reader_init(&r, 10); /* the same frame over a 10-byte limit */
	assert_int_equal(ctl_reader_feed(&r, buf, CTL_HDR_LEN), -EMSGSIZE);
	assert_null(r.payload);
	ctl_reader_init(&r, 100);
	memcpy(buf, "XKBN", 4);
	assert_int_equal(ctl_reader_feed(&r, buf, CTL_HDR_LEN), -EBADMSG);
	ctl_reader_free(&r);
}

/* The handshake: the order of frames, the secret, and nothing taken out of order. */
static void test_handshake(void **state)
{
	(void)state;
	struct auth_key key = {.k = "0123456789abcdef", .len = 16};
	struct serve_hs h;
	char reply[600], mac[65], msg[100];
	unsigned rt;

	serve_hs_start(&h, NULL);
	assert_int_equal(serve_hs_frame(&h, CTL_MSG_SETUP, "{}", &rt, reply, sizeof(reply)), HS_FAILED);
	assert_int_equal(rt, CTL_MSG_ERROR);
	serve_hs_start(&h, NULL);
	assert_int_equal(serve_hs_frame(&h, CTL_MSG_HELLO, "{}", &rt, reply, sizeof(reply)), HS_SETUP);
	assert_int_equal(rt, CTL_MSG_ACK);
	assert_null(strstr(reply, "challenge"));
	assert_int_equal(serve_hs_frame(&h, CTL_MSG_SETUP, "{}", &rt, reply, sizeof(reply)), HS_DONE);
	assert_int_equal(rt, 0);

	/* With a secret: SETUP before AUTH fails; a wrong MAC fails; the right one goes on. */
	serve_hs_start(&h, &key);
	assert_int_equal(serve_hs_frame(&h, CTL_MSG_HELLO, "{}", &rt, reply, sizeof(reply)), HS_AUTH);
	assert_non_null(strstr(reply, h.challenge));
	assert_int_equal(serve_hs_frame(&h, CTL_MSG_SETUP, "{}", &rt, reply, sizeof(reply)), HS_FAILED);
	serve_hs_start(&h, &key);
	serve_hs_frame(&h, CTL_MSG_HELLO, "{}", &rt, reply, sizeof(reply));
	assert_int_equal(serve_hs_frame(&h, CTL_MSG_AUTH, "{\"mac\":\"00\"}", &rt, reply, sizeof(reply)), HS_FAILED);
	assert_non_null(strstr(reply, "authentication failed"));
	serve_hs_start(&h, &key);
	serve_hs_frame(&h, CTL_MSG_HELLO, "{}", &rt, reply, sizeof(reply));
	assert_int_equal(auth_answer(&key, h.challenge, mac, sizeof(mac)), 0);
	snprintf(msg, sizeof(msg), "{\"mac\":\"%s\"}", mac);
	assert_int_equal(serve_hs_frame(&h, CTL_MSG_AUTH, msg, &rt, reply, sizeof(reply)), HS_SETUP);
	assert_int_equal(rt, CTL_MSG_ACK);
	assert_int_equal(serve_hs_frame(&h, CTL_MSG_SETUP, "{}", &rt, reply, sizeof(reply)), HS_DONE);
}

/* VOUCH comes only where SETUP may: after HELLO, and after AUTH when there is a secret. */
static void test_handshake_vouch(void **state)
{
	(void)state;
	struct auth_key key = {.k = "0123456789abcdef", .len = 16};
	struct serve_hs h;
	char reply[600];
	unsigned rt;

	serve_hs_start(&h, NULL);
	assert_int_equal(serve_hs_frame(&h, CTL_MSG_VOUCH, "{}", &rt, reply, sizeof(reply)), HS_FAILED);
	serve_hs_start(&h, NULL);
	serve_hs_frame(&h, CTL_MSG_HELLO, "{}", &rt, reply, sizeof(reply));
	assert_int_equal(serve_hs_frame(&h, CTL_MSG_VOUCH, "{}", &rt, reply, sizeof(reply)), HS_VOUCH);
	assert_int_equal(rt, 0);
	serve_hs_start(&h, &key);
	serve_hs_frame(&h, CTL_MSG_HELLO, "{}", &rt, reply, sizeof(reply));
	assert_int_equal(serve_hs_frame(&h, CTL_MSG_VOUCH, "{}", &rt, reply, sizeof(reply)), HS_FAILED);
	assert_string_equal(ctl_type_name(CTL_MSG_VOUCH), "VOUCH");
}

static void v4(struct sockaddr_storage *a, const char *ip)
{
	memset(a, 0, sizeof(*a));
	a->ss_family = AF_INET;
	inet_pton(AF_INET, ip, &((struct sockaddr_in *)a)->sin_addr);
}

#define NONCE "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define OTHER_NONCE "ff112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

/* The server agent's answer: no unless its running test has that token, data port and address
 * and takes the asker's traffic; yes signed over the nonce, and the client agent's check of it. */
static void test_vouch(void **state)
{
	(void)state;
	struct auth_key key = {.k = "0123456789abcdef", .len = 16};
	struct auth_key other = {.k = "fedcba9876543210", .len = 16};
	struct vouch_board b;
	struct server_ctx s = {.token = 0x1122334455667788ULL, .port = 5001};
	struct vouch_target t = {.addr = "127.0.0.1", .port = 5001, .token = 0x1122334455667788ULL,
				 .ctl_addr = "127.0.0.1", .ctl_port = 12866, .workload = "tcp-rr",
				 .proto = "tcp"};
	struct sockaddr_storage asker, stranger;
	char req[300], reply[600], err[300];
	unsigned rt;

	v4(&s.local, "127.0.0.1");
	v4(&s.peer, "127.0.0.1");
	v4(&asker, "127.0.0.1");
	v4(&stranger, "198.18.0.9");
	vouch_board_init(&b);
	vouch_request(&t, NONCE, req, sizeof(req));
	rt = vouch_answer(&b, NULL, &asker, req, reply, sizeof(reply));
	assert_int_equal(rt, CTL_MSG_ERROR);
	assert_non_null(strstr(reply, "no test runs"));

	vouch_publish(&b, &s, "tcp-rr", "tcp");
	rt = vouch_answer(&b, NULL, &asker, req, reply, sizeof(reply));
	assert_int_equal(rt, CTL_MSG_ACK);
	assert_int_equal(
	    vouch_reply_check(&t, NULL, NONCE, &(struct ctl_frame){rt, reply}, err, sizeof(err)),
	    0);
	/* Another nonce: a recorded yes is no answer to a new question. */
	assert_int_equal(vouch_reply_check(&t, NULL, OTHER_NONCE, &(struct ctl_frame){rt, reply},
					   err, sizeof(err)),
			 -EPROTO);
	/* Unsigned, it is no answer for an agent with a secret. */
	assert_int_equal(
	    vouch_reply_check(&t, &key, NONCE, &(struct ctl_frame){rt, reply}, err, sizeof(err)),
	    -EACCES);
	/* From a host that is not one of the test's: no. */
	rt = vouch_answer(&b, NULL, &stranger, req, reply, sizeof(reply));
	assert_int_equal(rt, CTL_MSG_ERROR);
	assert_int_equal(
	    vouch_reply_check(&t, NULL, NONCE, &(struct ctl_frame){rt, reply}, err, sizeof(err)),
	    -EPERM);
	assert_non_null(strstr(err, "no traffic from the asking host"));

	/* Signed: the right secret passes, another does not. */
	rt = vouch_answer(&b, &key, &asker, req, reply, sizeof(reply));
	assert_int_equal(rt, CTL_MSG_ACK);
	assert_int_equal(
	    vouch_reply_check(&t, &key, NONCE, &(struct ctl_frame){rt, reply}, err, sizeof(err)),
	    0);
	assert_int_equal(
	    vouch_reply_check(&t, &other, NONCE, &(struct ctl_frame){rt, reply}, err, sizeof(err)),
	    -EACCES);
	/* A signed yes for one token does not cover another. */
	struct vouch_target t2 = t;

	t2.token ^= 1;
	assert_int_equal(
	    vouch_reply_check(&t2, &key, NONCE, &(struct ctl_frame){rt, reply}, err, sizeof(err)),
	    -EACCES);
	/* Nor another address: the address is signed too. */
	t2 = t;
	snprintf(t2.addr, sizeof(t2.addr), "127.0.0.2");
	assert_int_equal(
	    vouch_reply_check(&t2, &key, NONCE, &(struct ctl_frame){rt, reply}, err, sizeof(err)),
	    -EACCES);
	/* A signed yes whose nonce is rewritten to a new question's: the nonce is signed. */
	char replayed[600];
	const char *at = strstr(reply, NONCE);

	assert_non_null(at);
	snprintf(replayed, sizeof(replayed), "%.*s%s%s", (int)(at - reply), reply, OTHER_NONCE,
		 at + strlen(NONCE));
	assert_int_equal(vouch_reply_check(&t, &key, OTHER_NONCE, &(struct ctl_frame){rt, replayed},
					   err, sizeof(err)),
			 -EACCES);
	t2 = t;
	t2.token ^= 1;

	/* Another token, another port, another address: no. */
	vouch_request(&t2, NONCE, req, sizeof(req));
	rt = vouch_answer(&b, NULL, &asker, req, reply, sizeof(reply));
	assert_int_equal(rt, CTL_MSG_ERROR);
	assert_non_null(strstr(reply, "that token"));
	t2 = t;
	t2.port = 5002;
	vouch_request(&t2, NONCE, req, sizeof(req));
	rt = vouch_answer(&b, NULL, &asker, req, reply, sizeof(reply));
	assert_int_equal(rt, CTL_MSG_ERROR);
	t2 = t;
	snprintf(t2.addr, sizeof(t2.addr), "127.0.0.2");
	vouch_request(&t2, NONCE, req, sizeof(req));
	rt = vouch_answer(&b, NULL, &asker, req, reply, sizeof(reply));
	assert_int_equal(rt, CTL_MSG_ERROR);
	assert_non_null(strstr(reply, "does not serve on that address"));
	/* The same port and token for another protocol or workload (a UDP service, or a tcp-crr
	 * connection storm, on a tcp-rr test's port number): no, unsigned or signed. */
	const char *kinds[][2] = {{"udp-stream", "udp"}, {"tcp-rr", "udp"}, {"tcp-crr", "tcp"}};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		t2 = t;
		snprintf(t2.workload, sizeof(t2.workload), "%s", kinds[i][0]);
		snprintf(t2.proto, sizeof(t2.proto), "%s", kinds[i][1]);
		vouch_request(&t2, NONCE, req, sizeof(req));
		rt = vouch_answer(&b, &key, &asker, req, reply, sizeof(reply));
		assert_int_equal(rt, CTL_MSG_ERROR);
		assert_non_null(strstr(reply, "this agent's test is tcp-rr over tcp"));
	}
	/* A signed yes for tcp-rr does not cover a udp-stream target, nor one without a kind. */
	vouch_request(&t, NONCE, req, sizeof(req));
	rt = vouch_answer(&b, &key, &asker, req, reply, sizeof(reply));
	assert_int_equal(rt, CTL_MSG_ACK);
	t2 = t;
	snprintf(t2.proto, sizeof(t2.proto), "udp");
	assert_int_equal(
	    vouch_reply_check(&t2, &key, NONCE, &(struct ctl_frame){rt, reply}, err, sizeof(err)),
	    -EPROTO);
	snprintf(replayed, sizeof(replayed), "%s", reply);
	char *pr = strstr(replayed, "\"proto\":\"tcp\"");

	assert_non_null(pr);
	memcpy(pr, "\"proto\":\"udp\"", 13);
	assert_int_equal(vouch_reply_check(&t2, &key, NONCE, &(struct ctl_frame){rt, replayed}, err,
					   sizeof(err)),
			 -EACCES);
	rt = vouch_answer(
	    &b, NULL, &asker,
	    "{\"token\":\"1122334455667788\",\"port\":5001,\"addr\":\"127.0.0.1\",\"nonce\":"
	    "\"" NONCE "\"}",
	    reply, sizeof(reply));
	assert_int_equal(rt, CTL_MSG_ERROR);
	assert_non_null(strstr(reply, "workload, proto"));
	rt = vouch_answer(&b, NULL, &asker, "{\"token\":\"1\"}", reply, sizeof(reply));
	assert_int_equal(rt, CTL_MSG_ERROR);

	/* The test over: no again. */
	vouch_withdraw(&b);
	vouch_request(&t, NONCE, req, sizeof(req));
	rt = vouch_answer(&b, NULL, &asker, req, reply, sizeof(reply));
	assert_int_equal(rt, CTL_MSG_ERROR);
}

/* A client-role SETUP must name the server agent; exact addresses only. */
static void test_vouch_target(void **state)
{
	(void)state;
	struct vouch_target t;
	char err[300];

	assert_int_equal(vouch_target_parse("{\"target\":{\"addr\":\"127.0.0.1\",\"port\":9,"
					    "\"token\":\"0123456789abcdef\"}}", &t, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "target.ctl_port"));
	assert_int_equal(vouch_target_parse("{\"target\":{\"addr\":\"127.0.0.1\",\"port\":9,"
					    "\"token\":\"0123456789abcdef\",\"ctl_addr\":"
					    "\"example.com\",\"ctl_port\":1}}", &t, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(vouch_target_parse("{\"target\":{\"addr\":\"127.0.0.1\",\"port\":9,"
					    "\"token\":\"0123456789abcdef\",\"ctl_addr\":"
					    "\"127.0.0.1\",\"ctl_port\":12866}}", &t, err, sizeof(err)),
			 0);
	assert_int_equal(t.ctl_port, 12866);
	assert_true(t.token == 0x0123456789abcdefULL);
	assert_true(vouch_same_ip("127.0.0.1", "127.0.0.1"));
	assert_false(vouch_same_ip("127.0.0.1", "127.0.0.2"));
	assert_false(vouch_same_ip("::1", "127.0.0.1"));
	/* link-local on two links: two hosts; a v4-mapped form is not the v4 address */
	assert_false(vouch_same_ip("fe80::1%1", "fe80::1%2"));
	assert_true(vouch_same_ip("fe80::1%1", "fe80::1%1"));
	assert_false(vouch_same_ip("::ffff:127.0.0.1", "127.0.0.1"));
}

/* The server answers a client host's traffic only once that host has asked it to vouch and
 * been told yes: a datagram's source can be forged, a VOUCH comes over TCP from the host. */
static void test_vouch_opens_peers(void **state)
{
	(void)state;
	struct vouch_board b;
	struct sockaddr_storage also[2], host1, host2;
	_Atomic bool vouched[2] = {false, false};
	struct server_ctx s = {.token = 7, .port = 5001, .also = also, .nalso = 2,
			       .also_vouched = vouched};
	struct vouch_target t = {.addr = "127.0.0.1", .port = 5001, .token = 7,
				 .ctl_addr = "127.0.0.1", .ctl_port = 12866, .workload = "udp-rr",
				 .proto = "udp"};
	char req[300], reply[600];
	unsigned rt;

	v4(&s.local, "127.0.0.1");
	v4(&s.peer, "198.18.0.1");
	v4(&also[0], "198.18.0.2");
	v4(&also[1], "198.18.0.3");
	v4(&host1, "198.18.0.2");
	v4(&host2, "198.18.0.3");
	vouch_board_init(&b);
	vouch_publish(&b, &s, "udp-rr", "udp");
	assert_true(peer_allowed(&s, &s.peer)); /* the controller's host: always */
	assert_false(peer_allowed(&s, &host1));	/* named, but has not asked */
	assert_false(peer_allowed(&s, &host2));
	vouch_request(&t, NONCE, req, sizeof(req));
	rt = vouch_answer(&b, NULL, &host1, req, reply, sizeof(reply));
	assert_int_equal(rt, CTL_MSG_ACK);
	assert_true(peer_allowed(&s, &host1));
	assert_false(peer_allowed(&s, &host2)); /* another's yes opens nothing for it */
	/* a refused question opens nothing either */
	t.token = 8;
	vouch_request(&t, NONCE, req, sizeof(req));
	rt = vouch_answer(&b, NULL, &host2, req, reply, sizeof(reply));
	assert_int_equal(rt, CTL_MSG_ERROR);
	assert_false(peer_allowed(&s, &host2));
	vouch_withdraw(&b);
}

/* A signature is never an AUTH answer, nor the other way round. */
static void test_sign_context(void **state)
{
	(void)state;
	struct auth_key key = {.k = "0123456789abcdef", .len = 16};
	char a[65], b[65];

	assert_int_equal(auth_answer(&key, NONCE, a, sizeof(a)), 0);
	assert_int_equal(auth_sign(&key, NONCE, b, sizeof(b)), 0);
	assert_string_not_equal(a, b);
	assert_true(auth_sign_ok(&key, NONCE, b));
	assert_false(auth_sign_ok(&key, NONCE, a));
	assert_false(auth_verify(&key, NONCE, b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_handshake),
		cmocka_unit_test(test_handshake_vouch),
		cmocka_unit_test(test_vouch),
		cmocka_unit_test(test_vouch_target),
		cmocka_unit_test(test_vouch_opens_peers),
		cmocka_unit_test(test_sign_context),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_magic_version_type),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_socket_round_trip_and_limits),
		cmocka_unit_test(test_expect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
