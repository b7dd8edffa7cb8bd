/* journal.c: see journal.h. Every check is made on the file descriptor actually used (openat
 * down from /, O_NOFOLLOW at each step, then fstat), so nothing can be swapped in between the
 * check and the use. */
#include "link/journal.h"
#include "link/sysctl_set.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The longest journal --sysctl writes: SYSCTL_MAX lines of a path, a tab, a value, a newline. */
#define JOURNAL_MAX_BYTES (SYSCTL_MAX * (SYSCTL_PATH + SYSCTL_VAL + 2))

const char *journal_path(void)
{
	const char *p = getenv("SOCKBENCH_JOURNAL");

	return p && *p ? p : JOURNAL_DEFAULT;
}

/* Can someone other than root have put something in folder where (own: the journal's own)?
 * A sticky folder above it (/tmp) lets others make entries, but not rename or remove ours. */
static int check_dir(const struct stat *st, const char *where, bool own, char *err, size_t errlen)
{
	bool others_write = st->st_mode & (S_IWGRP | S_IWOTH);

	if (st->st_uid != geteuid()) {
		snprintf(err, errlen,
			 "its folder %s is owned by uid %u, not root: keep the journal "
			 "in a folder only root can write (chown root, chmod 700, or set "
			 "SOCKBENCH_JOURNAL elsewhere)",
			 where, (unsigned)st->st_uid);
		return -EPERM;
	}
	if (others_write && (own || !(st->st_mode & S_ISVTX))) {
		snprintf(err, errlen,
			 "its folder %s is writable by others (mode %03o): keep the "
			 "journal in a folder only root can write (chmod 700)",
			 where, (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* One step down from fd to the last folder of where, the path so far (create: make it, 0700,
 * where missing). */
static int step_dir(int fd, const char *where, bool own, bool create, char *err, size_t errlen)
{
	int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, nfd, e = 0;
	const char *comp = strrchr(where, '/') + 1;
	struct stat st;

	if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
		snprintf(err, errlen,
			 "its path has a '%s' in it: give SOCKBENCH_JOURNAL as a plain "
			 "absolute path",
			 comp);
		return -EINVAL;
	}
	nfd = openat(fd, comp, flags);
	if (nfd < 0 && errno == ENOENT && own && create) {
		if (mkdirat(fd, comp, 0700) < 0 && errno != EEXIST)
			goto failed;
		nfd = openat(fd, comp, flags);
	}
	if (nfd < 0)
		goto failed;
	if (fstat(nfd, &st) < 0 || (e = check_dir(&st, where, own, err, errlen))) {
		e = e ? e : -errno;
		close(nfd);
		return e;
	}
	return nfd;
failed:
	e = errno;
	if (e == ELOOP || e == ENOTDIR) {
		snprintf(err, errlen,
			 "%s is a symlink or not a folder: the journal's path must be "
			 "real folders only root can write",
			 where);
		return -EPERM;
	}
	snprintf(err, errlen, "its folder %s: %s", where, strerror(e));
	return -e;
}

/* The journal's folder, every folder down to it checked. Its fd, or -errno. */
static int open_dir(const char *path, bool create, char *err, size_t errlen)
{
	char dir[PATH_MAX], where[PATH_MAX] = "", *save = NULL;
	const char *slash = strrchr(path, '/');
	struct stat st;
	int fd, e = 0;

	if (path[0] != '/' || (size_t)(slash - path) >= sizeof(dir)) {
		snprintf(err, errlen, "not an absolute path: give SOCKBENCH_JOURNAL as one");
		return -EINVAL;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if ((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	char *comp = strtok_r(dir, "/", &save);

	if (fstat(fd, &st) < 0 || (e = check_dir(&st, "/", !comp, err, errlen))) {
		e = e ? e : -errno;
		close(fd);
		return e;
	}
	while (comp) {
		char *next = strtok_r(NULL, "/", &save);
		size_t o = strlen(where);

		snprintf(where + o, sizeof(where) - o, "/%s", comp);
		int nfd = step_dir(fd, where, !next, create, err, errlen);

		close(fd);
		if (nfd < 0)
			return nfd;
		fd = nfd;
		comp = next;
	}
	return fd;
}

/* The journal itself: a regular file, root's, writable by root only. */
static int check_file(const struct stat *st, char *err, size_t errlen)
{
	const char *why = NULL;

	if (!S_ISREG(st->st_mode))
		why = "is not a regular file";
	else if (st->st_uid != geteuid())
		why = "is not owned by root";
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		why = "is writable by others";
	else if (st->st_nlink > 1)
		why = "has another name (a hard link)";
	if (!why)
		return 0;
	snprintf(err, errlen,
		 "it %s (uid %u, mode %03o, links %u): only a file root alone wrote "
		 "is carried out; remove it once you have checked it",
		 why, (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777),
		 (unsigned)st->st_nlink);
	return -EPERM;
}

/* Open, check and lock the journal in the checked folder dfd. */
static int open_file(int dfd, const char *name, bool create, char *err, size_t errlen)
{
	struct stat st;
	int fd, e = 0;

	for (int tries = 0; tries < 3; tries++) {
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (e = check_file(&st, err, errlen)))
			return e;
		fd = openat(dfd, name,
			    O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | (create ? O_CREAT : 0),
			    0600);
		if (fd < 0) {
			e = errno;
			snprintf(err, errlen, "%s", e == ELOOP ? "it is a symlink" : strerror(e));
			return e == ELOOP ? -EPERM : -e;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			e = errno == EWOULDBLOCK ? EBUSY : errno;
			snprintf(err, errlen, "%s",
				 e == EBUSY ? "a sockbench run holds it now" : strerror(e));
			close(fd);
			return -e;
		}
		/* The holder we waited for removed it (its run ended): start again. */
		if (fstat(fd, &st) == 0 && st.st_nlink == 0) {
			close(fd);
			if (!create) {
				snprintf(err, errlen, "%s", strerror(ENOENT));
				return -ENOENT;
			}
			continue;
		}
		if ((e = fstat(fd, &st) < 0 ? -errno : check_file(&st, err, errlen))) {
			close(fd);
			return e;
		}
		return fd;
	}
	snprintf(err, errlen, "it keeps being removed under us");
	return -EAGAIN;
}

int journal_open(struct journal *j, bool create, char *err, size_t errlen)
{
	const char *path = journal_path(), *name = strrchr(path, '/');
	int e;

	j->dir_fd = j->fd = -1;
	if (!name || !name[1] || strlen(name + 1) >= sizeof(j->name) || !strcmp(name, "/.") ||
	    !strcmp(name, "/..")) {
		snprintf(err, errlen, "not a file's absolute path: give SOCKBENCH_JOURNAL as one");
		return -EINVAL;
	}
	snprintf(j->name, sizeof(j->name), "%s", name + 1);
	if ((e = open_dir(path, create, err, errlen)) < 0)
		return e;
	j->dir_fd = e;
	if ((e = open_file(j->dir_fd, j->name, create, err, errlen)) < 0) {
		close(j->dir_fd);
		j->dir_fd = -1;
		return e;
	}
	j->fd = e;
	return 0;
}

/* /sys/class/net/IF/queues/rx-N/ATTR: key net.dev.IF.ATTR, and where the class link leads
 * must be that file of that interface (/sys/devices/.../net/IF/queues/rx-N/ATTR). */
static int netdev_entry(const char *path, char *key, size_t keylen, char *err, size_t errlen)
{
	const char *ifn = path + strlen("/sys/class/net/"), *q = strchr(ifn, '/'), *attr;
	char real[PATH_MAX], tail[SYSCTL_PATH + 8];

	if (!q || !sysctl_ifname_ok(ifn, (size_t)(q - ifn)) || strncmp(q, "/queues/rx-", 11))
		goto refused;
	attr = q + 11 + strspn(q + 11, "0123456789");
	if (attr == q + 11 || *attr != '/' ||
	    (strcmp(attr + 1, "rps_cpus") && strcmp(attr + 1, "rps_flow_cnt")))
		goto refused;
	snprintf(key, keylen, "net.dev.%.*s.%s", (int)(q - ifn), ifn, attr + 1);
	if (!realpath(path, real))
		return errno == ENOENT ? -ENOENT : -EINVAL;
	snprintf(tail, sizeof(tail), "/net/%s", ifn);
	size_t rl = strlen(real), tl = strlen(tail);

	if (strncmp(real, "/sys/devices/", 13) || rl < tl || strcmp(real + rl - tl, tail)) {
		snprintf(err, errlen, "%s leads to %s, not that interface's queue", path, real);
		return -EINVAL;
	}
	return 0;
refused:
	snprintf(err, errlen,
		 "%s is not an interface's rx-N/rps_cpus or rps_flow_cnt, the only "
		 "files of /sys --sysctl sets",
		 path);
	return -EINVAL;
}

int journal_entry_check(const char *path, char *key, size_t keylen, char *err, size_t errlen)
{
	char real[PATH_MAX];
	struct stat st;

	if (!strncmp(path, "/sys/class/net/", 15))
		return netdev_entry(path, key, keylen, err, errlen);
	if (strncmp(path, "/proc/sys/", 10)) {
		snprintf(err, errlen, "%s is not under /proc/sys/net or /sys/class/net", path);
		return -EINVAL;
	}
	/* As --sysctl journals it: key_path made every '.' a '/'. */
	size_t k = 0;

	for (const char *p = path + 10; *p && k + 1 < keylen; p++)
		key[k++] = *p == '/' ? '.' : *p;
	key[k] = 0;
	if (strchr(path + 10, '.') || !sysctl_key_ok(key)) {
		snprintf(err, errlen, "%s is not a setting --sysctl may set (net.* only)", path);
		return -EINVAL;
	}
	if (!realpath(path, real) || stat(real, &st) < 0)
		return errno == ENOENT ? -ENOENT : -EINVAL;
	if (strcmp(real, path) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is not a setting's file", path);
		return -EINVAL;
	}
	return 0;
}

/* One line, "PATH<TAB>VALUE", as entry s->n. */
static int load_line(char *line, int no, struct sysctl_set *s, char *err, size_t errlen)
{
	char *tab = strchr(line, '\t'), why[200];

	if (s->n == SYSCTL_MAX) {
		snprintf(err, errlen, "more than %d lines, which no --sysctl run writes",
			 SYSCTL_MAX);
		return -EINVAL;
	}
	if (!tab || tab == line || !tab[1] || strchr(tab + 1, '\t') ||
	    (size_t)(tab - line) >= SYSCTL_PATH || strlen(tab + 1) >= SYSCTL_VAL) {
		snprintf(err, errlen, "line %d is not PATH<TAB>VALUE", no);
		return -EINVAL;
	}
	*tab = 0;
	int e = journal_entry_check(line, s->key[s->n], SYSCTL_KEY, why, sizeof(why));

	if (e == -ENOENT) /* gone with its interface or module: nothing to put back */
		return 0;
	if (e) {
		snprintf(err, errlen, "line %d: %s", no, why);
		return -EINVAL;
	}
	snprintf(s->path[s->n], SYSCTL_PATH, "%s", line);
	snprintf(s->old[s->n], SYSCTL_VAL, "%s", tab + 1);
	s->n++;
	return 0;
}

int journal_load(struct journal *j, struct sysctl_set *s, char *err, size_t errlen)
{
	char *buf = malloc(JOURNAL_MAX_BYTES + 2), *line, *save = NULL;
	size_t n = 0;
	ssize_t got;
	int e = 0, no = 0;

	if (!buf)
		return -ENOMEM;
	/* The whole file, up to one byte past the longest one could be. */
	for (;;) {
		got = pread(j->fd, buf + n, JOURNAL_MAX_BYTES + 1 - n, (off_t)n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = -errno;
			snprintf(err, errlen, "cannot read it: %s", strerror(errno));
			goto out;
		}
		if (got == 0 || (n += (size_t)got) > JOURNAL_MAX_BYTES)
			break;
	}
	buf[n] = 0;
	e = -EINVAL;
	if (n > JOURNAL_MAX_BYTES)
		snprintf(err, errlen, "it is longer (over %d bytes) than any --sysctl run writes",
			 JOURNAL_MAX_BYTES);
	else if (memchr(buf, 0, n))
		snprintf(err, errlen, "it holds a NUL byte, which no --sysctl run writes");
	else if (n && buf[n - 1] != '\n')
		snprintf(err, errlen, "its last line is cut short");
	else
		e = 0;
	for (line = strtok_r(buf, "\n", &save); !e && line; line = strtok_r(NULL, "\n", &save))
		e = load_line(line, ++no, s, err, errlen);
out:
	free(buf);
	return e;
}

int journal_store(struct journal *j, const struct sysctl_set *s)
{
	char line[SYSCTL_PATH + SYSCTL_VAL + 4];
	int e;

	if (ftruncate(j->fd, 0) < 0 || lseek(j->fd, 0, SEEK_SET) < 0)
		return -errno;
	for (int i = 0; i < s->n; i++) {
		int n = snprintf(line, sizeof(line), "%s\t%s\n", s->path[i], s->old[i]);

		if ((e = write_full(j->fd, line, (size_t)n)))
			return e;
	}
	/* On disk, and its name too, before anything changes. */
	if (fsync(j->fd) < 0 || fsync(j->dir_fd) < 0)
		return -errno;
	return 0;
}

void journal_close(struct journal *j, bool remove)
{
	if (remove && j->dir_fd >= 0)
		unlinkat(j->dir_fd, j->name, 0);
	if (j->fd >= 0)
		close(j->fd);
	if (j->dir_fd >= 0)
		close(j->dir_fd);
	j->fd = j->dir_fd = -1;
}
