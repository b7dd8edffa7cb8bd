/* opts_vocab.c: our short flags that mean something else to iperf3, netperf, sockperf or neper
 * users (docs/vocabulary.md). -t and -R take iperf3's meaning (the duration, --reverse) and
 * catch their old one; -l, -r, -c and -i name the peers' meaning where a value shows it (-l
 * 1400, -r 64,64, -c HOST, -i HOST). The peers' flags that are not ours are opts_peers.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/opts_priv.h"

/* A bare -l above this many seconds asks for a unit (-l 1400s). */
#define VOCAB_LONG_S 600

struct retired {
	int c;
	const char *field; /* the option it was (or is now, for -t and -R) */
};

static const struct retired retired[] = {
	{'t', "duration"},
	{'R', "runs"},
	{0, NULL},
};

/* The retired entry for c that applies to defs (its option is in the table), or NULL. */
static const struct retired *retired_of(const struct opt_def *defs, int c)
{
	for (const struct retired *r = retired; r->c; r++)
		if (r->c == c && opts_find_field(defs, r->field))
			return r;
	return NULL;
}

void opts_vocab_shorts(const struct opt_def *defs, char *shorts)
{
	size_t k = strlen(shorts);

	for (const struct retired *r = retired; r->c; r++) {
		if (strchr(shorts, r->c) || retired_of(defs, r->c) != r)
			continue;
		shorts[k++] = (char)r->c;
		shorts[k++] = ':';
		if (r->c == 'R') /* -R alone is --reverse; -R2 is caught as the old --runs */
			shorts[k++] = ':';
	}
	shorts[k] = '\0';
	opts_peers_shorts(shorts);
}

static bool is_count(const char *s)
{
	char *end;

	if (!s || !*s)
		return false;
	(void)strtol(s, &end, 10);
	return !*end;
}

/* -R: iperf3's --reverse; "-R 2" (the old --runs 2) is an error for one release. */
static int vocab_reverse(const struct opt_def *defs, const char *arg, const char *next,
			 struct opts *o, char *err, size_t errlen)
{
	const struct opt_def *rev = opts_find_field(defs, "reverse");
	const char *n = arg ? arg : is_count(next) ? next : NULL;

	if (arg && !is_count(arg)) {
		snprintf(err, errlen, "-R%.*s%s: -R (--reverse) takes no value; give it alone or last "
			 "in a group of flags (-jR)", OPTS_VAL(arg));
		return -EINVAL;
	}
	if (n) {
		snprintf(err, errlen, "-R %.*s%s: the number of runs is --runs %.*s%s now (-R alone is "
			 "--reverse, as iperf3's -R; neper's -R, a response size, is --response %.*s%s)",
			 OPTS_VAL(n), OPTS_VAL(n), OPTS_VAL(n));
		return -EINVAL;
	}
	if (!rev) {
		snprintf(err, errlen, "-R is --reverse (as iperf3's -R), which this workload has not; "
			 "repeated runs are --runs N");
		return -EINVAL;
	}
	*(bool *)field(o, rev) = true;
	o->set[rev->id] = true;
	return 0;
}

/* -t: iperf3's duration. A bare number was --timeout in milliseconds before: an error for one
 * release, so that `-t 10` never silently turns from 10 ms into 10 s. */
