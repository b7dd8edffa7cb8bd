/* opts.h: every option of every subcommand, one X-macro line each, and their parser.
 *
 * X(type, field, default, short, "long-name", min, max, "METAVAR", "help")
 * One line defines the struct field, its default, its getopt entry, its range check, its
 * --help line and its JSON key (the field name), so the five never drift apart. All lists
 * live here (not in the wl_*.c files) because struct opts must see every field.
 * It touches memory only (and prints --help where asked); every layer may include it.
 */
#ifndef SB_OPTS_H
#define SB_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct cJSON;

#define COMMON_OPTS(X)                                                                             \
	X(DBL, duration, 5.0, 'l', "duration", 0.1, 86400, "S",                                  \
	  "seconds in the measured window (-t with a unit, -t 10s, as iperf3's -t)")              \
	X(DBL, warmup, 1.0, 0, "warmup", 0, 3600, "S",                                           \
	  "seconds of warm-up before the window (traffic flows, nothing is counted)")              \
	X(INT, port, 0, 'p', "port", 0, 65535, "PORT",                                             \
	  "server data port (0: any free port)")                                                   \
	X(STR, server, NULL, 0, "server", 0, 0, "HOST[:PORT]",                                   \
	  "drive a running `sockbench serve` agent instead of a local one")                        \
	X(STR, clients_on, NULL, 0, "clients-on", 0, 0, "HOST[:PORT],...",                          \
	  "with --server: run the clients on these hosts' serve agents (local: this host), each "  \
	  "its share of the clients, peers and counts; one merged report")                     \
	X(INT, client_hosts, 0, 0, "client-hosts", 0, 16, "N",                                    \
	  "use the first N hosts of --clients-on (0: all; `sweep --client-hosts 1,2,3`)")          \
	X(BOOL, json, false, 'j', "json", 0, 1, "", "print one JSON document instead of the table") \
	X(ENUM, format, "text", 0, "format", 0, 0, "text|json|csv",                                \
	  "the output: the report, one JSON document (as --json), or CSV: a header and a row per " \
	  "run (with --runs, then the summary's)")                                                 \
	X(STR, fields, NULL, 0, "fields", 0, 0, "LIST",                                            \
	  "the figures to print, comma-separated names or JSON paths (rate,latency_p99_us; "       \
	  "none: all): CSV's columns, the text's lines (docs/json.md)")                            \
	X(BOOL, verbose, false, 'v', "verbose", 0, 1, "",                                          \
	  "the full report: every count per side, the kernel's counters, the environment")        \
	X(BOOL, ipv4, false, '4', "ipv4", 0, 1, "",                                                \
	  "IPv4 only: with --server, the host's IPv4 address (a local run is IPv4 without it, "   \
	  "127.0.0.1; the config records the family that ran)")                                    \
	X(BOOL, ipv6, false, '6', "ipv6", 0, 1, "",                                                \
	  "IPv6 (a local run: ::1; with --server, its IPv6 address)")                              \
	X(BOOL, profile, false, 0, "profile", 0, 1, "",                                            \
	  "sample every CPU during the window: time per side and mode, per syscall, top kernel "   \
	  "functions")                                                                             \
	X(INT, profile_hz, 2999, 0, "profile-hz", 10, 50000, "HZ", "samples per second per CPU")   \
	X(BOOL, trace, false, 0, "trace", 0, 1, "",                                                \
	  "follow each packet through the kernel in the window (BPF on tracepoints, root): where "\
	  "a round trip waits, stage by stage (send, device, softirq, socket, wakeup, receive)")  \
	X(ENUM, profile_event, "cpu-clock", 0, "profile-event", 0, 0, "cpu-clock|cycles",          \
	  "what --profile samples on: the CPU clock (time shares, idle included) or CPU cycles "   \
	  "(a halted CPU takes none)")                                                             \
	X(INT, profile_top, 30, 0, "profile-top", 1, 1000, "N", "kernel functions to list")        \
	X(STR, profile_folded, NULL, 0, "profile-folded", 0, 0, "FILE",                            \
	  "write folded stacks (flamegraph.pl, speedscope) to FILE")                               \
	X(STR, flamegraph, NULL, 0, "flamegraph", 0, 0, "FILE.svg",                               \
	  "with --profile: draw the window's samples as a flame graph (a colour family per side; "\
	  "hover: samples and percent; click: zoom; Search: a regular expression)")                \
	X(STR, plot, NULL, 0, "plot", 0, 0, "FILE.svg",                                           \
	  "draw the run (gnuplot): the latency histogram and CDF with p50/p99/p99.9 marked (a "    \
	  "stream: its rate over the window), and each side's CPU per unit, user and system")                                             \
	X(DBL, interval, 0, 'i', "interval", 0, 86400, "S",                                        \
	  "print a line every S seconds of the window (rate, p50/p99, CPU) and add `intervals` "  \
	  "to the JSON (at least 0.1)")                                                                  \
	X(INT, runs, 1, 0, "runs", 1, 1000, "N",                                                 \
	  "measured runs: median, min, max and spread of each figure, and an interval of the "   \
	  "median (a pair of runs) holding it with 95% or more confidence from 6 runs (2 runs: "  \
	  "50%, 3: 75%, 4: 87.5%, 5: 93.8%; the report says which)")                               \
	X(INT, clients, 2, 'c', "clients", 1, 256, "N", "client processes")                        \
	X(DBL, busy_wait, 10, 0, "busy-wait", 0, 3600, "S",                                        \
	  "with --server: while the agent runs another controller's test, try again this long")   \
	X(STR, sysctl, NULL, 0, "sysctl", 0, 1, "KEY=VALUE",                                       \
	  "set a kernel setting (/proc/sys) for this run only, restored after it, even after a "  \
	  "crash (root; repeatable; with --server, on the agent's host if it allows the key)")

