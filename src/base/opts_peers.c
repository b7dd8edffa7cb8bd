/* opts_peers.c: the flags, long options and test names of iperf3, netperf, sockperf and neper
 * that are not ours (docs/vocabulary.md, the peers' tables). Each is a usage error whose reason
 * names our spelling, never "unknown option" alone and never a silent change of meaning. The
 * letters that mean the same here (-l, -m, -p, -F, -Z, -4, -6, ...) are ours and never reach
 * this table; -t, -R, -c, -i and -r, ours with another meaning, are opts_vocab.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/opts.h"
#include "base/opts_priv.h"

struct peer_flag {
	int c;             /* the short letter, or 0 */
	const char *name;  /* the long name without "--", or NULL */
	bool value;        /* it takes a value */
	const char *field; /* the reason applies where the workload has this option (NULL: all) */
	const char *why;   /* after "FLAG VALUE: "; each %s is the value as given */
};

/* The first entry of a letter or name whose field the workload has is its reason: an entry
 * with a field comes before the one for every workload. */
static const struct peer_flag peer_flags[] = {
	{'w', NULL, true, NULL, "long-only now: the warm-up is --warmup S (iperf3's -w, a socket "
				"buffer, is --sndbuf/--rcvbuf)"},
	{'s', NULL, true, NULL, "long-only now: give --server HOST[:PORT] to drive a serve agent "
				"(iperf3's -s, the server side, is `sockbench serve`)"},
	{'P', NULL, true, "peers", "long-only now: --peers N is the client sockets in all "
				   "(iperf3's -P, parallel streams, is --flows N in the TCP workloads)"},
	{'P', "parallel", true, "flows", "not a flag here: iperf3's -P (parallel streams) is "
					 "--flows N (--flows %s)"},
	{'P', "parallel", true, NULL, "iperf3's parallel streams are --clients %s here (client "
				      "processes; --flows N in tcp-rr and tcp-stream)"},
	{'b', "bandwidth", true, "bitrate", "iperf3's bit rate is --bitrate %s here (k, M, G: "
					    "1000-based); --batch N, the datagrams a call moves, "
					    "is long-only now"},
	{'b', NULL, true, "batch", "long-only now: --batch N; iperf3's -b %s, a bit rate, is "
				   "udp-stream --bitrate %s (here --rate N: requests per second)"},
	{'b', "bandwidth", true, NULL, "iperf3's bit rate is udp-stream's: sockbench udp-stream "
				       "--bitrate %s"},
	{0, "bitrate", true, NULL, "a bit rate is udp-stream's (sockbench udp-stream --bitrate %s); "
				   "here --rate N paces what the workload counts, per second"},
	{'T', "num-threads", true, "server_threads", "long-only now: --server-threads N (neper's "
						     "-T, its threads, is --server-threads %s; "
						     "netperf's -T, CPU binding, is --pin)"},
	{'T', "num-threads", true, NULL, "neper's threads are --clients %s here (client processes, "
					 "each with --flows N connections); netperf's -T, CPU "
					 "binding, is --pin"},
	{'C', NULL, true, "concurrency", "long-only now: --concurrency N (iperf3's -C, the "
					 "congestion control, is --cc NAME)"},
	{'C', "congestion", true, "cc", "iperf3's congestion control is --cc %s here"},
	{'C', "congestion", true, NULL, "iperf3's congestion control is --cc %s in tcp-rr, tcp-crr "
					"and tcp-stream; UDP has none"},
	{'M', "set-mss", true, "mss", "iperf3's MSS is --mss %s here"},
	{'M', "set-mss", true, NULL, "iperf3's MSS is --mss %s in the TCP workloads; a datagram's "
				     "size is --size"},
	{'N', "no-delay", false, "nodelay", "iperf3's TCP_NODELAY is --nodelay here"},
	{'N', "no-delay", false, NULL, "iperf3's TCP_NODELAY is --nodelay in the TCP workloads; "
				       "UDP has no Nagle"},
	{'A', "affinity", true, NULL, "iperf3's CPU affinity is --pin here (or --cpus "
				      "client=LIST,server=LIST)"},
	{'V', NULL, false, NULL, "iperf3's verbose is -v/--verbose here"},
	{'J', NULL, false, NULL, "iperf3's JSON is -j/--json here"},
	{'u', "udp", false, NULL, "iperf3's UDP is a workload here: sockbench udp-stream (one way; "
				  "udp-rr: request and answer)"},
	{'H', "host", true, NULL, "netperf's and neper's host is --server %s here (a `sockbench "
				  "serve` agent there)"},
	{'O', "omit", true, NULL, "iperf3's omitted seconds are --warmup %s here"},
	{'S', NULL, true, NULL, "iperf3's TOS is --tos %s here"},
	{'f', "format", true, NULL, "iperf3's and netperf's report units: ours are fixed "
				    "(Gbit/s, packets/s); -j/--json gives each figure as a number"},
	{'I', NULL, true, NULL, "netperf's confidence intervals are --runs N here (each figure's "
				"median and 95%% interval)"},
	{'Q', "request-size", true, "request", "neper's request size is --request %s here"},
	{'Q', "request-size", true, NULL, "neper's request size is --size %s here"},
	{0, "response-size", true, "response", "neper's response size is --response %s here"},
	{0, "response-size", true, NULL, "neper's response size is tcp-rr --response %s"},
	{'r', NULL, true, NULL, "netperf's -r REQ,RESP is tcp-rr --request REQ --response RESP "
				"(-q, -r)"},
	{0, "num-flows", true, NULL, "neper's flows are --flows %s here (-F)"},
	{0, "test-length", true, NULL, "neper's test length is -l %s here (--duration)"},
	{0, "length", true, NULL, "iperf3's length is -m/--size %s here"},
	{0, "client", true, NULL, "iperf3's client's host is --server %s here"},
	{0, "mps", true, "rate", "sockperf's messages per second are --rate %s here"},
	{0, "mps", true, NULL, "sockperf's messages per second are --rate %s in udp-rr, tcp-rr, "
			       "tcp-crr and udp-stream; a TCP stream runs as fast as it goes"},
	{0, "pps", true, NULL, "sockperf's messages per second are --rate %s here"},
	{0, "msg-size", true, NULL, "sockperf's message size is -m/--size %s here"},
	{0, "ip", true, NULL, "sockperf's server address is --server %s here"},
	{0, "tcp", false, NULL, "sockperf's TCP is a workload here: sockbench tcp-rr (ping-pong), "
				"tcp-stream (throughput)"},
	{0, "full-rtt", false, NULL, "sockbench's latency is always the whole round trip (sockperf "
				     "reports half of it unless --full-rtt)"},
	{0, "dontwarmup", false, NULL, "sockperf's no warm-up is --warmup 0 here"},
	{0, NULL, false, NULL, NULL},
};

