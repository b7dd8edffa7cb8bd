/* opts.c: see opts.h. */
#include "base/opts.h"
#include "base/opts_priv.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/suggest.h"
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
	KNOB_DEFS_UDP {0}};
const struct opt_def opts_tcp_crr[] = {COMMON_OPTS(OPT_DEF_) TIMEOUT_OPT(OPT_DEF_) AUTH_OPT(
	OPT_DEF_) TCP_CRR_OPTS(OPT_DEF_) SIZE_OPT(OPT_DEF_) REQUEST_OPT(OPT_DEF_) TCP_OPTS(OPT_DEF_)
	PIN_OPTS(OPT_DEF_) OPENLOOP_OPTS(OPT_DEF_) KNOB_DEFS_TCP {0}};
const struct opt_def opts_tcp_rr[] = {COMMON_OPTS(OPT_DEF_) TIMEOUT_OPT(OPT_DEF_) AUTH_OPT(
	OPT_DEF_) FLOWS_OPT(OPT_DEF_) SIZE_OPT(OPT_DEF_) TCP_RR_OPTS(OPT_DEF_) REQUEST_OPT(OPT_DEF_)
	WINDOW_OPT(OPT_DEF_) TCP_OPTS(OPT_DEF_) PIN_OPTS(OPT_DEF_) OPENLOOP_OPTS(OPT_DEF_)
	SRC_ADDRS_OPT(OPT_DEF_) KNOB_DEFS_TCP {0}};
const struct opt_def opts_tcp_stream[] = {COMMON_OPTS(OPT_DEF_) TIMEOUT_OPT(OPT_DEF_) AUTH_OPT(
	OPT_DEF_) FLOWS_OPT(OPT_DEF_) SIZE_OPT(OPT_DEF_) TCP_STREAM_OPTS(OPT_DEF_) REVERSE_OPT(
	OPT_DEF_) TCP_OPTS(OPT_DEF_) PIN_OPTS(OPT_DEF_) KNOB_DEFS_TCP {0}};
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

static int range_err(const struct opt_def *d, const char *val, char *err, size_t errlen)
{
	if (d->type == OPT_INT)
		snprintf(err, errlen, "--%s %s is out of range: use %.0f to %.0f", d->name, val,
			 d->min, d->max);
	else
		snprintf(err, errlen, "--%s %s is out of range: use %g to %g", d->name, val, d->min,
			 d->max);
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
		return range_err(d, val, err, errlen);
	if (d->type == OPT_DBL) {
		*(double *)field(o, d) = v;
		return 0;
	}
	if (fabs(v - round(v)) < 1e-9 * fmax(1.0, fabs(v))) /* 1ms in USEC: 999.99999... */
		v = round(v);
	if (v != floor(v)) {
		snprintf(err, errlen, "--%s %s is not a whole number of %s", d->name, val,
			 opts_unit_of(d) == UNIT_BYTES ? "bytes"
			 : opts_unit_of(d) == UNIT_MS ? "milliseconds" : "microseconds");
		return -EINVAL;
	}
	*(long *)field(o, d) = (long)v;
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
			snprintf(err, errlen, "--%s %s is not one of %s", d->name, val, d->metavar);
			return -EINVAL;
		}
		*(int *)field(o, d) = k;
		return 0;
	}
	case OPT_STR:
		if (!*val) {
			snprintf(err, errlen, "--%s needs a non-empty value", d->name);
			return -EINVAL;
		}
		if (d->max > 0 && *(char **)field(o, d)) { /* a list: one more line */
			char **p = (char **)field(o, d);
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
		free(*(char **)field(o, d));
		*(char **)field(o, d) = xstrdup(val);
		return 0;
	case OPT_U64: {
		errno = 0;
		unsigned long long v = strtoull(val, &end, 10);

		if (errno || end == val || *end || *val == '-' || (double)v < d->min) {
			snprintf(err, errlen, "--%s %s: give a whole number of %.0f or more", d->name,
				 val, d->min);
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
			snprintf(err, errlen, "--%s '%s' is not a whole number", d->name, val);
			return -EINVAL;
		}
		if (v < d->min || v > d->max)
			return range_err(d, val, err, errlen);
		*(long *)field(o, d) = v;
		return 0;
	}
	case OPT_DBL: {
		if (opts_unit_of(d) != UNIT_NONE)
			return set_with_unit(d, val, o, err, errlen);
		errno = 0;
		double v = strtod(val, &end);

		if (errno || end == val || *end || !isfinite(v)) {
			snprintf(err, errlen, "--%s '%s' is not a number", d->name, val);
			return -EINVAL;
		}
		if (v < d->min || v > d->max)
			return range_err(d, val, err, errlen);
		*(double *)field(o, d) = v;
		return 0;
	}
	}
	return -EINVAL;
}