/* Not in udp-stream, where nothing waits for an answer. */
#define TIMEOUT_OPT(X)                                                                             \
	X(INT, timeout, 200, 0, "timeout", 1, 600000, "MS",                                        \
	  "a request unanswered this long is counted lost (at that wait) and replaced; with --rate 2000 unless given")

/* Fields several workloads share, each with its own default and help (struct opt_override). */
#define SIZE_OPT(X)                                                                                \
	X(INT, size, 100, 'm', "size", 1, 1 << 30, "BYTES",                                        \
	  "request payload; the server answers with the same size")
#define WINDOW_OPT(X)                                                                              \
	X(INT, window, 100, 'W', "window", 1, 65536, "N",                                          \
	  "requests outstanding per client (a burst, then one new request per answer)")
#define REQUEST_OPT(X)                                                                             \
	X(INT, request, 0, 'q', "request", 0, 1 << 30, "BYTES", "bytes the client sends first")

#define PIN_OPTS(X)                                                                                \
	X(BOOL, pin, false, 0, "pin", 0, 1, "",                                                    \
	  "pin client processes (or threads) to CPUs from the first, server threads from the last " \
	  "(and set SO_INCOMING_CPU on their sockets)")                                            \
	X(STR, cpus, NULL, 0, "cpus", 0, 0, "client=LIST,server=LIST",                             \
	  "pin client processes (or threads) round-robin over the client's CPUs, server threads "  \
	  "over the server's (taskset lists: 0-3,8; SO_INCOMING_CPU as with --pin)")               \
	X(INT, busy_poll, 0, 0, "busy-poll", 0, 1000000, "USEC",                                   \
	  "SO_BUSY_POLL on every socket: spin this long in the driver before sleeping")

/* In UDP_RR_OPTS (so once in ALL_OPTS); tcp-stream's table names it alone. */
#define WAIT_OPT(X)                                                                                \
	X(ENUM, wait, "auto", 0, "wait", 0, 0, "auto|poll|epoll|busy|block",                       \
	  "when nothing has arrived: poll(), epoll_wait(), spin on non-blocking calls, or sleep " \
	  "in the receive call (auto: the client polls, the server blocks, as in the report; a " \
	  "udp-stream receiver tries again for 5 us first where each busy thread has a CPU)")