/* Test names: netperf's -t, neper's programs, sockperf's modes, and the workload each is. */
struct peer_test {
	const char *name, *ours, *who;
};

static const struct peer_test peer_tests[] = {
	{"tcp_rr", "tcp-rr", "netperf's and neper's"},
	{"tcp_crr", "tcp-crr", "netperf's and neper's"},
	{"udp_rr", "udp-rr", "netperf's and neper's"},
	{"tcp_stream", "tcp-stream", "netperf's and neper's"},
	{"udp_stream", "udp-stream", "netperf's and neper's"},
	{"tcp_maerts", "tcp-stream --reverse", "netperf's"},
	{"tcp_sendfile", "tcp-stream --send sendfile", "netperf's"},
	{"ping-pong", "udp-rr (with sockperf's --tcp: tcp-rr)", "sockperf's"},
	{"pp", "udp-rr (with sockperf's --tcp: tcp-rr)", "sockperf's"},
	{"under-load", "udp-rr --rate N (tcp-rr --rate N)", "sockperf's"},
	{"ul", "udp-rr --rate N (tcp-rr --rate N)", "sockperf's"},
	{"throughput", "udp-stream (with --tcp: tcp-stream)", "sockperf's"},
	{"tp", "udp-stream (with --tcp: tcp-stream)", "sockperf's"},
	{"server", "serve", "sockperf's"},
	{"sr", "serve", "sockperf's"},
	{NULL, NULL, NULL},
};

