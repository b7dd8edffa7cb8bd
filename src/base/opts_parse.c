/* opts_parse.c: a subcommand's command line through getopt_long against its option table
 * (opts.h): long names whole, the peers' short flags (opts_vocab.c), one reason on error. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/opts_priv.h"
#include "base/suggest.h"
#include "base/util.h"

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
	const char *more = len > OPTS_SHOWN ? "..." : "";

	len = len > OPTS_SHOWN ? OPTS_SHOWN : len;
	if (near)
		snprintf(err, errlen, "unknown option '%.*s%s'; did you mean '--%s'? (see '--help')",
			 (int)len, bad, more, near);
	else
		snprintf(err, errlen, "unknown option '%.*s%s' (see '--help')", (int)len, bad, more);
	free(names);
}

int opts_own_words(const struct opt_def *defs, char *const *words, int n, char *err,
		   size_t errlen)
{
	for (int i = 0; i < n; i++) {
		const char *w = words[i];

		if (!strcmp(w, "--help") || !strcmp(w, "-h"))
			return 1;
		if (w[0] != '-' || !w[1])
			continue;
		if (w[1] == '-')
			unknown_long(defs, w, err, errlen);
		else
			snprintf(err, errlen, "unknown option '-%c' (see '--help')", w[1]);
		return -EINVAL;
	}
	return 0;
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
		if (!d && opts_peer_long(defs, a, i + 1 < argc ? argv[i + 1] : NULL, err,
					 errlen) == -EINVAL)
			return -EINVAL;
		if (!d) {
			unknown_long(defs, a, err, errlen);
			return -EINVAL;
		}
		if (d->type != OPT_BOOL && !a[2 + len])
			i++; /* its value */
	}
	return 0;
}

int opts_parse(const struct opt_def *table, const struct opt_override *ov,
	       const struct opts_words *w, struct opts *o, char *err, size_t errlen)
{
	int argc = w->argc;
	char **argv = w->argv;
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
			else if (optopt >= 256 && strchr(bad, '=')) /* --reverse=2 */
				opts_flag_value_err(&defs[optopt - 256], strchr(bad, '=') + 1, err,
						    errlen);
			else
				unknown_long(defs, bad, err, errlen);
			ret = -EINVAL;
		} else if (c == ':') {
			snprintf(err, errlen, "option '%.*s%s' needs a value", OPTS_VAL(bad));
			ret = -EINVAL;
		} else {
			const struct opt_def *d = c >= 256 ? &defs[c - 256] : find_short(defs, c);

			if (!d || c == 'R') { /* -R: opts_vocab tells --reverse from the old --runs */
				struct short_flag f = {
					.c = c,
					.arg = optarg,
					.next = optind < argc ? argv[optind] : NULL,
				};

				ret = opts_vocab(defs, &f, o, err, errlen);
				continue;
			}
			ret = c < 256 ? opts_vocab_value(d, c, optarg, err, errlen) : 0;
			if (ret)
				continue;
			ret = opts_set_value(d, optarg, o, err, errlen);
			if (ret)
				opts_vocab_hint(d, c, optarg, err, errlen);
			o->set[d->id] = true;
		}
	}
	if (!ret && optind < argc) {
		snprintf(err, errlen, "unexpected argument '%.*s%s' (see '--help')",
			 OPTS_VAL(argv[optind]));
		ret = -EINVAL;
	}
	free(lo);
	free(shorts);
	free(defs);
	return ret;
}