#define UDP_RR_OPTS(X)                                                                             \
	X(INT, peers, 0, 0, "peers", 0, 100000, "N",                                               \
	  "client sockets in all, spread over the clients (0: one per client; above 64 a client, " \
	  "--wait auto is epoll, receiving only from the sockets it finds ready)")                 \
	X(BOOL, no_check, false, 0, "no-check", 0, 1, "",                                          \
	  "turn UDP checksums off on every socket (SO_NO_CHECK)")                                  \
	WAIT_OPT(X)                                                                                \
	X(ENUM, io, "auto", 0, "io", 0, 0, "auto|msg|mmsg|uring",                                  \
	  "system calls: sendmsg/recvmsg (send/recvfrom when --connected), sendmmsg/recvmmsg, or " \
	  "io_uring (auto: mmsg with --batch)")                                                    \
	X(INT, batch, 1, 0, "batch", 1, 1024, "N", "the most datagrams one call moves")          \
	X(BOOL, connected, false, 0, "connected", 0, 1, "",                                        \
	  "connect() each client socket to the server (the route is looked up once)")              \
	X(BOOL, sqpoll, false, 0, "sqpoll", 0, 1, "", "io_uring: a kernel thread polls the submissions") \
	X(INT, server_threads, 1, 0, "server-threads", 1, 64, "N",                               \
	  "server threads, each with its own socket on the port (SO_REUSEPORT)")                   \
	PIN_OPTS(X)

#define BUF_OPTS(X)                                                                                \
	X(INT, rcvbuf, 0, 0, "rcvbuf", 0, 1 << 30, "BYTES", "SO_RCVBUF on every socket (0: the kernel's)") \
	X(INT, sndbuf, 0, 0, "sndbuf", 0, 1 << 30, "BYTES", "SO_SNDBUF on every socket (0: the kernel's)")

#define TCP_OPTS(X)                                                                                \
	X(ENUM, recv, "recv", 0, "recv", 0, 0, "recv|read|recvmsg|readv|waitall|epoll|uring",      \
	  "receive call (waitall: recv with MSG_WAITALL; epoll: epoll_wait, then recv; uring: "    \
	  "io_uring recv, one ring per thread)")                                                   \
	X(INT, read_size, 0, 0, "read-size", 0, 1 << 30, "BYTES",                                  \
	  "bytes asked of each receive call (0: one message)")                                     \
	BUF_OPTS(X)                                                                                \
	X(BOOL, nodelay, false, 0, "nodelay", 0, 1, "", "TCP_NODELAY on every socket")             \
	X(BOOL, quickack, false, 0, "quickack", 0, 1, "", "TCP_QUICKACK before each receive")      \
	X(INT, rcvlowat, 0, 0, "rcvlowat", 0, 1 << 30, "BYTES",                                    \
	  "SO_RCVLOWAT on every socket: a receive call wakes only once this much has arrived")

/* Socket knobs (transport/knobs.c), each read back from a socket of each side. */
#define TCP_KNOB_OPTS(X)                                                                           \
	X(STR, cc, NULL, 0, "cc", 0, 0, "NAME",                                                    \
	  "congestion control on both sides' sockets (TCP_CONGESTION; one of "                     \
	  "net.ipv4.tcp_available_congestion_control; default: the kernel's)")                      \
	X(INT, mss, 0, 0, "mss", 0, 32767, "BYTES",                                                \
	  "largest segment both sides send and announce (TCP_MAXSEG, 88 or more; 0: the route's)")
#define IP_KNOB_OPTS(X)                                                                            \
	X(INT, tos, -1, 0, "tos", -1, 255, "N",                                                    \
	  "IP_TOS (IPv6: IPV6_TCLASS) on both sides' sockets: DSCP << 2 | ECN (-1: the kernel's)")  \
	X(STR, bind, NULL, 0, "bind", 0, 0, "ADDR[%IF]",                                           \
	  "the client sockets' local address (port: the kernel's) and, with %IF, their device "    \
	  "(SO_BINDTODEVICE)")
#define SRC_ADDRS_OPT(X)                                                                           \
	X(INT, src_addrs, 0, 0, "src-addrs", 0, 254, "N",                                          \
	  "spread client source addresses over 127.0.0.1..N (0: from the need, see docs)")

