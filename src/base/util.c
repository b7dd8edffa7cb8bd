/* util.c: see util.h. */
#include "base/util.h"

#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <pthread.h>
#include <sched.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "sockbench: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	exit(1);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	exit(2);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

/* Says so before abort() (wrk's zmalloc): under a limit (ulimit -v) a bare "Aborted" names
 * nothing. No allocation here: a stack buffer and write(). */
static void __attribute__((noreturn)) out_of_memory(size_t n)
{
	char msg[96];
	int len = snprintf(msg, sizeof(msg), "sockbench: out of memory (%zu bytes more)\n", n);

	if (len > 0 && write(STDERR_FILENO, msg, (size_t)len) < 0)
		len = 0;
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		out_of_memory(n);
	return p;
}

void *malloc_io(size_t n)
{
	size_t len = (n + IO_ALIGN - 1) & ~(size_t)(IO_ALIGN - 1);
	void *p = n >= IO_ALIGN ? aligned_alloc(IO_ALIGN, len) : calloc(1, n ? n : 1);

	if (p && n >= IO_ALIGN)
		memset(p, 0, len);
	return p;
}

void *xmalloc_io(size_t n)
{
	void *p = malloc_io(n);

	if (!p)
		out_of_memory(n);
	return p;
}

void *xrealloc(void *old, size_t n)
{
	void *p = realloc(old, n ? n : 1);

	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t n)
{
	void *p = calloc(nmemb ? nmemb : 1, n ? n : 1);

	if (!p)
		out_of_memory(nmemb * n);
	return p;
}

void *xcalloc_lines(size_t nmemb, size_t n)
{
	size_t bytes = (nmemb ? nmemb : 1) * (n ? n : 1);
	void *p = aligned_alloc(CACHE_LINE, (bytes + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE);

	if (!p)
		out_of_memory(bytes);
	return memset(p, 0, bytes);
}

void squash_line(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; in[i] && in[i] != '\n' && o + 1 < len; i++) {
		bool blank = in[i] == ' ' || in[i] == '\t';

		if (blank && (o == 0 || out[o - 1] == ' '))
			continue;
		out[o++] = blank ? ' ' : in[i];
	}
	while (o && out[o - 1] == ' ')
		o--;
	if (len)
		out[o] = 0;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		abort();
	return p;
}

