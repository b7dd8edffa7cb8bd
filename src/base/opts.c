/* opts.c: the option tables, their defaults, and one value set from its text (opts.h). */
#include "base/opts.h"
#include "base/opts_priv.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define OPT_DEF_(t, f, d, s, n, lo, hi, mv, h)                                                     \
	{.name = n,                                                                                \
	 .field = #f,                                                                              \
	 .id = OPT_ID_##f,                                                                         \
	 .shortc = s,                                                                              \
	 .type = OPT_##t,                                                                          \
	 .off = offsetof(struct opts, f),                                                          \
	 .min = lo,                                                                                \
	 .max = hi,                                                                                \
	 .metavar = mv,                                                                            \
	 .help = h},

#define KNOB_DEFS_UDP IP_KNOB_OPTS(OPT_DEF_)
#define KNOB_DEFS_TCP TCP_KNOB_OPTS(OPT_DEF_) IP_KNOB_OPTS(OPT_DEF_)

const struct opt_def opts_udp_rr[] = {COMMON_OPTS(OPT_DEF_) TIMEOUT_OPT(OPT_DEF_) AUTH_OPT(OPT_DEF_)
	WINDOW_OPT(OPT_DEF_) SIZE_OPT(OPT_DEF_) UDP_RR_OPTS(OPT_DEF_) OPENLOOP_OPTS(OPT_DEF_)
	SRC_ADDRS_OPT(OPT_DEF_) KNOB_DEFS_UDP {0}};
const struct opt_def opts_tcp_crr[] = {COMMON_OPTS(OPT_DEF_) TIMEOUT_OPT(OPT_DEF_) AUTH_OPT(
	OPT_DEF_) TCP_CRR_OPTS(OPT_DEF_) SIZE_OPT(OPT_DEF_) REQUEST_OPT(OPT_DEF_) TCP_OPTS(OPT_DEF_)
	PIN_OPTS(OPT_DEF_) OPENLOOP_OPTS(OPT_DEF_) KNOB_DEFS_TCP {0}};
const struct opt_def opts_tcp_rr[] = {COMMON_OPTS(OPT_DEF_) TIMEOUT_OPT(OPT_DEF_) AUTH_OPT(
	OPT_DEF_) FLOWS_OPT(OPT_DEF_) SIZE_OPT(OPT_DEF_) TCP_RR_OPTS(OPT_DEF_) REQUEST_OPT(OPT_DEF_)
	WINDOW_OPT(OPT_DEF_) TCP_OPTS(OPT_DEF_) PIN_OPTS(OPT_DEF_) OPENLOOP_OPTS(OPT_DEF_)
	SRC_ADDRS_OPT(OPT_DEF_) KNOB_DEFS_TCP {0}};
const struct opt_def opts_tcp_stream[] = {COMMON_OPTS(OPT_DEF_) TIMEOUT_OPT(OPT_DEF_) AUTH_OPT(
	OPT_DEF_) FLOWS_OPT(OPT_DEF_) SIZE_OPT(OPT_DEF_) TCP_STREAM_OPTS(OPT_DEF_) REVERSE_OPT(
	OPT_DEF_) TCP_OPTS(OPT_DEF_) WAIT_OPT(OPT_DEF_) PIN_OPTS(OPT_DEF_) KNOB_DEFS_TCP {0}};
const struct opt_def opts_udp_stream[] = {COMMON_OPTS(OPT_DEF_) AUTH_OPT(OPT_DEF_) SIZE_OPT(
	OPT_DEF_) UDP_STREAM_OPTS(OPT_DEF_) BYTES_OPT(OPT_DEF_) REVERSE_OPT(OPT_DEF_) UDP_RR_OPTS(
	OPT_DEF_) BUF_OPTS(OPT_DEF_) KNOB_DEFS_UDP {0}};
const struct opt_def opts_serve[] = {SERVE_OPTS(OPT_DEF_) AUTH_OPT(OPT_DEF_){0}};