#define TCP_CRR_OPTS(X)                                                                            \
	X(INT, conns, 100000, 'n', "conns", 0, 100000000, "N",                                     \
	  "connections in the measured window, at least 1 (a count-based run; --duration without " \
	  "--conns makes it time-based)")                                                          \
	X(INT, warmup_conns, 1000, 0, "warmup-conns", 0, 100000000, "N",                           \
	  "connections before the window, not counted")                                            \
	X(INT, concurrency, 1, 0, "concurrency", 1, 100000, "N",                                  \
	  "connections in flight per client (above 64: a few epoll threads drive them)") \
	X(INT, msgs, 2, 'k', "msgs", 1, 1000000, "K", "messages the server sends on each connection") \
	X(ENUM, close, "server", 0, "close", 0, 0, "server|client|reset",                          \
	  "who closes first (TIME_WAIT lands there); reset: the client aborts with SO_LINGER {1,0}") \
	SRC_ADDRS_OPT(X)                                                                           \
	X(INT, backlog, 1024, 0, "backlog", 1, 65535, "N",                                         \
	  "server listen() backlog (unset: 1024, or --clients x --concurrency if more; the "      \
	  "kernel caps it at net.core.somaxconn)")                                                 \
	X(DBL, time_limit, 600, 0, "time-limit", 1, 86400, "S",                                    \
	  "stop a count-based window after this long, marked partial")                             \
	X(ENUM, server_fault, "none", 0, "server-fault", 0, 0, "none|short|reset",                 \
	  "make the server misbehave, to see how errors are counted: short closes after half "     \
	  "the bytes, reset aborts the connection")

#define FLOWS_OPT(X)                                                                               \
	X(INT, flows, 1, 'F', "flows", 1, 1024, "N", "persistent connections per client")

#define TCP_RR_OPTS(X)                                                                             \
	X(INT, response, 1, 'r', "response", 1, 1 << 30, "BYTES", "bytes the server answers each request with")

/* -n: a stream's count-based window (tcp-stream, udp-stream). */
#define BYTES_OPT(X)                                                                               \
	X(INT, bytes, 0, 'n', "bytes", 0, 1e15, "BYTES",                                           \
	  "end the window when the clients have sent this much (iperf3 -n; then --duration, if "  \
	  "given, bounds it and a window cut short is partial; 0: time-based)")

#define TCP_STREAM_OPTS(X)                                                                         \
	X(ENUM, send, "send", 0, "send", 0, 0, "send|write|sendmsg|sendfile|splice|uring",         \
	  "send call; sendfile and splice send from a file in memory (memfd), splice through a "   \
	  "pipe")                                                                                  \
	X(BOOL, zerocopy, false, 'Z', "zerocopy", 0, 1, "",                                        \
	  "zero-copy sends: the kernel sends from our pages and reports when it is done with "     \
	  "them (MSG_ZEROCOPY with --send send or sendmsg, IORING_OP_SEND_ZC with --send uring)")  \
	BYTES_OPT(X)

#define REVERSE_OPT(X)                                                                             \
	X(BOOL, reverse, false, 'R', "reverse", 0, 1, "", "the server sends, the client receives") \
	X(BOOL, bidir, false, 0, "bidir", 0, 1, "",                                                \
	  "both ways at once: each flow is a connection each way")

/* --rate: what it counts is the workload's (its help is overridden where it differs). */
#define RATE_OPT(X)                                                                                \
	X(INT, rate, 0, 0, "rate", 0, 100000000, "PER_S",                                            \
	  "packets per second in all, spread over the clients (0: as fast as they go)")
/* Open loop: requests on a schedule, whatever the answers do (workload/openloop.h). */
#define ARRIVALS_OPT(X)                                                                            \
	X(ENUM, arrivals, "constant", 0, "arrivals", 0, 0, "constant|poisson",                     \
	  "with --rate: requests at even intervals, or a Poisson process of that mean rate "        \
	  "(seeded: the same run draws the same times)")
#define OPENLOOP_OPTS(X) RATE_OPT(X) ARRIVALS_OPT(X)

