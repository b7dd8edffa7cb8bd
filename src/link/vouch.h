/* vouch.h: a client agent (--clients-on) sends test traffic only to a test that a sockbench
 * server agent runs and says is its own; a SETUP alone proves nothing, since whoever sends it
 * picks the address.
 *
 * Before a client sends a byte, the client agent connects to the server agent's control port
 * that the SETUP names (target.ctl_addr, target.ctl_port), greets it as a controller would
 * (HELLO, and AUTH when that agent has a secret) and sends VOUCH in place of SETUP: the
 * workload and its protocol, the data address, port and token it was given, and a nonce of
 * its own. The server agent answers from its pending path, without taking its test slot: ACK
 * only when the test it runs now has that token (random, new for each test, known only to the
 * controller that set it up) and data port, is that workload over that protocol (a tcp-rr
 * test's port vouches for no UDP service on the same number), serves on that address, and
 * takes traffic from the asker's host; else ERROR saying which. With a secret the ACK is
 * HMAC-signed over the nonce and all it vouches for, and the client agent, which must hold the
 * same secret, checks it: nobody without the secret can vouch for an address. Without one,
 * the data address must be the very address the client agent reached the server agent at, and
 * where that agent is on this host (its socket is in this namespace's /proc/net/tcp, as a
 * loopback one always is) it must belong to root or to this agent's own user: a fake "agent"
 * another local user starts on 127.x says yes to nothing.
 */
#ifndef SB_VOUCH_H
#define SB_VOUCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "link/auth.h"

#define VOUCH_PEERS_MAX 64 /* a test's client hosts, as server_side.c takes them */
#define VOUCH_MS 3000	   /* the client agent's connect and each answer it waits for */

struct server_ctx;
struct ctl_frame;

/* What the server agent vouches for: the test its session runs now, if any. The session
 * thread writes it, the agent's main thread reads it to answer VOUCH: under lock. */
struct vouch_board {
	pthread_mutex_t lock;
	bool open;
	uint64_t token;
	int port;
	struct sockaddr_storage addr; /* the data sockets' address */
	struct sockaddr_storage peer; /* the controller's host */
	struct sockaddr_storage also[VOUCH_PEERS_MAX];
	int nalso;
	_Atomic bool *vouched; /* the test's server_ctx.also_vouched, marked as hosts ask */
	char workload[16];     /* the test's workload ("tcp-rr") */
	char proto[4];	       /* its data sockets' protocol: "tcp" or "udp" */
};

void vouch_board_init(struct vouch_board *b);
/* The session's test (workload over proto, "tcp" or "udp") is set up (its data port open, its
 * token drawn): vouch for it until vouch_withdraw. b may be NULL (nothing to publish to). */
void vouch_publish(struct vouch_board *b, const struct server_ctx *s, const char *workload,
		   const char *proto);
void vouch_withdraw(struct vouch_board *b);
/* The answer to a VOUCH payload from asker, in reply; returns its type: CTL_MSG_ACK with the
 * attestation (signed with key when there is one), or CTL_MSG_ERROR with why not. */
unsigned vouch_answer(struct vouch_board *b, const struct auth_key *key,
		      const struct sockaddr_storage *asker, const char *payload, char *reply,
		      size_t rlen);

/* The target a client-side SETUP names. */
struct vouch_target {
	char addr[64]; /* the server's data address, numeric */
	int port;
	uint64_t token;
	char ctl_addr[64]; /* the server agent's control address, numeric */
	int ctl_port;
	char workload[16]; /* what the clients will run: the client agent's own SETUP's */
	char proto[4];	   /* and its protocol, "tcp" or "udp" */
};

/* The protocol of a workload whose /proc/net/snmp row is snmp_proto ("Tcp"): "tcp" or "udp". */
const char *vouch_proto(const char *snmp_proto);

/* target.* of a client-side SETUP payload (workload and proto left empty: the caller's). 0,
 * or -EINVAL with err. Pure. */
int vouch_target_parse(const char *payload, struct vouch_target *t, char *err, size_t errlen);
/* Do a and b name the same address exactly (numeric strings; ports aside)? */
bool vouch_same_ip(const char *a, const char *b);
/* The VOUCH payload for t with the client agent's nonce (hex). Pure. */
void vouch_request(const struct vouch_target *t, const char *nonce, char *buf, size_t len);
/* The server agent's answer to vouch_request(t, nonce): 0 when it vouches for t (signed with
 * key, when there is one), else -EPERM (it says no) / -EACCES (not signed with key) / -EPROTO,
 * with err. Pure. */
int vouch_reply_check(const struct vouch_target *t, const struct auth_key *key, const char *nonce,
		      const struct ctl_frame *answer, char *err, size_t errlen);
/* Ask the server agent t names whether it vouches for t: 0, or -errno with a one-line err
 * that a controller can show as is. Waits at most about 3 * VOUCH_MS. */
int vouch_ask(const struct vouch_target *t, const struct auth_key *key, char *err, size_t errlen);

#endif