uint64_t hash_bytes(uint64_t seed, const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL ^ seed;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h ^ h >> 29;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

double ns_to_s(uint64_t ns)
{
	return (double)ns / 1e9;
}

int wait_readable(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	uint64_t deadline = timeout_ms < 0 ? 0 : now_ns() + (uint64_t)timeout_ms * 1000000;

	for (;;) {
		int left = -1;

		if (timeout_ms >= 0) {
			uint64_t t = now_ns();

			left = t >= deadline ? 0 : (int)((deadline - t + 999999) / 1000000);
		}
		int r = poll(&p, 1, left);

		if (r > 0)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

int read_full(int fd, void *buf, size_t n, int timeout_ms)
{
	uint64_t deadline = timeout_ms < 0 ? 0 : now_ns() + (uint64_t)timeout_ms * 1000000;
	char *p = buf;

	while (n) {
		if (timeout_ms >= 0) {
			uint64_t t = now_ns();
			int r = t >= deadline ? 0
					      : wait_readable(fd, (int)((deadline - t) / 1000000) + 1);

			if (r == 0)
				return -ETIMEDOUT;
			if (r < 0)
				return r;
		}
		ssize_t got = read(fd, p, n);

		if (got == 0)
			return -EPIPE;
		if (got < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

int write_full(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int cpus_usable(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
}

int split_words(char *s, char **w, int max)
{
	int n = 0;
	char *save = NULL;

	for (char *t = strtok_r(s, " \t\n", &save); t && n < max - 1; t = strtok_r(NULL, " \t\n", &save))
		w[n++] = t;
	w[n] = NULL;
	return n;
}

uint64_t fresh_seed(void)
{
	uint64_t s = now_ns() ^ ((uint64_t)getpid() << 32);

	return s ? s : 1;
}

int output_writable(const char *path)
{
	return outfile_check(path);
}

const char *fmt_fig(char *buf, size_t n, double v)
{
	double a = v < 0 ? -v : v;

	if (v != v)
		snprintf(buf, n, "-");
	else if (a >= 1000)
		snprintf(buf, n, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, n, "%.1f", v);
	else if (a >= 1 || a == 0)
		snprintf(buf, n, "%.2f", v);
	else
		snprintf(buf, n, "%.3g", v);
	return buf;
}

const char *fmt_sep(char *buf, size_t len, double v, int decimals)
{
	char raw[64];
	size_t at = 0, digits;
	const char *p = raw;

	if (isnan(v) || isinf(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(raw, sizeof(raw), "%.*f", decimals, v);
	if (*p == '-')
		buf[at++] = *p++;
	digits = strspn(p, "0123456789");
	for (size_t i = 0; i < digits && at + 2 < len; i++) {
		if (i && (digits - i) % 3 == 0)
			buf[at++] = ',';
		buf[at++] = p[i];
	}
	snprintf(buf + at, len - at, "%s", p + digits);
	return buf;
}

char *slurp(const char *path, size_t max, int *err)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	char *txt = NULL;
	size_t len = 0, cap = 0, got, first = 131072;
	struct stat st;

	if (!f) {
		*err = -errno;
		return NULL;
	}
	/* A regular file's text in one block of its size (doubling from 128 KiB reserved up to
	 * twice a 64 MiB file); a pipe, a /proc file (size 0) or one that grows doubles as it
	 * comes. Without memory: -ENOMEM, not abort (a reader under ulimit -v says so). */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (size_t)st.st_size <= max)
		first = (size_t)st.st_size + 2;
	do {
		if (!txt || len + 1 >= cap) {
			size_t want = txt ? 2 * cap : first;
			char *more = realloc(txt, want);

			if (!more) {
				*err = -ENOMEM;
				goto out;
			}
			txt = more;
			cap = want;
		}
		got = fread(txt + len, 1, cap - len - 1, f);
		len += got;
	} while (got && len <= max);
	*err = ferror(f) ? -EIO : len > max ? -EFBIG : 0;
out:
	if (f != stdin)
		fclose(f);
	if (*err) {
		free(txt);
		return NULL;
	}
	txt[len] = '\0';
	return txt;
}

/* Does the file end with </svg> (and blanks)? gnuplot can exit 0 with an SVG cut short. */
static bool svg_whole(const char *path)
{
	char tail[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t end = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	ssize_t n = -1;

	if (end >= 0) {
		off_t from = end > (off_t)sizeof(tail) - 1 ? end - (off_t)sizeof(tail) + 1 : 0;

		n = pread(fd, tail, (size_t)(end - from), from);
	}
	if (fd >= 0)
		close(fd);
	if (n < 0)
		return false;
	while (n && (tail[n - 1] == '\n' || tail[n - 1] == ' ' || tail[n - 1] == '\t'))
		n--;
	tail[n] = '\0';
	return n >= 6 && !strcmp(tail + n - 6, "</svg>");
}

int run_gnuplot(const char *script, const char *svg, const char *errlog)
{
	int st = 0;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open(errlog, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(126);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 127)
		return -ENOENT;
	return WEXITSTATUS(st) || !svg_whole(svg) ? -EIO : 0;
}

const char *gp_str(char *buf, size_t n, const char *s)
{
	size_t o = 0;

	if (n < 3)
		return "''";
	buf[o++] = '\'';
	for (; *s && o + (*s == '\'' ? 2 : 1) + 2 <= n; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'')
			buf[o++] = '\'';
		buf[o++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}
