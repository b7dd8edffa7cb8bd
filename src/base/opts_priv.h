/* opts_priv.h: what the option parser's files share (opts.c, opts_json.c). Not for use
 * outside base/. */
#ifndef SB_OPTS_PRIV_H
#define SB_OPTS_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "base/opts.h"

static inline void *field(struct opts *o, const struct opt_def *d)
{
	return (char *)o + d->off;
}

static inline const void *cfield(const struct opts *o, const struct opt_def *d)
{
	return (const char *)o + d->off;
}

/* Set one option from its text value, with its checks. 0 or -EINVAL with err. */
int opts_set_value(const struct opt_def *d, const char *val, struct opts *o, char *err,
		   size_t errlen);
/* defs with a workload's help and ranges applied (caller frees). */
struct opt_def *opts_effective(const struct opt_def *defs, const struct opt_override *ov);
/* What an option's number counts, from its metavar (opts_units.c). */
enum opt_unit { UNIT_NONE, UNIT_BYTES, UNIT_S, UNIT_MS, UNIT_US, UNIT_BITS };
enum opt_unit opts_unit_of(const struct opt_def *d);
/* val as a number of the option's own unit: a bare number is one, "64K" or "500ms" is
 * converted. 0 or -EINVAL with err ("--size 64Q: unknown unit Q; use K, M, ..."). */
int opts_unit_value(const struct opt_def *d, const char *val, double *v, char *err, size_t errlen);
/* Does val, a number, carry a unit after it ("10s")? */
bool opts_has_unit(const char *val);
/* Add to getopt's shorts the retired short flags that apply to defs (opts_vocab.c). */
void opts_vocab_shorts(const struct opt_def *defs, char *shorts);
/* A short flag as getopt gave it: its letter, its value (NULL: none) and the word after it
 * (NULL: none). */
struct short_flag {
	int c;
	const char *arg, *next;
};
/* Short flag f->c, not in defs: its peers' meaning (-t 10s, -R) or the error naming its new
 * spelling (0 or -EINVAL with err); -ENOENT: not a retired flag. */
int opts_vocab(const struct opt_def *defs, const struct short_flag *f, struct opts *o, char *err,
	       size_t errlen);
/* After d given as short flag c failed on arg: add the peers' meaning of c to err. */
void opts_vocab_hint(const struct opt_def *d, int c, const char *arg, char *err, size_t errlen);
/* Before d, given as short flag c, takes arg: -EINVAL with err where the value shows a peer's
 * habit (-l 1400: 23 minutes, asked with a unit; -r 64,64: netperf's sizes); else 0. */
int opts_vocab_value(const struct opt_def *d, int c, const char *arg, char *err, size_t errlen);
/* "--reverse=2": d, a flag, was given a value (the reason, and --runs 2 where that was meant). */
void opts_flag_value_err(const struct opt_def *d, const char *val, char *err, size_t errlen);
/* The peers' vocabulary (opts_peers.c). Add the peers' short flags that are not ours to
 * getopt's shorts. */
void opts_peers_shorts(char *shorts);
/* Short flag c, not ours in defs: -ENOENT if no peer has it, else -EINVAL with err naming our
 * spelling ("-J: iperf3's JSON is -j/--json here"). */
int opts_peer_short(const struct opt_def *defs, int c, const char *arg, char *err, size_t errlen);
/* Long option word ("--mps=100" or "--mps", then next), not in defs: as opts_peer_short. */
int opts_peer_long(const struct opt_def *defs, const char *word, const char *next, char *err,
		   size_t errlen);
/* netperf's -r REQ,RESP, val holding the comma: the error naming --request and --response. */
void opts_peer_sizes(const char *val, char *err, size_t errlen);
/* A peer's test name (netperf's TCP_RR, neper's tcp_rr, sockperf's ping-pong): the workload
 * it is here, and in *who (may be NULL) whose name it is; NULL if none. */
const char *opts_peer_test(const char *name, const char **who);
/* The option of defs whose field is name, or NULL. */
const struct opt_def *opts_find_field(const struct opt_def *defs, const char *name);

#endif
