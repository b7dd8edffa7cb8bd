/* util.h: process-wide helpers: fatal errors, allocation that never fails, clocks, fd I/O.
 * The lowest layer: it includes nothing of ours. die() ends the process: commands use it while
 * they set up (parsing, the agent's start, the coordinator's setup), never on a data path or
 * in a running test, where errors are returned as -errno.
 */
#ifndef SB_UTIL_H
#define SB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* A macro's value as a string literal: STRINGIFY(STATS_DEFAULT_RUNS) is "12". */
#define STRINGIFY(x) STRINGIFY_(x)
#define STRINGIFY_(x) #x
#define NSEC_PER_SEC 1000000000ULL

/* Print "sockbench: msg" to stderr and exit 1 (setup failure). */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Print "sockbench: msg" to stderr and exit 2 (usage error). */
void die_usage(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Print "sockbench: warning: msg" to stderr. */
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t n);
void *xrealloc(void *p, size_t n);
/* Zeroed memory that starts on a cache line (free() frees it): for arrays of per-thread state
 * that each thread writes in its loop, whose elements start with CACHE_ALIGNED so that no
 * two threads' counters share a line. */
#define CACHE_LINE 64
#define CACHE_ALIGNED _Alignas(CACHE_LINE)
void *xcalloc_lines(size_t nmemb, size_t n);
/* A buffer the kernel copies payload into or out of, zeroed (free() frees it); a page or more
 * starts on a page, as iperf3's mmap()ed one: the kernel's copy of a large block into malloc()'s
 * usual 16 bytes past a page ran at half speed on this project's guests (tcp-stream --reverse 17
 * against 33 Gbit/s with the receive buffer page-aligned). malloc_io: NULL when out of memory. */
#define IO_ALIGN 4096
void *malloc_io(size_t n);
void *xmalloc_io(size_t n);
char *xstrdup(const char *s);
/* in's first line into out, tabs and runs of blanks made one space, none at either end (the
 * form sysctl(8) shows /proc values in). */
void squash_line(const char *in, char *out, size_t len);
/* FNV-1a over n bytes from seed (0: the standard offset basis), folded so the low bits mix:
 * for the hash tables over names read from files (keys, function names, stack frames). */
uint64_t hash_bytes(uint64_t seed, const char *s, size_t n);
#define hash_str(s, n) hash_bytes(0, (s), (n))

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t now_ns(void);
/* Seconds between two now_ns() readings. */
double ns_to_s(uint64_t ns);

/* Read exactly n bytes within timeout_ms (-1: no limit). 0, -ETIMEDOUT, -EPIPE on EOF, -errno. */
int read_full(int fd, void *buf, size_t n, int timeout_ms);
/* Write all n bytes, retrying EINTR and short writes. 0 or -errno. */
int write_full(int fd, const void *buf, size_t n);

/* Can the file at path be written (outfile.h: a temporary file beside it, renamed over it)?
 * Checked before any work, so a bad output path is a usage error up front: 0, or -errno. Never
 * leaves a file it made, never removes one that was there. */
int output_writable(const char *path);

/* A figure as a reader wants it in a table: no decimals from 1000 up (a rate), one from 100,
 * two from 1, three significant digits below; "-" for NaN. Returns buf. */
const char *fmt_fig(char *buf, size_t n, double v);

/* v with thousands separators and decimals places ("174,960,000", "1,609.7"; "-" for NaN),
 * into buf, which it returns: every large number a text report prints goes through it. */
const char *fmt_sep(char *buf, size_t len, double v, int decimals);

/* A whole file ("-": stdin) as a NUL-terminated string (caller frees), or NULL with -errno in
 * err (-EFBIG past max bytes, -ENOMEM where no memory was given for it). */
char *slurp(const char *path, size_t max, int *err);

/* Run gnuplot on a script file that writes the SVG at svg, and wait: 0, -ENOENT when gnuplot is
 * not installed, -EIO when it failed or the SVG is not whole. Its messages (warnings too) go
 * to the file errlog, never to the user's terminal. */
int run_gnuplot(const char *script, const char *svg, const char *errlog);
/* s as a gnuplot string in buf: in single quotes, where nothing is special but '' (a quote),
 * so no backslash escape and no `command`; control characters (a newline ends a gnuplot
 * command) become spaces; cut short to fit n. Every text from a user or a file that reaches a
 * gnuplot script goes through it. Returns buf. */
const char *gp_str(char *buf, size_t n, const char *s);

/* Wait until fd is readable or timeout_ms passes (-1: forever). 1 readable, 0 timeout, -errno. */
int wait_readable(int fd, int timeout_ms);

/* CPUs this process may run on (its affinity; 1 where it cannot be read). */
int cpus_usable(void);

/* Split s in place into words at blanks, tabs and newlines: up to max - 1 of them in w, then
 * NULL. The count. */
int split_words(char *s, char **w, int max);
/* A seed for a run order nobody chose: the clock and the process id, never 0. */
uint64_t fresh_seed(void);

#endif
