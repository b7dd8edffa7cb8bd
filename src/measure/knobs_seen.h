/* knobs_seen.h: the socket knobs one side found in force, read back from one of its sockets
 * (transport/knobs.c reads them): congestion control, MSS, TOS, local address and device. It
 * travels with the side's result (the client processes' reports, the agent's RESULT) and
 * goes into the JSON document as "sockets". Memory and JSON only. */
#ifndef SB_KNOBS_SEEN_H
#define SB_KNOBS_SEEN_H

#include <stdbool.h>

struct cJSON;

struct knobs_seen {
	int claimed;	/* a thread has taken the read-back (atomic builtins only) */
	bool seen;	/* read from a socket */
	bool tcp;	/* cc and mss apply */
	char cc[16];	/* TCP_CONGESTION */
	int mss;	/* TCP_MAXSEG of a connected socket */
	int tos;	/* IP_TOS or IPV6_TCLASS */
	char local[64]; /* getsockname()'s address ("": not bound yet, a UDP socket) */
	char dev[16];	/* SO_BINDTODEVICE ("": none) */
};

/* Take b into a where a has seen nothing yet (the first process to report speaks). */
void knobs_seen_merge(struct knobs_seen *a, const struct knobs_seen *b);
/* The config's cc and tos (where the workload has them) made the values in force on the
 * client's socket: what was asked, or the kernel's own when nothing was. */
void knobs_seen_config(struct cJSON *config, const struct knobs_seen *client);
/* As JSON: an object, or null when nothing was seen (caller frees). */
struct cJSON *knobs_seen_to_json(const struct knobs_seen *k);
/* Back from knobs_seen_to_json's object (null or absent: nothing seen). 0 or -EINVAL. */
int knobs_seen_from_json(const struct cJSON *j, struct knobs_seen *k);

#endif
