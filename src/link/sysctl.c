/* sysctl.c: see sysctl.h. */
#include "link/sysctl.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* /proc/sys/net/ipv4/tcp_autocorking for net.ipv4.tcp_autocorking (a '/' form is taken too). */
static void key_path(const char *key, char *path, size_t len)
{
	size_t o = (size_t)snprintf(path, len, "/proc/sys/");

	for (; *key && o + 1 < len; key++)
		path[o++] = *key == '.' ? '/' : *key;
	path[o] = 0;
}

/* The setting's value, blanks made single spaces (as sysctl(8) shows it); open, read and
 * close only (a signal handler puts values back). -EOVERFLOW: longer than a journal line
 * keeps, or more than one line. */
static int read_value(const char *path, char *out, size_t len)
{
	char buf[SYSCTL_VAL + 1];
	size_t n = 0;
	ssize_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return -errno;
	while (n < sizeof(buf) - 1 &&
	       ((got = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0 || (got < 0 && errno == EINTR)))
		n += got > 0 ? (size_t)got : 0;
	if (got < 0)
		e = -errno;
	close(fd);
	buf[n] = 0;
	size_t line = strcspn(buf, "\n");

	if (!e && (line >= SYSCTL_VAL || line >= len || buf[line + (line < n)]))
		e = -EOVERFLOW;
	squash_line(buf, out, len); /* one line: the journal keeps a value a line */
	return e;
}

static int write_value(const char *path, const char *val)
{
	int fd, e = 0;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	size_t n = strlen(val);

	if (write(fd, val, n) != (ssize_t)n)
		e = errno ? errno : EIO;
	if (close(fd) < 0 && !e)
		e = errno;
	return -e;
}

/* A CPU mask's digits as one number: each comma-separated group is 32 bits, and the kernel pads
 * groups to 8 digits and the whole to its CPU count ("00000000,00000001" for "1"). */
static bool mask_digits(const char *in, char *out, size_t len)
{
	size_t o = 0;

	while (*in) {
		size_t g = strcspn(in, ",");

		if (!g || strspn(in, "0123456789abcdefABCDEF") != g || o + g + 8 >= len)
			return false;
		for (size_t pad = g; pad < 8; pad++)
			out[o++] = '0';
		for (size_t i = 0; i < g; i++)
			out[o++] = (char)(in[i] | 0x20); /* lower case */
		in += g + (in[g] == ',');
	}
	out[o] = 0;
	size_t z = strspn(out, "0");

	memmove(out, out + z, o - z + 1);
	return true;
}

/* Does the setting read as it was written (got as read_value gives it)? The kernel prints
 * values with blanks squashed, and CPU masks (rps_cpus, *_mask, *bitmap) padded. Nothing more
 * is forgiven: "060" reads back as 48 (octal), and "60 5" sets 60. */
static bool same_value(const char *path, const char *want, const char *got)
{
	char w[SYSCTL_VAL], a[2 * SYSCTL_VAL], b[2 * SYSCTL_VAL];
	size_t n = strlen(path);

	squash_line(want, w, sizeof(w));
	if (!strcmp(w, got))
		return true;
	bool mask = (n >= 8 && !strcmp(path + n - 8, "rps_cpus")) ||
		    (n >= 5 && !strcmp(path + n - 5, "_mask")) ||
		    (n >= 6 && !strcmp(path + n - 6, "bitmap"));

	return mask && mask_digits(w, a, sizeof(a)) && mask_digits(got, b, sizeof(b)) &&
	       !strcmp(a, b);
}

static int add_entry(struct sysctl_set *s, const char *key, const char *path, const char *val,
		     char *err, size_t errlen)
{
	if (s->n == SYSCTL_MAX) {
		snprintf(err, errlen,
			 "--sysctl: at most %d settings (an interface's counts once per "
			 "rx queue)",
			 SYSCTL_MAX);
		return -EINVAL;
	}
	snprintf(s->key[s->n], SYSCTL_KEY, "%s", key);
	snprintf(s->path[s->n], SYSCTL_PATH, "%s", path);
	snprintf(s->val[s->n], SYSCTL_VAL, "%s", val);
	s->n++;
	return 0;
}

/* net.dev.IF.rps_cpus or .rps_flow_cnt: that file of every rx queue of IF. */
static int add_netdev(struct sysctl_set *s, const char *key, const char *val, char *err,
		      size_t errlen)
{
	const char *ifn = key + strlen("net.dev."), *attr = strrchr(key, '.') + 1;
	char dir[SYSCTL_PATH], path[SYSCTL_PATH + 64];
	int nq = 0, ret = 0;

	if (attr - 1 <= ifn || (strcmp(attr, "rps_cpus") && strcmp(attr, "rps_flow_cnt")) ||
	    !sysctl_ifname_ok(ifn, (size_t)(attr - 1 - ifn))) {
		snprintf(err, errlen,
			 "--sysctl %s: an interface's settings are net.dev.IF.rps_cpus "
			 "and net.dev.IF.rps_flow_cnt",
			 key);
		return -EINVAL;
	}
	snprintf(dir, sizeof(dir), "/sys/class/net/%.*s/queues", (int)(attr - 1 - ifn), ifn);
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		snprintf(err, errlen, "--sysctl %s: no interface %.*s here (%s)", key,
			 (int)(attr - 1 - ifn), ifn, dir);
		return -EINVAL;
	}
	while (!ret && (e = readdir(d))) {
		if (strncmp(e->d_name, "rx-", 3) || !e->d_name[3] ||
		    strspn(e->d_name + 3, "0123456789") != strlen(e->d_name + 3))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%.16s/%.16s", dir, e->d_name, attr) >=
		    SYSCTL_PATH)
			continue;
		if (access(path, F_OK) == 0) {
			ret = add_entry(s, key, path, val, err, errlen);
			nq++;
		}
	}
	closedir(d);
	if (!ret && !nq) {
		snprintf(err, errlen,
			 "--sysctl %s: %s has no rx queue with %s (a kernel without "
			 "CONFIG_RPS?)",
			 key, dir, attr);
		return -EINVAL;
	}
	return ret;
}