#define UDP_STREAM_OPTS(X)                                                                         \
	RATE_OPT(X)                                                                                \
	X(INT, bitrate, 0, 0, "bitrate", 0, 1e12, "BITS_PER_S",                                    \
	  "bits per second in all, as iperf3's -b (k, M, G: 1000-based; payload, headers not "     \
	  "counted): --rate is this over --size x 8 (0: use --rate)")                             \
	X(INT, gso, 0, 0, "gso", 0, 64, "SEGMENTS",                                                \
	  "UDP_SEGMENT: hand the kernel this many packets per send, cut up by GSO (0: off)")       \
	X(BOOL, gro, false, 0, "gro", 0, 1, "",                                                    \
	  "UDP_GRO on the receiver: packets of a flow arrive coalesced, one receive for many")

#define AUTH_OPT(X)                                                                                \
	X(STR, auth_file, NULL, 'a', "auth-file", 0, 0, "FILE",                                    \
	  "shared secret (16+ bytes) for the agent's challenge-response; never sent on the wire")

#define SERVE_OPTS(X)                                                                              \
	X(STR, listen, "127.0.0.1", 'L', "listen", 0, 0, "ADDR",                                   \
	  "address to accept controllers on (loopback unless you say otherwise)")                  \
	X(DBL, max_duration, 3600, 0, "max-duration", 1, 86400, "S",                               \
	  "refuse tests whose warm-up and window (or --time-limit) are longer")                    \
	X(INT, max_flows, 100000, 0, "max-flows", 1, 1000000, "N",                                 \
	  "refuse tests with more sockets or threads on the server side")                          \
	X(INT, max_conns, 10000000, 0, "max-conns", 1, 1000000000, "N",                            \
	  "refuse tcp-crr tests of more connections")                                              \
	X(INT, max_buffer, 67108864, 0, "max-buffer", 1, 1 << 30, "BYTES",                         \
	  "refuse messages or socket buffers larger than this")                                    \
	X(INT, max_memory, 1073741824, 0, "max-memory", 1048576, 1099511627776.0, "BYTES",          \
	  "refuse tests whose server-side buffers would take more; stray connections get none")   \
	X(INT, ctl_port, 12866, 'p', "port", 0, 65535, "PORT", "control port (0: any free port)")  \
	X(BOOL, once, false, 0, "once", 0, 1, "", "serve one controller, then exit")               \
	X(INT, ready_fd, -1, 0, "ready-fd", -1, 1023, "FD",                                        \
	  "once listening, write the control port and a newline to this fd")                      \
	X(STR, allow_sysctl, NULL, 0, "allow-sysctl", 0, 0, "KEY[,KEY...]",                        \
	  "sysctls a controller's --sysctl may set on this host for its test (none: refused)")    \
	X(ENUM, role, "any", 0, "role", 0, 0, "any|server|client",                                 \
	  "the side of tests this agent runs for controllers (client: --clients-on)")              \
	X(BOOL, allow_unauthenticated_clients, false, 0, "allow-unauthenticated-clients", 0, 1,    \
	  "", "run clients for controllers without --auth-file on a non-loopback --listen: "       \
	  "anyone who reaches the port can then make this host load any sockbench test")

#define ALL_OPTS(X)                                                                                \
	COMMON_OPTS(X)                                                                             \
	TIMEOUT_OPT(X)                                                                             \
	AUTH_OPT(X)                                                                                \
	SIZE_OPT(X)                                                                                \
	WINDOW_OPT(X)                                                                              \
	REQUEST_OPT(X)                                                                             \
	UDP_RR_OPTS(X)                                                                             \
	TCP_OPTS(X)                                                                                \
	TCP_KNOB_OPTS(X)                                                                           \
	IP_KNOB_OPTS(X)                                                                            \
	TCP_CRR_OPTS(X)                                                                            \
	FLOWS_OPT(X)                                                                               \
	TCP_RR_OPTS(X)                                                                             \
	TCP_STREAM_OPTS(X)                                                                         \
	REVERSE_OPT(X)                                                                             \
	UDP_STREAM_OPTS(X)                                                                         \
	ARRIVALS_OPT(X)                                                                            \
	SERVE_OPTS(X)

#define OPT_CTYPE_INT long
#define OPT_CTYPE_DBL double
#define OPT_CTYPE_BOOL bool
#define OPT_CTYPE_STR char *
#define OPT_CTYPE_ENUM int /* the index of its word in the metavar: the enums below */
#define OPT_FIELD_(t, f, d, s, n, lo, hi, mv, h) OPT_CTYPE_##t f;