int opts_take(const struct opt_def *defs, void *base, int argc, char **argv, char **rest,
	      int *nrest, char *err, size_t errlen)
{
	*nrest = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		const struct opt_def *d = NULL;

		for (const struct opt_def *k = defs; !strncmp(a, "--", 2) && k->name; k++)
			if (strlen(k->name) == len - 2 && !strncmp(k->name, a + 2, len - 2))
				d = k;
		if (!d) {
			rest[(*nrest)++] = argv[i];
			continue;
		}
		const char *val = eq ? eq + 1 : NULL;

		if (d->type != OPT_BOOL && !val) {
			if (i + 1 >= argc) {
				snprintf(err, errlen, "--%s needs a value", d->name);
				return -EINVAL;
			}
			val = argv[++i];
		}
		if (opts_set_value(d, val ? val : "", base, err, errlen))
			return -EINVAL;
	}
	return 0;
}

static size_t count_defs(const struct opt_def *defs)
{
	size_t n = 0;

	while (defs[n].name)
		n++;
	return n;
}

/* getopt_long tables from defs; long options report their index through `val` >= 256. */
static void build_getopt(const struct opt_def *defs, struct option *lo, char *shorts)
{
	size_t n = count_defs(defs), k = 0;

	shorts[k++] = ':'; /* report a missing argument as ':' */
	shorts[k++] = 'h';
	for (size_t i = 0; i < n; i++) {
		lo[i] = (struct option){
			.name = defs[i].name,
			.has_arg = defs[i].type == OPT_BOOL ? no_argument : required_argument,
			.val = 256 + (int)i,
		};
		if (defs[i].shortc) {
			shorts[k++] = (char)defs[i].shortc;
			if (defs[i].type != OPT_BOOL)
				shorts[k++] = ':';
			if (defs[i].shortc == 'R') { /* a value: "-R2", the old --runs 2, is caught */
				shorts[k++] = ':';
				shorts[k++] = ':';
			}
		}
	}
	shorts[k] = '\0';
	opts_vocab_shorts(defs, shorts);
	lo[n] = (struct option){.name = "help", .val = 'h'};
	lo[n + 1] = (struct option){0};
}

static const struct opt_def *find_short(const struct opt_def *defs, int c)
{
	for (; defs->name; defs++)
		if (defs->shortc == c)
			return defs;
	return NULL;
}

/* defs with a workload's help and ranges applied (caller frees). */
struct opt_def *opts_effective(const struct opt_def *defs, const struct opt_override *ov)
{
	size_t n = count_defs(defs);
	struct opt_def *e = xcalloc(n + 1, sizeof(*e));

	memcpy(e, defs, n * sizeof(*e));
	for (; ov && ov->field; ov++) {
		for (size_t i = 0; i < n; i++) {
			if (strcmp(e[i].field, ov->field))
				continue;
			if (ov->help)
				e[i].help = ov->help;
			if (ov->min || ov->max) {
				e[i].min = ov->min;
				e[i].max = ov->max;
			}
		}
	}
	return e;
}