const char *opts_peer_test(const char *name, const char **who)
{
	for (const struct peer_test *t = peer_tests; t->name; t++) {
		if (strcasecmp(t->name, name))
			continue;
		if (who)
			*who = t->who;
		return t->ours;
	}
	return NULL;
}

bool opts_peer_command(const char *word, char *msg, size_t len)
{
	const char *who, *ours = opts_peer_test(word, &who);

	if (!ours)
		return false;
	snprintf(msg, len, "unknown command '%.*s%s': %s %.*s%s is sockbench %s here",
		 OPTS_VAL(word), who, OPTS_VAL(word), ours);
	return true;
}

static const struct peer_flag *peer_find(const struct opt_def *defs, int c, const char *name,
					  size_t len)
{
	for (const struct peer_flag *p = peer_flags; p->why; p++) {
		if (c ? p->c != c : !p->name || strlen(p->name) != len || strncmp(p->name, name, len))
			continue;
		if (!p->field || opts_find_field(defs, p->field))
			return p;
	}
	return NULL;
}

void opts_peers_shorts(char *shorts)
{
	size_t k = strlen(shorts);

	for (const struct peer_flag *p = peer_flags; p->why; p++) {
		if (!p->c || strchr(shorts, p->c))
			continue;
		shorts[k++] = (char)p->c;
		if (p->value)
			shorts[k++] = ':';
		shorts[k] = '\0';
	}
}

/* "FLAG VALUE: why" into err. */
static void peer_say(const struct peer_flag *p, const char *flag, const char *val, char *err,
		     size_t errlen)
{
	char shown[OPTS_SHOWN + 4];
	int n;

	snprintf(shown, sizeof(shown), "%.*s%s", OPTS_VAL(val ? val : ""));
	n = snprintf(err, errlen, "%s%s%s: ", flag, *shown ? " " : "", shown);
	if (n > 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n, p->why, shown, shown, shown);
}

int opts_peer_short(const struct opt_def *defs, int c, const char *arg, char *err, size_t errlen)
{
	const struct peer_flag *p = peer_find(defs, c, NULL, 0);
	char flag[3] = {'-', (char)c, '\0'};

	if (!p)
		return -ENOENT;
	if (c == 'r' && arg && strchr(arg, ','))
		opts_peer_sizes(arg, err, errlen);
	else
		peer_say(p, flag, arg, err, errlen);
	return -EINVAL;
}

int opts_peer_long(const struct opt_def *defs, const char *word, const char *next, char *err,
		   size_t errlen)
{
	size_t len = strcspn(word + 2, "=");
	const struct peer_flag *p = peer_find(defs, 0, word + 2, len);
	char flag[48];

	if (!p)
		return -ENOENT;
	snprintf(flag, sizeof(flag), "--%.*s", (int)(len < 40 ? len : 40), word + 2);
	peer_say(p, flag, !p->value ? NULL : word[2 + len] ? word + 3 + len : next, err, errlen);
	return -EINVAL;
}

void opts_peer_sizes(const char *val, char *err, size_t errlen)
{
	const char *comma = strchr(val, ',');
	int req = (int)(comma - val);

	snprintf(err, errlen, "-r %.*s%s: netperf's -r REQ,RESP is --request %.*s --response %.*s "
		 "here (-q %.*s -r %.*s)", OPTS_VAL(val), req > OPTS_SHOWN ? OPTS_SHOWN : req, val,
		 OPTS_SHOWN, comma + 1, req > OPTS_SHOWN ? OPTS_SHOWN : req, val, OPTS_SHOWN,
		 comma + 1);
}
