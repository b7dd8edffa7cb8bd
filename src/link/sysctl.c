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

const char *sysctl_journal_path(void)
{
	const char *p = getenv("SOCKBENCH_JOURNAL");

	return p && *p ? p : "/run/sockbench/sysctl.journal";
}

/* /proc/sys/net/ipv4/tcp_autocorking for net.ipv4.tcp_autocorking (a '/' form is taken too). */
static void key_path(const char *key, char *path, size_t len)
{
	size_t o = (size_t)snprintf(path, len, "/proc/sys/");

	for (; *key && o + 1 < len; key++)
		path[o++] = *key == '.' ? '/' : *key;
	path[o] = 0;
}

/* The setting's value, blanks made single spaces (as sysctl(8) shows it). */
static int read_value(const char *path, char *out, size_t len)
{
	char buf[SYSCTL_VAL];
	FILE *f;

	if (!(f = fopen(path, "re")))
		return -errno;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);

	fclose(f);
	buf[n] = 0;
	squash_line(buf, out, len); /* one line: the journal keeps a value a line */
	return 0;
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

static int add_entry(struct sysctl_set *s, const char *key, const char *path, const char *val,
		     char *err, size_t errlen)
{
	if (s->n == SYSCTL_MAX) {
		snprintf(err, errlen, "--sysctl: at most %d settings (an interface's counts once per "
			 "rx queue)", SYSCTL_MAX);
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

	if (attr - 1 <= ifn || (strcmp(attr, "rps_cpus") && strcmp(attr, "rps_flow_cnt"))) {
		snprintf(err, errlen, "--sysctl %s: an interface's settings are net.dev.IF.rps_cpus "
			 "and net.dev.IF.rps_flow_cnt", key);
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
		if (strncmp(e->d_name, "rx-", 3))
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
		snprintf(err, errlen, "--sysctl %s: %s has no rx queue with %s (a kernel without "
			 "CONFIG_RPS?)", key, dir, attr);
		return -EINVAL;
	}
	return ret;
}

int sysctl_parse(const char *list, struct sysctl_set *s, char *err, size_t errlen)
{
	char path[256], line[SYSCTL_KEY + SYSCTL_VAL + 2];
	struct stat st;
	int ret;

	*s = (struct sysctl_set){.lock_fd = -1};
	while (list && *list) {
		size_t n = strcspn(list, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)n, list);
		list += n + (list[n] == '\n');
		char *eq = strchr(line, '=');

		if (!eq || eq == line || !eq[1]) {
			snprintf(err, errlen, "--sysctl %s: give KEY=VALUE (net.ipv4.tcp_autocorking=0)",
				 line);
			return -EINVAL;
		}
		*eq = 0;
		/* A key is a path under /proc/sys and nothing else. */
		if (strstr(line, "..") || line[0] == '/' || line[0] == '.' ||
		    strspn(line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/") !=
			    strlen(line) || strlen(line) >= SYSCTL_KEY || strlen(eq + 1) >= SYSCTL_VAL) {
			snprintf(err, errlen, "--sysctl %s: not a sysctl name (dotted, as sysctl -a shows)",
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
		key_path(line, path, sizeof(path));
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "--sysctl %s: this kernel has no such setting (%s)", line,
				 path);
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
				 "--sysctl %s: this agent does not let controllers set it (start it with "
				 "--allow-sysctl %s)", s->key[i], s->key[i]);
			return false;
		}
	}
	return true;
}