#define OPT_SET_DEFAULT_(t, f, d, s, n, lo, hi, mv, h) opt_default_##t(&o->f, d, mv);

/* The index of val among the |-separated words of choices, or -1. */
static int choice_index(const char *choices, const char *val)
{
	size_t n = strlen(val);
	int i = 0;

	for (const char *p = choices; *p; i++) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (n && len == n && !strncmp(p, val, n))
			return i;
		if (!bar)
			break;
		p = bar + 1;
	}
	return -1;
}

static void opt_default_INT(long *p, long v, const char *mv) { (void)mv, *p = v; }
static void opt_default_DBL(double *p, double v, const char *mv) { (void)mv, *p = v; }
static void opt_default_BOOL(bool *p, bool v, const char *mv) { (void)mv, *p = v; }
static void opt_default_STR(char **p, const char *v, const char *mv)
{
	(void)mv;
	*p = v ? xstrdup(v) : NULL;
}
static void opt_default_ENUM(int *p, const char *v, const char *mv) { *p = choice_index(mv, v); }

static const struct opt_def all_defs[] = {ALL_OPTS(OPT_DEF_){0}};


const struct opt_def *opt_find(const struct opt_def *defs, const char *name, size_t len)
{
	for (; defs->name; defs++)
		if (strlen(defs->name) == len && !strncmp(defs->name, name, len))
			return defs;
	return NULL;
}

void opts_defaults(struct opts *o, const struct opt_override *ov)
{
	char err[160];

	memset(o, 0, sizeof(*o));
	ALL_OPTS(OPT_SET_DEFAULT_)
	for (; ov && ov->field; ov++) {
		const struct opt_def *d = opts_find_field(all_defs, ov->field);

		/* A bad override is a bug in a workload table, caught by the unit tests. No def:
		 * the default stays (an override of the help alone). */
		if (!d || (ov->def && opts_set_value(d, ov->def, o, err, sizeof(err))))
			abort();
	}
}

#define OPT_FREE_STR_(t, f, d, s, n, lo, hi, mv, h) opt_free_##t(&o->f);
static void opt_free_INT(long *p) { (void)p; }
static void opt_free_DBL(double *p) { (void)p; }
static void opt_free_BOOL(bool *p) { (void)p; }
static void opt_free_STR(char **p)
{
	free(*p);
	*p = NULL;
}
static void opt_free_ENUM(int *p) { (void)p; }

void opts_free(struct opts *o)
{
	ALL_OPTS(OPT_FREE_STR_)
}