int sysctl_parse(const char *list, struct sysctl_set *s, char *err, size_t errlen)
{
	char path[256], line[SYSCTL_KEY + SYSCTL_VAL + 2];
	struct stat st;
	int ret;

	*s = (struct sysctl_set){.j = {.fd = -1, .dir_fd = -1}};
	while (list && *list) {
		size_t n = strcspn(list, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)n, list);
		list += n + (list[n] == '\n');
		char *eq = strchr(line, '=');

		if (!eq || eq == line || !eq[1]) {
			snprintf(err, errlen,
				 "--sysctl %s: give KEY=VALUE (net.ipv4.tcp_autocorking=0)", line);
			return -EINVAL;
		}
		*eq = 0;
		/* A key is a path under /proc/sys and nothing else. */
		if (strstr(line, "..") || line[0] == '/' || line[0] == '.' ||
		    strspn(line, SYSCTL_KEY_CHARS) != strlen(line) || strlen(line) >= SYSCTL_KEY ||
		    strlen(eq + 1) >= SYSCTL_VAL) {
			snprintf(err, errlen,
				 "--sysctl %s: not a sysctl name (dotted, as sysctl -a shows)",
				 line);
			return -EINVAL;
		}
		for (int i = 0; i < s->n; i++)
			if (!strcmp(s->key[i], line)) {
				snprintf(err, errlen, "--sysctl %s is given twice", line);
				return -EINVAL;
			}
		if (!strncmp(line, "net.dev.", 8)) {
			if ((ret = add_netdev(s, line, eq + 1, err, errlen)))
				return ret;
			continue;
		}
		if (!sysctl_key_ok(line)) {
			snprintf(
			    err, errlen,
			    "--sysctl %s: only network settings (net.*, and "
			    "net.dev.IF.rps_cpus/rps_flow_cnt) can be set: sockbench benchmarks "
			    "sockets, and root carries out its journal",
			    line);
			return -EINVAL;
		}
		key_path(line, path, sizeof(path));
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "--sysctl %s: this kernel has no such setting (%s)",
				 line, path);
			return -EINVAL;
		}
		if ((ret = add_entry(s, line, path, eq + 1, err, errlen)))
			return ret;
	}
	return 0;
}