static int vocab_time(const struct opt_def *defs, const char *arg, struct opts *o, char *err,
		      size_t errlen)
{
	const struct opt_def *dur = opts_find_field(defs, "duration");
	const char *who, *test = opts_peer_test(arg, &who);

	if (test) {
		snprintf(err, errlen, "-t %.*s%s: %s test %.*s%s is a workload here: sockbench %s",
			 OPTS_VAL(arg), who, OPTS_VAL(arg), test);
		return -EINVAL;
	}
	if (!strchr("0123456789.", *arg)) /* not a number: --duration says why */
		return opts_set_value(dur, arg, o, err, errlen);
	if (!opts_has_unit(arg) && opts_find_field(defs, "timeout")) {
		snprintf(err, errlen, "-t %.*s%s: -t is the duration now, as iperf3's -t: give a unit "
			 "(-t %.*s%ss, or -l %.*s%s); the stall timeout that -t was is --timeout %.*s%s "
			 "(milliseconds)", OPTS_VAL(arg), OPTS_VAL(arg), OPTS_VAL(arg), OPTS_VAL(arg));
		return -EINVAL;
	}
	if (!opts_has_unit(arg)) {
		snprintf(err, errlen, "-t %.*s%s: -t is the duration now, as iperf3's -t: give a unit "
			 "(-t %.*s%ss, or -l %.*s%s)", OPTS_VAL(arg), OPTS_VAL(arg), OPTS_VAL(arg));
		return -EINVAL;
	}
	o->set[dur->id] = true;
	return opts_set_value(dur, arg, o, err, errlen);
}

int opts_vocab(const struct opt_def *defs, const struct short_flag *f, struct opts *o, char *err,
	       size_t errlen)
{
	const struct retired *r = retired_of(defs, f->c);

	if (!r)
		return opts_peer_short(defs, f->c, f->arg, err, errlen);
	if (f->c == 'R')
		return vocab_reverse(defs, f->arg, f->next, o, err, errlen);
	if (f->c == 't')
		return vocab_time(defs, f->arg, o, err, errlen);
	return -EINVAL;
}

void opts_vocab_hint(const struct opt_def *d, int c, const char *arg, char *err, size_t errlen)
{
	size_t n = strlen(err);

	if (c == 'c' && d->id == OPT_ID_clients && !is_count(arg) && n < errlen)
		snprintf(err + n, errlen - n, " (-c is --clients N; iperf3's -c HOST is --server HOST)");
	/* sockperf's -i is the server's address; netperf's -i MAX,MIN its iterations. */
	if (c == 'i' && d->id == OPT_ID_interval && strchr(arg, ',') && n < errlen)
		snprintf(err + n, errlen - n, " (-i is --interval S; netperf's -i MAX,MIN, its "
			 "iterations, is --runs N)");
	else if (c == 'i' && d->id == OPT_ID_interval && n < errlen)
		snprintf(err + n, errlen - n, " (-i is --interval S; sockperf's -i %.*s%s, the server's "
			 "address, is --server %.*s%s)", OPTS_VAL(arg), OPTS_VAL(arg));
}

int opts_vocab_value(const struct opt_def *d, int c, const char *arg, char *err, size_t errlen)
{
	char *end;
	double s;

	if (!arg)
		return 0;
	s = strtod(arg, &end);
	/* -r 64,64: netperf's request and response sizes, not "unknown unit ,64". */
	if ((c == 'r' || c == 'q') && strchr(arg, ',')) {
		opts_peer_sizes(arg, err, errlen);
		return -EINVAL;
	}
	/* -l 1400: iperf3's length (-m 1400 here), or netperf's seconds; a run that long is asked
	 * for with a unit, never started by a habit. */
	if (c == 'l' && d->id == OPT_ID_duration && *arg && *end == '\0' &&
	    !arg[strspn(arg, "0123456789.")] && s > VOCAB_LONG_S) {
		snprintf(err, errlen, "-l %.*s%s is %.0f minutes; write -l %.*s%ss if you mean it "
			 "(iperf3's -l %.*s%s, a length, is -m %.*s%s)", OPTS_VAL(arg), s / 60,
			 OPTS_VAL(arg), OPTS_VAL(arg), OPTS_VAL(arg));
		return -EINVAL;
	}
	return 0;
}

void opts_flag_value_err(const struct opt_def *d, const char *val, char *err, size_t errlen)
{
	int n = snprintf(err, errlen, "--%s takes no value: give --%s alone", d->name, d->name);

	/* -R 2 was --runs 2, and a user who learnt that may spell it --reverse=2. */
	if (d->id == OPT_ID_reverse && is_count(val) && n > 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n, "; did you mean --runs %.*s%s?", OPTS_VAL(val));
	else if (n > 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n, " (it was given '%.*s%s')", OPTS_VAL(val));
}
