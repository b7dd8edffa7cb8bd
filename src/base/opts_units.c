/* opts_units.c: sizes with K/M/G (KiB/MiB/GiB), times with us/ms/s/m and bit rates with k/M/G,
 * for every option whose metavar says it is one (BYTES; S, MS, USEC; BITS_PER_S). A bare number
 * keeps the option's own unit. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/opts_priv.h"

struct unit {
	const char *word;
	double mul;
};

/* iperf3's convention for sizes: K is 1024 (its -l 128K is 131072); KiB says so explicitly.
 * Both cases, as iperf3 takes them. */
static const struct unit size_units[] = {
	{"K", 1024.0}, {"k", 1024.0}, {"KiB", 1024.0},
	{"M", 1048576.0}, {"m", 1048576.0}, {"MiB", 1048576.0},
	{"G", 1073741824.0}, {"g", 1073741824.0}, {"GiB", 1073741824.0},
	{NULL, 0},
};

/* Bits per second: iperf3's -b, whose k, M and G are 1000-based (its -b 100M is 10^8), both
 * cases, as iperf3 takes them. */
static const struct unit bit_units[] = {
	{"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"m", 1e6}, {"G", 1e9}, {"g", 1e9}, {NULL, 0},
};

/* In seconds. */
static const struct unit time_units[] = {
	{"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"m", 60.0}, {"h", 3600.0}, {NULL, 0},
};

enum opt_unit opts_unit_of(const struct opt_def *d)
{
	if (d->type != OPT_INT && d->type != OPT_DBL)
		return UNIT_NONE;
	if (!d->metavar)
		return UNIT_NONE;
	if (!strcmp(d->metavar, "BYTES"))
		return UNIT_BYTES;
	if (!strcmp(d->metavar, "S"))
		return UNIT_S;
	if (!strcmp(d->metavar, "MS"))
		return UNIT_MS;
	if (!strcmp(d->metavar, "USEC"))
		return UNIT_US;
	if (!strcmp(d->metavar, "BITS_PER_S"))
		return UNIT_BITS;
	return UNIT_NONE;
}

/* Seconds per one of the option's bare numbers. */
static double base_seconds(enum opt_unit u)
{
	return u == UNIT_MS ? 1e-3 : u == UNIT_US ? 1e-6 : 1.0;
}

/* The length of val's number: an optional minus, digits, then a fraction only as '.' and
 * digits ("0.5"); 0 if val does not start so. strtod alone would take "0x10", "1e3", "inf" and
 * leading blanks. */
static size_t decimal_len(const char *val)
{
	size_t sign = *val == '-' && isdigit((unsigned char)val[1]); /* -5: out of range, below */
	size_t n = sign + strspn(val + sign, "0123456789");

	if (n > sign && val[n] == '.' && isdigit((unsigned char)val[n + 1]))
		n += 1 + strspn(val + n + 1, "0123456789");
	return n;
}

bool opts_has_unit(const char *val)
{
	size_t n = decimal_len(val);

	return n && val[n];
}

/* "--size '0x10' is not a size: ..." (a time, a bit rate). */
static void not_a_number(const struct opt_def *d, const char *val, char *err, size_t errlen)
{
	enum opt_unit u = opts_unit_of(d);

	if (u == UNIT_BYTES)
		snprintf(err, errlen, "--%s '%.*s%s' is not a size: give decimal digits, with a unit if "
			 "you like (64, 64K, 1.5MiB; not 0x10 or 1e3)", d->name, OPTS_VAL(val));
	else if (u == UNIT_BITS)
		snprintf(err, errlen, "--%s '%.*s%s' is not a bit rate: give decimal digits, with a "
			 "unit if you like (100M, 1.5G, 800k; not 0x10 or 1e3)", d->name,
			 OPTS_VAL(val));
	else
		snprintf(err, errlen, "--%s '%.*s%s' is not a time: give decimal digits, a fraction "
			 "and a unit if you like (%s, 500ms, 1.5s; not 0x10 or 1e3)", d->name,
			 OPTS_VAL(val), u == UNIT_S ? "10" : "200");
}

/* "--size 64Q: unknown unit Q; use K, M, ..." */
static void unknown_unit(const struct opt_def *d, const char *val, const char *unit, char *err,
			 size_t errlen)
{
	enum opt_unit u = opts_unit_of(d);

	if (u == UNIT_BYTES)
		snprintf(err, errlen, "--%s %.*s%s: unknown unit %.*s%s; use K, M, G, KiB, MiB or GiB "
			 "(1024-based, as iperf3), or a bare number of bytes", d->name, OPTS_VAL(val),
			 OPTS_VAL(unit));
	else if (u == UNIT_BITS)
		snprintf(err, errlen, "--%s %.*s%s: unknown unit %.*s%s; use k, M or G (1000-based "
			 "bits per second, as iperf3's -b), or a bare number of bits per second",
			 d->name, OPTS_VAL(val), OPTS_VAL(unit));
	else
		snprintf(err, errlen, "--%s %.*s%s: unknown unit %.*s%s; use us, ms, s, m or h, or a "
			 "bare number (%s)", d->name, OPTS_VAL(val), OPTS_VAL(unit),
			 u == UNIT_S ? "seconds" : u == UNIT_MS ? "milliseconds" : "microseconds");
}

int opts_unit_value(const struct opt_def *d, const char *val, double *v, char *err, size_t errlen)
{
	enum opt_unit u = opts_unit_of(d);
	const struct unit *t = u == UNIT_BYTES ? size_units : u == UNIT_BITS ? bit_units : time_units;
	char *end;

	size_t n = decimal_len(val);
	const char *e = val + n;

	/* 0x10 and 1e3, which strtod takes, are not sizes or times here: say so, not "unit x10". */
	if (!n || (n == 1 && *val == '0' && (*e == 'x' || *e == 'X')) ||
	    ((*e == 'e' || *e == 'E') && strchr("0123456789+-", e[1]) && e[1])) {
		not_a_number(d, val, err, errlen);
		return -EINVAL;
	}
	errno = 0;
	*v = strtod(val, &end); /* decimal digits only, checked above */
	end = (char *)val + n;
	if (errno || !isfinite(*v)) {
		snprintf(err, errlen, "--%s '%.*s%s' is too large", d->name, OPTS_VAL(val));
		return -EINVAL;
	}
	if (!*end)
		return 0;
	for (; t->word; t++) {
		if (strcmp(end, t->word))
			continue;
		*v *= u == UNIT_BYTES || u == UNIT_BITS ? t->mul : t->mul / base_seconds(u);
		return 0;
	}
	unknown_unit(d, val, end, err, errlen);
	return -EINVAL;
}

int opts_number(const struct opt_def *d, const char *val, double *v, char *err, size_t errlen)
{
	char *end;

	if (opts_unit_of(d) != UNIT_NONE)
		return opts_unit_value(d, val, v, err, errlen);
	errno = 0;
	*v = strtod(val, &end);
	if (errno || end == val || *end || !isfinite(*v)) {
		snprintf(err, errlen, "--%s '%.*s%s' is not a number", d->name, OPTS_VAL(val));
		return -EINVAL;
	}
	return 0;
}
