/* opts_harness.h: a workload's command line parsed as main() parses it, for the option tests
 * (test_opts_units.c, test_opts_peers.c): parse_wl(wl, &o, "--flag", "value", NULL) gives
 * opts_parse's and then the workload's check's result, err its message. */
#ifndef SB_TEST_OPTS_HARNESS_H
#define SB_TEST_OPTS_HARNESS_H

static char err[512];

static int parse_wl(const struct workload *wl, struct opts *o, ...)
{
	char *argv[32] = {(char *)wl->name};
	int argc = 1;
	va_list ap;

	va_start(ap, o);
	for (char *w; (w = va_arg(ap, char *));)
		argv[argc++] = w;
	va_end(ap);
	opts_defaults(o, wl->overrides);
	err[0] = '\0';
	int ret = opts_parse(wl->opts, wl->overrides, &(struct opts_words){argc, argv}, o, err,
			     sizeof(err));

	if (ret == 0)
		ret = wl->check(o, err, sizeof(err));
	return ret;
}

/* ret is a usage error whose message holds needle; o freed. */
static void expect_error(const char *needle, int ret, struct opts *o)
{
	assert_int_equal(ret, -EINVAL);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not mention '%s'", err, needle);
	opts_free(o);
}
#endif