/* v with thousands separators where whole ("65,507"), else as %g ("0.1"). */
static const char *grouped(double v, char *buf, size_t n)
{
	char digits[32];
	size_t len, k = 0;

	if (v != floor(v) || fabs(v) >= 1e18) {
		snprintf(buf, n, "%g", v);
		return buf;
	}
	len = (size_t)snprintf(digits, sizeof(digits), "%.0f", fabs(v));
	if (v < 0 && k + 1 < n)
		buf[k++] = '-';
	for (size_t i = 0; i < len && k + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = '\0';
	return buf;
}

/* What the option's number counts, for a range: its unit, or for a plain count the first
 * clause of its help ("requests outstanding per client"). */
static void count_words(const struct opt_def *d, char *buf, size_t n)
{
	static const char *const unit_words[] = {
		[UNIT_BYTES] = "bytes", [UNIT_S] = "seconds", [UNIT_MS] = "milliseconds",
		[UNIT_US] = "microseconds", [UNIT_BITS] = "bits per second",
	};
	enum opt_unit u = opts_unit_of(d);

	if (u != UNIT_NONE)
		snprintf(buf, n, " %s", unit_words[u]);
	else if (d->help && *d->help)
		snprintf(buf, n, " (%.*s)", (int)strcspn(d->help, "(:;"), d->help);
	else
		buf[0] = '\0';
	for (size_t k = strlen(buf); k > 1 && buf[k - 2] == ' ' && buf[k - 1] == ')'; k--)
		memmove(buf + k - 2, buf + k - 1, 2); /* "(client processes )" */
}

/* "--size 70K (71,680 bytes) is out of range: use 1 to 65,507 bytes". */
static int range_err(const struct opt_def *d, const char *val, double v, char *err, size_t errlen)
{
	char lo[32], hi[32], got[48] = "", words[120];

	count_words(d, words, sizeof(words));
	if (opts_has_unit(val))
		snprintf(got, sizeof(got), " (%s%s)", grouped(v, lo, sizeof(lo)),
			 opts_unit_of(d) == UNIT_BYTES ? " bytes" : words);
	snprintf(err, errlen, "--%s %.*s%s%s is out of range: use %s to %s%s", d->name,
		 OPTS_VAL(val), got, grouped(d->min, lo, sizeof(lo)), grouped(d->max, hi, sizeof(hi)),
		 words);
	return -EINVAL;
}

/* The words of every enum option, split once. */
#define MAX_WORDS 8
static char words[OPT_ID_COUNT][MAX_WORDS][24];
static pthread_once_t words_once = PTHREAD_ONCE_INIT;

static void words_split(void)
{
	for (const struct opt_def *d = all_defs; d->name; d++) {
		const char *p = d->metavar;

		for (int i = 0; d->type == OPT_ENUM && *p && i < MAX_WORDS; i++) {
			size_t len = strcspn(p, "|");

			snprintf(words[d->id][i], sizeof(words[d->id][i]), "%.*s", (int)len, p);
			p += len + (p[len] == '|');
		}
	}
}

const char *opts_word(enum opt_id id, int v)
{
	pthread_once(&words_once, words_split);
	if ((unsigned)id >= OPT_ID_COUNT || v < 0 || v >= MAX_WORDS || !words[id][v][0])
		return "?";
	return words[id][v];
}

/* An INT or DBL option that counts bytes or time: a unit may follow the number. */
static int set_with_unit(const struct opt_def *d, const char *val, struct opts *o, char *err,
			 size_t errlen)
{
	double v;

	if (opts_unit_value(d, val, &v, err, errlen))
		return -EINVAL;
	if (v < d->min || v > d->max)
		return range_err(d, val, v, err, errlen);
	if (d->type == OPT_DBL) {
		*(double *)field(o, d) = v;
		return 0;
	}
	if (fabs(v - round(v)) < 1e-9 * fmax(1.0, fabs(v))) /* 1ms in USEC: 999.99999... */
		v = round(v);
	if (v != floor(v)) {
		snprintf(err, errlen, "--%s %.*s%s is not a whole number of %s", d->name, OPTS_VAL(val),
			 opts_unit_of(d) == UNIT_BYTES ? "bytes"
			 : opts_unit_of(d) == UNIT_BITS ? "bits per second"
			 : opts_unit_of(d) == UNIT_MS ? "milliseconds" : "microseconds");
		return -EINVAL;
	}
	*(long *)field(o, d) = (long)v;
	return 0;
}

/* A string option: a list (max > 0) takes one more line for each time it is given. */
static int set_str(const struct opt_def *d, const char *val, struct opts *o, char *err,
		   size_t errlen)
{
	char **p = (char **)field(o, d);

	if (!*val) {
		snprintf(err, errlen, "--%s needs a non-empty value", d->name);
		return -EINVAL;
	}
	if (d->max > 0 && *p) { /* a list: one more line */
		size_t a = strlen(*p), b = strlen(val);

		if (strchr(val, '\n')) {
			snprintf(err, errlen, "--%s: a value has no newline", d->name);
			return -EINVAL;
		}
		*p = realloc(*p, a + b + 2);
		if (!*p)
			abort();
		(*p)[a] = '\n';
		memcpy(*p + a + 1, val, b + 1);
		return 0;
	}
	free(*p);
	*p = xstrdup(val);
	return 0;
}

/* Set one option from its text value. */
int opts_set_value(const struct opt_def *d, const char *val, struct opts *o, char *err,
		     size_t errlen)
{
	char *end;

	switch (d->type) {
	case OPT_BOOL:
		*(bool *)field(o, d) = true;
		return 0;
	case OPT_ENUM: {
		int k = choice_index(d->metavar, val);

		if (k < 0) {
			snprintf(err, errlen, "--%s %.*s%s is not one of %s", d->name, OPTS_VAL(val),
				 d->metavar);
			return -EINVAL;
		}
		*(int *)field(o, d) = k;
		return 0;
	}
	case OPT_STR:
		return set_str(d, val, o, err, errlen);
	case OPT_U64: {
		errno = 0;
		unsigned long long v = strtoull(val, &end, 10);

		if (errno || end == val || *end || *val == '-' || (double)v < d->min) {
			snprintf(err, errlen, "--%s %.*s%s: give a whole number of %.0f or more",
				 d->name, OPTS_VAL(val), d->min);
			return -EINVAL;
		}
		*(uint64_t *)field(o, d) = v;
		return 0;
	}
	case OPT_INT: {
		if (opts_unit_of(d) != UNIT_NONE)
			return set_with_unit(d, val, o, err, errlen);
		errno = 0;
		long v = strtol(val, &end, 10);

		if (errno || end == val || *end) {
			snprintf(err, errlen, "--%s '%.*s%s' is not a whole number", d->name,
				 OPTS_VAL(val));
			return -EINVAL;
		}
		if (v < d->min || v > d->max)
			return range_err(d, val, (double)v, err, errlen);
		*(long *)field(o, d) = v;
		return 0;
	}
	case OPT_DBL: {
		if (opts_unit_of(d) != UNIT_NONE)
			return set_with_unit(d, val, o, err, errlen);
		errno = 0;
		double v = strtod(val, &end);

		if (errno || end == val || *end || !isfinite(v)) {
			snprintf(err, errlen, "--%s '%.*s%s' is not a number", d->name, OPTS_VAL(val));
			return -EINVAL;
		}
		if (v < d->min || v > d->max)
			return range_err(d, val, (double)v, err, errlen);
		*(double *)field(o, d) = v;
		return 0;
	}
	}
	return -EINVAL;
}

void opts_own_defaults(const struct opt_def *defs, void *base)
{
	char err[160];

	for (; defs->name; defs++)
		if (defs->def && opts_set_value(defs, defs->def, base, err, sizeof(err)))
			abort();
}

/* The own flag word a names: --name, --name=VALUE (*val: after the '=') or -c; NULL if none. */
static const struct opt_def *own_flag(const struct opt_def *defs, const char *a, const char **val)
{
	const char *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);

	*val = NULL;
	for (; defs->name; defs++) {
		if (a[0] == '-' && a[1] && a[1] == defs->shortc && !a[2])
			return defs;
		if (!strncmp(a, "--", 2) && strlen(defs->name) == len - 2 &&
		    !strncmp(defs->name, a + 2, len - 2)) {
			*val = eq ? eq + 1 : NULL;
			return defs;
		}
	}
	return NULL;
}

int opts_take(const struct opt_def *defs, void *base, const struct opts_words *w, char **rest,
	      char *err, size_t errlen)
{
	int nrest = 0;

	for (int i = 0; i < w->argc; i++) {
		const char *val;
		const struct opt_def *d = own_flag(defs, w->argv[i], &val);

		if (!d) {
			rest[nrest++] = w->argv[i];
			continue;
		}
		if (d->type == OPT_BOOL && val) {
			opts_flag_value_err(d, val, err, errlen);
			return -EINVAL;
		}
		if (d->type != OPT_BOOL && !val) {
			if (i + 1 >= w->argc) {
				snprintf(err, errlen, "%s needs a value", w->argv[i]);
				return -EINVAL;
			}
			val = w->argv[++i];
		}
		if (opts_set_value(d, val ? val : "", base, err, errlen))
			return -EINVAL;
	}
	return nrest;
}

const struct opt_def *opts_find_field(const struct opt_def *defs, const char *name)
{
	for (; defs->name; defs++)
		if (!strcmp(defs->field, name))
			return defs;
	return NULL;
}