/* "unknown option '--szie'; did you mean '--size'?" */
static void unknown_long(const struct opt_def *defs, const char *bad, char *err, size_t errlen)
{
	size_t n = count_defs(defs), len = strcspn(bad, "=");
	const char **names = xcalloc(n + 1, sizeof(*names));
	char word[80];
	const char *near;

	for (size_t i = 0; i < n; i++)
		names[i] = defs[i].name;
	names[n] = "help";
	size_t dashes = strspn(bad, "-");

	snprintf(word, sizeof(word), "%.*s", (int)(len - dashes), bad + dashes);
	near = suggest_nearest(word, names, n + 1);
	if (near)
		snprintf(err, errlen, "unknown option '%.*s'; did you mean '--%s'? (see '--help')",
			 (int)len, bad, near);
	else
		snprintf(err, errlen, "unknown option '%.*s' (see '--help')", (int)len, bad);
	free(names);
}

/* Every long option spelled whole: getopt_long takes any unambiguous prefix, and a prefix
 * can mean something else to a user of another tool (iperf3's --time would be our --timeout,
 * in milliseconds). A value given apart (--size 64) is skipped. 0, or -EINVAL with err. */
static int whole_long_names(const struct opt_def *defs, int argc, char **argv, char *err,
			    size_t errlen)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct opt_def *d = NULL;
		size_t len;

		if (!strcmp(a, "--"))
			return 0;
		if (strncmp(a, "--", 2))
			continue;
		len = strcspn(a + 2, "=");
		for (const struct opt_def *e = defs; e->name && !d; e++)
			if (strlen(e->name) == len && !strncmp(e->name, a + 2, len))
				d = e;
		if (!d && len == 4 && !strncmp(a + 2, "help", 4))
			continue;
		if (!d && len == 4 && !strncmp(a + 2, "time", 4)) {
			snprintf(err, errlen, "unknown option '--time': the run's length is -l/--duration "
				 "(or -t with a unit, -t 10s, as iperf3's --time); --timeout is how long "
				 "a request may go unanswered");
			return -EINVAL;
		}
		if (!d) {
			unknown_long(defs, a, err, errlen);
			return -EINVAL;
		}
		if (d->type != OPT_BOOL && !a[2 + len])
			i++; /* its value */
	}
	return 0;
}

int opts_parse(const struct opt_def *table, const struct opt_override *ov, int argc, char **argv,
	       struct opts *o, char *err, size_t errlen)
{
	struct opt_def *defs = opts_effective(table, ov);
	size_t n = count_defs(defs);
	struct option *lo = xcalloc(n + 2, sizeof(*lo));
	char *shorts = xcalloc(3 * n + 64, 1);
	int ret = 0, c;

	build_getopt(defs, lo, shorts);
	optind = 0; /* GNU: full reset, so tests may parse many times */
	opterr = 0;
	ret = whole_long_names(defs, argc, argv, err, errlen);
	while (!ret && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const char *bad = argv[optind - 1];

		if (c == 'h') {
			ret = 1;
		} else if (c == '?') {
			if (optopt && optopt < 256)
				snprintf(err, errlen, "unknown option '-%c' (see '--help')", optopt);
			else
				unknown_long(defs, bad, err, errlen);
			ret = -EINVAL;
		} else if (c == ':') {
			snprintf(err, errlen, "option '%s' needs a value", bad);
			ret = -EINVAL;
		} else {
			const struct opt_def *d = c >= 256 ? &defs[c - 256] : find_short(defs, c);

			if (!d || c == 'R') { /* -R: opts_vocab tells --reverse from the old --runs */
				ret = opts_vocab(defs, c, optarg, optind < argc ? argv[optind] : NULL,
						 o, err, errlen);
				continue;
			}
			ret = opts_set_value(d, optarg, o, err, errlen);
			if (ret)
				opts_vocab_hint(d, c, optarg, err, errlen);
			o->set[d->id] = true;
		}
	}
	if (!ret && optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s' (see '--help')", argv[optind]);
		ret = -EINVAL;
	}
	free(lo);
	free(shorts);
	free(defs);
	return ret;
}

const struct opt_def *opts_find_field(const struct opt_def *defs, const char *name)
{
	for (; defs->name; defs++)
		if (!strcmp(defs->field, name))
			return defs;
	return NULL;
}