/* Open and lock the journal, creating its folder. The fd, or -errno. */
static int journal_lock(bool create)
{
	const char *path = sysctl_journal_path();
	char dir[256];
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');

	if (create && slash && slash != dir) {
		*slash = 0;
		mkdir(dir, 0755); /* so anyone can see a journal is there; only root reads it */
	}
	fd = open(path, (create ? O_CREAT : 0) | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno == EWOULDBLOCK ? EBUSY : errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* Put back the old values of the first n settings. */
static int put_back(struct sysctl_set *s, int n, char *err, size_t errlen)
{
	int ret = 0;

	for (int i = n - 1; i >= 0; i--) {
		int e = write_value(s->path[i], s->old[i]);

		if (e && !ret) {
			ret = e;
			if (err)
				snprintf(err, errlen, "could not put %s back to %s: %s (the journal %s keeps "
					 "it)", s->key[i], s->old[i], strerror(-e), sysctl_journal_path());
		}
	}
	return ret;
}

int sysctl_apply(struct sysctl_set *s, char *err, size_t errlen)
{
	char line[SYSCTL_PATH + SYSCTL_VAL + 4], back[SYSCTL_VAL];
	int fd, e;

	if (!s->n)
		return 0;
	if (geteuid() != 0) {
		snprintf(err, errlen, "--sysctl needs root (it writes /proc/sys); run as root or drop "
			 "--sysctl");
		return -EACCES;
	}
	for (int i = 0; i < s->n; i++)
		if ((e = read_value(s->path[i], s->old[i], SYSCTL_VAL))) {
			snprintf(err, errlen, "--sysctl %s: cannot read it: %s", s->key[i], strerror(-e));
			return e;
		}
	fd = journal_lock(true);
	if (fd < 0) {
		snprintf(err, errlen, fd == -EBUSY ? "--sysctl: another sockbench run holds kernel "
			 "settings now (%s); wait for it to end" : "--sysctl: journal %s: %s",
			 sysctl_journal_path(), strerror(-fd));
		return fd;
	}
	/* The journal first, on disk, then the settings. */
	if (ftruncate(fd, 0) < 0)
		goto journal_failed;
	for (int i = 0; i < s->n; i++) {
		int n = snprintf(line, sizeof(line), "%s\t%s\n", s->path[i], s->old[i]);

		if (write(fd, line, (size_t)n) != n)
			goto journal_failed;
	}
	if (fsync(fd) < 0)
		goto journal_failed;
	s->lock_fd = fd;
	s->applied = true;
	for (int i = 0; i < s->n; i++) {
		e = write_value(s->path[i], s->val[i]);
		if (!e && (e = read_value(s->path[i], back, sizeof(back))) == 0 && !back[0])
			e = -EINVAL;
		if (e) {
			snprintf(err, errlen, "--sysctl %s=%s: the kernel refused it: %s; nothing was "
				 "changed", s->key[i], s->val[i], strerror(-e));
			put_back(s, i, NULL, 0);
			unlink(sysctl_journal_path());
			close(fd);
			s->lock_fd = -1;
			s->applied = false;
			return e == -EPERM || e == -EACCES ? -EACCES : -EINVAL;
		}
	}
	return 0;
journal_failed:
	e = errno ? errno : EIO;
	snprintf(err, errlen, "--sysctl: cannot write the journal %s: %s; nothing was changed",
		 sysctl_journal_path(), strerror(e));
	unlink(sysctl_journal_path());
	close(fd);
	return -e;
}

int sysctl_restore(struct sysctl_set *s, char *err, size_t errlen)
{
	if (!s->applied)
		return 0;
	int ret = put_back(s, s->n, err, errlen);

	if (!ret)
		unlink(sysctl_journal_path());
	close(s->lock_fd);
	s->lock_fd = -1;
	s->applied = false;
	return ret;
}

int sysctl_recover(char *msg, size_t len)
{
	struct sysctl_set s = {.lock_fd = -1};
	char buf[8192], *line, *save = NULL;
	struct stat st;

	/* Once per command: the processes it starts (a local agent) need not look again. */
	if (getenv("SOCKBENCH_RECOVERED") || stat(sysctl_journal_path(), &st) < 0)
		return 0;
	setenv("SOCKBENCH_RECOVERED", "1", 1);
	int fd = journal_lock(false);

	if (fd == -ENOENT || fd == -EBUSY) /* gone, or a live run holds it */
		return 0;
	if (fd < 0) {
		snprintf(msg, len, "kernel settings journal %s is there (%s): a sockbench run holds "
			 "settings now, or one that died left them changed; if none is running, run "
			 "sockbench as root once to put them back", sysctl_journal_path(), strerror(-fd));
		return fd;
	}
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = 0;
	for (line = strtok_r(buf, "\n", &save); line && s.n < SYSCTL_MAX;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		*tab = 0;
		if (line[0] != '/') /* a dotted key (journals before the paths) */
			key_path(line, s.path[s.n], SYSCTL_PATH);
		else
			snprintf(s.path[s.n], SYSCTL_PATH, "%s", line);
		/* Only what a journal can name: a setting under /proc/sys or an interface's queue. */
		const char *p = s.path[s.n];

		if (strstr(p, "..") || (strncmp(p, "/proc/sys/", 10) && strncmp(p, "/sys/class/net/", 15)))
			continue;
		/* Named as sysctl(8) names it, where it is one; else by its path. */
		bool proc = !strncmp(p, "/proc/sys/", 10);
		size_t k = 0;

		for (p += proc ? 10 : 0; *p && k + 1 < SYSCTL_KEY; p++)
			s.key[s.n][k++] = proc && *p == '/' ? '.' : *p;
		s.key[s.n][k] = 0;
		snprintf(s.old[s.n], SYSCTL_VAL, "%s", tab + 1);
		s.n++;
	}
	s.lock_fd = fd;
	s.applied = true;
	char err[300] = "";
	int ret = sysctl_restore(&s, err, sizeof(err));

	if (ret) {
		snprintf(msg, len, "a previous run left kernel settings changed and they could not be "
			 "put back: %s", err);
		return ret;
	}
	size_t o = (size_t)snprintf(msg, len, "put back %d kernel setting%s a previous sockbench "
				    "run left changed (it ended without restoring them):", s.n,
				    s.n == 1 ? "" : "s");
	for (int i = 0; i < s.n && o < len; i++)
		o += (size_t)snprintf(msg + o, len - o, " %s=%s", s.key[i], s.old[i]);
	return s.n;
}