bool sysctl_allowed(const struct sysctl_set *s, const char *allowed, char *err, size_t errlen)
{
	for (int i = 0; i < s->n; i++) {
		size_t kl = strlen(s->key[i]);
		const char *p = allowed;
		bool ok = false;

		while (p && *p && !ok) {
			size_t n = strcspn(p, ",");

			ok = n == kl && !strncmp(p, s->key[i], n);
			p += n + (p[n] == ',');
		}
		if (!ok) {
			snprintf(err, errlen,
				 "--sysctl %s: this agent does not let controllers set it (start "
				 "it with "
				 "--allow-sysctl %s)",
				 s->key[i], s->key[i]);
			return false;
		}
	}
	return true;
}

/* Put back the old values of the first n settings, each read back. */
static int put_back(struct sysctl_set *s, int n, char *err, size_t errlen)
{
	char back[SYSCTL_VAL];
	int ret = 0;

	for (int i = n - 1; i >= 0; i--) {
		int e = write_value(s->path[i], s->old[i]);

		if (!e && !(e = read_value(s->path[i], back, sizeof(back))) &&
		    !same_value(s->path[i], s->old[i], back))
			e = -EIO;
		if (e && !ret) {
			ret = e;
			if (err)
				snprintf(err, errlen,
					 "could not put %s back to %s: %s (the journal %s keeps "
					 "it)",
					 s->key[i], s->old[i], strerror(-e), journal_path());
		}
	}
	return ret;
}

/* What the journal j (open and held) says goes back: the number of settings put back (named
 * in s), or -errno with the reason in err and the journal as it was. */
static int put_back_journal(struct journal *j, struct sysctl_set *s, char *err, size_t errlen)
{
	char why[300];
	int e;

	*s = (struct sysctl_set){.j = {.fd = -1, .dir_fd = -1}};
	if ((e = journal_load(j, s, why, sizeof(why)))) {
		snprintf(err, errlen,
			 "kernel settings journal %s refused: %s; nothing was put back or "
			 "removed",
			 journal_path(), why);
		return e;
	}
	if ((e = put_back(s, s->n, why, sizeof(why)))) {
		snprintf(err, errlen,
			 "a previous run left kernel settings changed and they could not "
			 "be put back: %s",
			 why);
		return e;
	}
	return s->n;
}

/* The old values, each from a setting as it is before we change it. */
static int read_old(struct sysctl_set *s, char *err, size_t errlen)
{
	for (int i = 0; i < s->n; i++) {
		int e = read_value(s->path[i], s->old[i], SYSCTL_VAL);

		if (!e && !s->old[i][0])
			e = -ENODATA;
		if (e) {
			snprintf(err, errlen,
				 "--sysctl %s: cannot read it to journal it: %s; nothing "
				 "was changed",
				 s->key[i],
				 e == -EOVERFLOW ? "it is longer than a line of "
						   "255 characters"
				 : e == -ENODATA ? "it reads empty"
						 : strerror(-e));
			return e;
		}
	}
	return 0;
}

/* Setting i is written: does it read as written? On failure, everything up to i goes back. */
static int write_one(struct sysctl_set *s, int i, char *err, size_t errlen)
{
	char back[SYSCTL_VAL] = "", why[300] = "";
	int e = write_value(s->path[i], s->val[i]);

	if (!e && !(e = read_value(s->path[i], back, sizeof(back))) &&
	    !same_value(s->path[i], s->val[i], back))
		e = -ERANGE;
	if (!e)
		return 0;
	int pe = put_back(s, i + 1, why, sizeof(why));

	if (e == -ERANGE)
		snprintf(err, errlen,
			 "--sysctl %s=%s: the kernel keeps it as %s (give it as that); "
			 "%s",
			 s->key[i], s->val[i], back, pe ? why : "nothing was changed");
	else
		snprintf(err, errlen, "--sysctl %s=%s: the kernel refused it: %s; %s", s->key[i],
			 s->val[i], strerror(-e), pe ? why : "nothing was changed");
	journal_close(&s->j, !pe);
	s->applied = false;
	return e == -EPERM || e == -EACCES ? -EACCES : -EINVAL;
}