#define OPT_ID_(t, f, d, s, n, lo, hi, mv, h) OPT_ID_##f,
enum opt_id { ALL_OPTS(OPT_ID_) OPT_ID_COUNT };

struct opts {
	ALL_OPTS(OPT_FIELD_)
	bool set[OPT_ID_COUNT]; /* given on the command line or in a config */
};

/* The values of the enum options, in the order of their metavar's words. */
enum { PROFILE_EVENT_CPU_CLOCK, PROFILE_EVENT_CYCLES };
enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_CSV };
enum { ROLE_ANY, ROLE_SERVER, ROLE_CLIENT };
enum { WAIT_AUTO, WAIT_POLL, WAIT_EPOLL, WAIT_BUSY, WAIT_BLOCK };
enum { IO_AUTO, IO_MSG, IO_MMSG, IO_URING };
enum { RECV_RECV, RECV_READ, RECV_RECVMSG, RECV_READV, RECV_WAITALL, RECV_EPOLL, RECV_URING };
enum { CLOSE_SERVER, CLOSE_CLIENT, CLOSE_RESET };
enum { FAULT_NONE, FAULT_SHORT, FAULT_RESET };
enum { ARRIVALS_CONSTANT, ARRIVALS_POISSON };
enum { SEND_SEND, SEND_WRITE, SEND_SENDMSG, SEND_SENDFILE, SEND_SPLICE, SEND_URING };

/* A value as an error message shows it, "%.*s%s": its first OPTS_SHOWN bytes, then "..." where
 * it is longer, so a long value never pushes the reason out of a bounded message. */
#define OPTS_SHOWN 40
#define OPTS_VAL(v)                                                                                \
	(int)(strlen(v) > OPTS_SHOWN ? OPTS_SHOWN : strlen(v)), (v), strlen(v) > OPTS_SHOWN ? "..." : ""

/* The word of value v of an enum option ("reset" for --close CLOSE_RESET); "?" if none. */
const char *opts_word(enum opt_id id, int v);
#define OPT_WORD(o, f) opts_word(OPT_ID_##f, (o)->f)

/* Was option f given (not a default)? */
#define OPT_IS_SET(o, f) ((o)->set[OPT_ID_##f])

enum opt_type {
	OPT_INT,
	OPT_DBL,
	OPT_BOOL,
	OPT_STR,  /* max 1: a list, given once per item (kept as lines of one string) */
	OPT_ENUM, /* one of metavar's |-separated words, stored as its index (int) */
	OPT_U64,  /* a whole number from min up, stored as uint64_t (seeds) */
};

struct opt_def {
	const char *name; /* long flag, without "--"; NULL ends a table */
	const char *field;
	enum opt_id id;
	int shortc;
	enum opt_type type;
	size_t off;
	double min, max;
	const char *metavar; /* for OPT_ENUM: the choices, "a|b|c" */
	const char *help;
	/* A command's own flag (OWN_FLAG) only: its default as typed on the command line (NULL:
	 * zero), and as its usage says it where the value would mislead (a seed of 0: a fresh
	 * one; NULL: the default, or nothing where it has none). */
	const char *def, *shown;
};

/* A workload's own default and help for a shared option. NULL field ends a table. */
struct opt_override {
	const char *field;
	const char *def;  /* as typed on the command line; NULL: the option's own */
	const char *help; /* NULL: the option's own */
	double min, max;  /* both 0: the option's own range */
	const char *shown; /* the default as --help says it, where the value alone would mislead
			    * (tcp-crr's --duration: the window is --conns); NULL: the value */
};

/* The option tables of each subcommand, each ending with {0}. */
extern const struct opt_def opts_udp_rr[];
extern const struct opt_def opts_tcp_crr[];
extern const struct opt_def opts_tcp_rr[];
extern const struct opt_def opts_tcp_stream[];
extern const struct opt_def opts_udp_stream[];
extern const struct opt_def opts_serve[];

/* Fill o with every default, then the overrides (may be NULL). Strings are duplicated;
 * opts_free frees them. Nothing is marked set. */
