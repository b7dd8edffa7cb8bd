/* opts.h: every option of every subcommand, one X-macro line each, and their parser.
 *
 * X(type, field, default, short, "long-name", min, max, "METAVAR", "help")
 * One line defines the struct field, its default, its getopt entry, its range check, its
 * --help line and its JSON key (the field name), so the five never drift apart. All lists
 * live here (not in the wl_*.c files) because struct opts must see every field.
 */
#ifndef SB_OPTS_H
#define SB_OPTS_H

#include <stdbool.h>
#include <stddef.h>

struct cJSON;

#define COMMON_OPTS(X)                                                                             \
	X(DBL, duration, 5.0, 'l', "duration", 0.1, 86400, "S", "seconds in the measured window")  \
	X(DBL, warmup, 1.0, 'w', "warmup", 0, 3600, "S",                                           \
	  "seconds of warm-up before the window (traffic flows, nothing is counted)")              \
	X(INT, port, 0, 'p', "port", 0, 65535, "PORT",                                             \
	  "server data port (0: any free port)")                                                   \
	X(STR, server, NULL, 's', "server", 0, 0, "HOST[:PORT]",                                   \
	  "drive a running `sockbench serve` agent instead of a local one")                        \
	X(BOOL, json, false, 'j', "json", 0, 1, "", "print one JSON document instead of the table")

#define UDP_RR_OPTS(X)                                                                             \
	X(INT, clients, 2, 'c', "clients", 1, 256, "N", "client processes")                        \
	X(INT, window, 100, 'W', "window", 1, 65536, "N",                                          \
	  "requests outstanding per client (a burst, then one new request per answer)")            \
	X(INT, size, 100, 'm', "size", 1, 65507, "BYTES",                                          \
	  "request payload; the server answers with the same size")                                \
	X(INT, peers, 0, 'P', "peers", 0, 10000, "N",                                              \
	  "client sockets in all, spread over the clients (0: one per client)")                    \
	X(BOOL, no_check, false, 0, "no-check", 0, 1, "",                                          \
	  "turn UDP checksums off on every socket (SO_NO_CHECK)")                                  \
	X(INT, timeout, 200, 't', "timeout", 1, 60000, "MS",                                       \
	  "a request unanswered this long is counted lost and replaced")                           \
	X(ENUM, wait, "poll", 0, "wait", 0, 0, "poll|block",                                       \
	  "client: poll() when no answer is waiting, or block in recvmsg() (one socket per client)")

#define SERVE_OPTS(X)                                                                              \
	X(STR, listen, "127.0.0.1", 'L', "listen", 0, 0, "ADDR",                                   \
	  "address to accept controllers on (loopback unless you say otherwise)")                  \
	X(INT, ctl_port, 12866, 'p', "port", 0, 65535, "PORT", "control port (0: any free port)")  \
	X(BOOL, once, false, 0, "once", 0, 1, "", "serve one controller, then exit")               \
	X(INT, ready_fd, -1, 0, "ready-fd", -1, 1023, "FD",                                        \
	  "once listening, write the control port and a newline to this fd")

#define OPT_CTYPE_INT long
#define OPT_CTYPE_DBL double
#define OPT_CTYPE_BOOL bool
#define OPT_CTYPE_STR char *
#define OPT_CTYPE_ENUM char *
#define OPT_FIELD_(t, f, d, s, n, lo, hi, mv, h) OPT_CTYPE_##t f;

struct opts {
	COMMON_OPTS(OPT_FIELD_)
	UDP_RR_OPTS(OPT_FIELD_)
	SERVE_OPTS(OPT_FIELD_)
};

enum opt_type { OPT_INT, OPT_DBL, OPT_BOOL, OPT_STR, OPT_ENUM /* a string, one of metavar's |-separated words */ };

struct opt_def {
	const char *name; /* long flag, without "--"; NULL ends a table */
	const char *field;
	int shortc;
	enum opt_type type;
	size_t off;
	double min, max;
	const char *metavar; /* for OPT_ENUM: the choices, "a|b|c" */
	const char *help;
};

/* The option tables of each subcommand, each ending with {0}. */
extern const struct opt_def opts_udp_rr[];
extern const struct opt_def opts_serve[];

/* Fill o with every default (strings are duplicated; opts_free frees them). */
void opts_defaults(struct opts *o);
/* Free the strings of o. */
void opts_free(struct opts *o);
/* Parse argv (argv[0] is the subcommand) against defs into o, which holds defaults.
 * 0 ok, 1 when --help was asked, -EINVAL with a one-line reason in err. */
int opts_parse(const struct opt_def *defs, int argc, char **argv, struct opts *o, char *err,
	       size_t errlen);
/* Print the usage of a subcommand generated from its table. */
void opts_usage(const struct opt_def *defs, const char *cmd, const char *summary, void *file);
/* The options of defs as a JSON object keyed by field name (caller frees). */
struct cJSON *opts_to_json(const struct opt_def *defs, const struct opts *o);
/* Apply the keys of a JSON object (as opts_to_json writes) to o, with the same range checks as
 * the command line. Unknown keys are an error. 0 or -EINVAL with err. */
int opts_from_json(const struct opt_def *defs, const struct cJSON *obj, struct opts *o, char *err,
		   size_t errlen);

#endif
