/* opts_vocab.c: the short flags that mean something else in iperf3 or netperf
 * (docs/vocabulary.md). Some take the peers' meaning (-t: the duration, -R: --reverse); the
 * others are long-only now, and for one release their old short spelling is an error naming
 * the long one, never a silent change of meaning. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/opts_priv.h"

struct retired {
	int c;
	const char *field; /* the option it was (or is now, for -t and -R) */
	const char *msg;   /* NULL: handled below (-t, -R) */
};

static const struct retired retired[] = {
	{'t', "duration", NULL},
	{'R', "runs", NULL},
	{'w', "warmup", "-w is long-only now: the warm-up is --warmup S (iperf3's -w is a socket "
			"buffer: --sndbuf/--rcvbuf)"},
	{'s', "server", "-s is long-only now: give --server HOST[:PORT] to drive a serve agent "
			"(iperf3's -s, the server side, is `sockbench serve`)"},
	{'P', "peers", "-P is long-only now: --peers N is the client sockets in all (iperf3's -P, "
		       "parallel streams, is --flows N in the TCP workloads)"},
	{'P', "flows", "-P is not a flag here: iperf3's -P (parallel streams) is --flows N"},
	{'b', "batch", "-b is long-only now: --batch N (iperf3's -b, a bit rate, is --rate: "
		       "packets per second)"},
	{'T', "server_threads", "-T is long-only now: --server-threads N (netperf's -T, CPU "
				"binding, is --pin)"},
	{'C', "concurrency", "-C is long-only now: --concurrency N (iperf3's -C, the congestion "
			     "control, is --cc NAME)"},
	{0, NULL, NULL},
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
			 "--reverse, as iperf3's -R)", OPTS_VAL(n), OPTS_VAL(n));
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
		return -ENOENT;
	if (f->c == 'R')
		return vocab_reverse(defs, f->arg, f->next, o, err, errlen);
	if (f->c == 't')
		return vocab_time(defs, f->arg, o, err, errlen);
	snprintf(err, errlen, "%s", r->msg);
	return -EINVAL;
}

void opts_vocab_hint(const struct opt_def *d, int c, const char *arg, char *err, size_t errlen)
{
	size_t n = strlen(err);

	if (c == 'c' && d->id == OPT_ID_clients && !is_count(arg) && n < errlen)
		snprintf(err + n, errlen - n, " (-c is --clients N; iperf3's -c HOST is --server HOST)");
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