void opts_defaults(struct opts *o, const struct opt_override *ov);
/* Free the strings of o. */
void opts_free(struct opts *o);
/* The words of a command line: argc of them at argv. */
struct opts_words {
	int argc;
	char **argv;
};
/* Parse the words (argv[0] is the subcommand) against defs into o, which holds defaults.
 * 0 ok, 1 when --help was asked, -EINVAL with a one-line reason in err. */
int opts_parse(const struct opt_def *defs, const struct opt_override *ov,
	       const struct opts_words *w, struct opts *o, char *err, size_t errlen);
/* The option of defs whose long name is the first len bytes of name, or NULL. */
const struct opt_def *opt_find(const struct opt_def *defs, const char *name, size_t len);
/* val as a number of d's own unit, a unit taken where d has one ("64K" of a BYTES option:
 * 65536). 0 or -EINVAL with err. */
int opts_number(const struct opt_def *d, const char *val, double *v, char *err, size_t errlen);
/* Print the usage of a subcommand generated from its table and overrides. */
void opts_usage(const struct opt_def *defs, const struct opt_override *ov, const char *cmd,
		const char *summary, void *file);
/* The same list as troff for the man page (a .TP paragraph per option, its default). */
void opts_man(const struct opt_def *table, const struct opt_override *ov, void *file);
/* The options of defs as a JSON object keyed by field name (caller frees). */
struct cJSON *opts_to_json(const struct opt_def *defs, const struct opts *o);
/* A command's own flag (compare, explore, knee, sweep, check, report), stored in the command's
 * own struct at off: {OWN_FLAG(type, struct, field, "name", min, max, "METAVAR", "help")}, then
 * where it has them .def = "60" (set by opts_own_defaults), .shown, .shortc = 'o'. A metavar of
 * S, MS or BYTES takes units as the option table's do; the help's first clause (up to '(', ':'
 * or ';') names what a number counts in a range error. */
#define OWN_FLAG(t, st, f, n, lo, hi, mv, h)                                                       \
	.name = n, .field = #f, .type = OPT_##t, .off = offsetof(st, f), .min = lo, .max = hi,     \
	.metavar = mv, .help = h
/* Set each own flag of defs (ending with {0}) that has a .def in the struct at base; a bad
 * default is a bug in the table: abort. */
void opts_own_defaults(const struct opt_def *defs, void *base);
/* Take a command's own flags (defs, ending with {0}) out of the words w into the struct at base,
 * with the same checks as the option table's, --name VALUE, --name=VALUE or -c VALUE; every
 * other word goes to rest (room for w->argc), in order. The number of words in rest, or -EINVAL
 * with a one-line reason in err. */
int opts_take(const struct opt_def *defs, void *base, const struct opts_words *w, char **rest,
	      char *err, size_t errlen);
/* After opts_take, for a command whose every flag is its own (report, check): 1 when the words
 * left ask for --help (-h), -EINVAL with err, said as opts_parse says it, when one is a flag
 * that defs do not have ("-" alone is a file: standard input); else 0. */
int opts_own_words(const struct opt_def *defs, char *const *words, int n, char *err,
		   size_t errlen);
/* The usage of a command with flags of its own, made from its table as opts_usage makes a
 * workload's: "usage: sockbench CMD ARGS [--flag METAVAR]... MORE", the second form (also),
 * the summary, then a line per flag with its help and default. */
struct cmd_usage {
	const char *cmd, *args, *more, *also, *summary; /* more, also: NULL where none */
};
void opts_usage_cmd(const struct opt_def *defs, const struct cmd_usage *u, void *file);

/* word, an unknown command, is a peer's test (neper's tcp_rr, sockperf's ping-pong): true with
 * msg naming our workload; else false. */
bool opts_peer_command(const char *word, char *msg, size_t len);

/* Apply the keys of a JSON object (as opts_to_json writes) to o, with the same range checks as
 * the command line. Unknown keys are an error. 0 or -EINVAL with err. */
int opts_from_json(const struct opt_def *defs, const struct opt_override *ov,
		   const struct cJSON *obj, struct opts *o, char *err, size_t errlen);

#endif