int sysctl_apply(struct sysctl_set *s, char *err, size_t errlen)
{
	char why[400];
	int e;

	if (!s->n)
		return 0;
	if (geteuid() != 0) {
		snprintf(err, errlen,
			 "--sysctl needs root (it writes /proc/sys); run as root or drop "
			 "--sysctl");
		return -EACCES;
	}
	if ((e = journal_open(&s->j, true, why, sizeof(why)))) {
		if (e == -EBUSY)
			snprintf(err, errlen,
				 "--sysctl: another sockbench run holds kernel settings now "
				 "(%s); wait for it to end",
				 journal_path());
		else
			snprintf(err, errlen,
				 "--sysctl: kernel settings journal %s: %s; nothing was "
				 "changed",
				 journal_path(), why);
		return e;
	}
	/* A journal nobody holds is a dead run's: its originals go back before ours are read, and
	 * before the journal is written over. */
	struct sysctl_set *dead = malloc(sizeof(*dead));

	e = dead ? put_back_journal(&s->j, dead, why, sizeof(why)) : -ENOMEM;
	free(dead);
	if (e < 0) {
		snprintf(err, errlen, "--sysctl: %s; nothing was changed", why);
		journal_close(&s->j, false);
		return e == -EINVAL ? -EPERM : e; /* the host's state, not the command, is wrong */
	}
	if ((e = read_old(s, err, errlen))) {
		journal_close(&s->j, true);
		return e;
	}
	if ((e = journal_store(&s->j, s))) {
		snprintf(err, errlen,
			 "--sysctl: cannot write the journal %s: %s; nothing was changed",
			 journal_path(), strerror(-e));
		journal_close(&s->j, true);
		return e;
	}
	s->applied = true;
	for (int i = 0; i < s->n; i++)
		if ((e = write_one(s, i, err, errlen)))
			return e;
	return 0;
}

int sysctl_restore(struct sysctl_set *s, char *err, size_t errlen)
{
	if (!s->applied)
		return 0;
	int ret = put_back(s, s->n, err, errlen);

	journal_close(&s->j, !ret);
	s->applied = false;
	return ret;
}

int sysctl_recover(char *msg, size_t len)
{
	struct sysctl_set s;
	struct journal j;
	char err[400];
	int n;

	/* Once per command: the processes it starts (a local agent) need not look again. Only
	 * root can write the settings, or read the root-only folder the journal is in. */
	if (getenv("SOCKBENCH_RECOVERED") || geteuid() != 0)
		return 0;
	setenv("SOCKBENCH_RECOVERED", "1", 1);
	n = journal_open(&j, false, err, sizeof(err));
	if (n == -ENOENT || n == -EBUSY) /* none, or a live run holds it */
		return 0;
	if (n < 0) {
		snprintf(msg, len,
			 "kernel settings journal %s refused: %s; nothing was put back or "
			 "removed",
			 journal_path(), err);
		return n;
	}
	struct stat st;
	bool empty = fstat(j.fd, &st) == 0 && st.st_size == 0;

	n = put_back_journal(&j, &s, msg, len);
	/* Done with once put back (or naming only settings gone since, with their interface);
	 * an empty one (a run that died before journaling) is left: nothing to do with it. */
	journal_close(&j, n >= 0 && !empty);
	if (n <= 0)
		return n;
	size_t o = (size_t)snprintf(msg, len,
				    "put back %d kernel setting%s a previous sockbench "
				    "run left changed (it ended without restoring them):",
				    n, n == 1 ? "" : "s");
	for (int i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(msg + o, len - o, " %s=%s", s.key[i], s.old[i]);
	return n;
}
