/* outfile.c: see outfile.h. A bottom file: it uses nothing of ours (util.c uses it). */
#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct outfile_fd {
	int fd;
	int err; /* the first write or close error, -errno */
	/* A temporary file is made 0600 (nobody else can open it while it fills) and given, just
	 * before it replaces the target, the target's permission bits and owner (set-id bits
	 * never), or for a new file 0666 less the umask. */
	mode_t mode;
	uid_t uid;
	gid_t gid;
	bool chown;
};

/* Paths that name a file this process has open (/dev/stdout, /dev/fd/N, /proc/self/fd/N):
 * written where they point, appended to, never replaced. */
static bool names_open_file(const char *path)
{
	return !strncmp(path, "/dev/std", 8) || !strncmp(path, "/dev/fd/", 8) ||
	       !strncmp(path, "/proc/", 6);
}

/* A FIFO or a socket is anyone's to make in a shared folder such as /tmp, and whoever made it
 * reads what is written there (and a FIFO with no reader holds open(2) forever); a block
 * device is a disk. None is written unless the caller named it as a file this process has
 * open: -ESPIPE, -ENOTSOCK, -ENOTBLK (outfile_strerror says why), or 0. */
static int refused(const char *path, const struct stat *st)
{
	if (names_open_file(path))
		return 0;
	if (S_ISFIFO(st->st_mode))
		return -ESPIPE;
	if (S_ISSOCK(st->st_mode))
		return -ENOTSOCK;
	return S_ISBLK(st->st_mode) ? -ENOTBLK : 0;
}

static ssize_t fd_write(void *cookie, const char *buf, size_t n)
{
	struct outfile_fd *c = cookie;
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(c->fd, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!c->err)
				c->err = w < 0 ? -errno : -EIO;
			return 0; /* stdio marks the stream's error */
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

static int fd_close(void *cookie)
{
	struct outfile_fd *c = cookie;
	int r = close(c->fd);

	if (r && !c->err && errno != EINTR)
		c->err = -errno;
	return c->err ? -1 : 0;
}

/* May a link at path be followed? The kernel's rule for fs.protected_symlinks, kept whatever
 * the sysctl says (the link is followed here, in user space, where the kernel's check does not
 * run): not a link someone else planted in a sticky, world-writable folder such as /tmp,
 * unless it is that folder's owner's. Else root could be sent to replace any file. */
static bool may_follow(const char *path, const struct stat *link)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat d;

	if (link->st_uid == geteuid())
		return true;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
		 slash ? path : ".");
	if (stat(dir, &d))
		return false;
	return !((d.st_mode & S_ISVTX) && (d.st_mode & S_IWOTH)) || d.st_uid == link->st_uid;
}

/* The file a symlink leads to, as open(2) follows it, whether or not it exists yet (caller
 * frees); NULL with errno (EACCES: a link may_follow refuses). */
static char *follow(const char *path)
{
	char *cur = strdup(path), link[PATH_MAX] = "";
	struct stat st;

	for (int hops = 0; cur; hops++) {
		if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
			return cur;
		if (!may_follow(cur, &st)) {
			free(cur);
			errno = EACCES;
			return NULL;
		}
		ssize_t n = hops < 40 ? readlink(cur, link, sizeof(link) - 1) : -1;
		const char *slash = strrchr(cur, '/');
		int dlen = slash && link[0] != '/' ? (int)(slash - cur) + 1 : 0;
		char *next = n < 0 ? NULL : malloc((size_t)dlen + (size_t)n + 1);

		if (hops >= 40)
			errno = ELOOP;
		if (next) {
			link[n] = '\0';
			sprintf(next, "%.*s%s", dlen, cur, link);
		}
		free(cur);
		cur = next;
	}
	return NULL;
}

static char *resolve(const char *path, struct stat *st, bool *exists, int *err)
{
	struct stat lst;
	char *t;

	*exists = false;
	*err = 0;
	if (!*path) {
		*err = -ENOENT;
		return NULL;
	}
	if (!lstat(path, &lst) && S_ISLNK(lst.st_mode) && !names_open_file(path))
		t = follow(path);
	else
		t = strdup(path);
	if (!t) {
		*err = -errno;
		return NULL;
	}
	if (!stat(t, st))
		*exists = true;
	else if (errno != ENOENT)
		*err = -errno;
	if (*exists && S_ISDIR(st->st_mode))
		*err = -EISDIR;
	else if (*exists)
		*err = refused(path, st);
	if (*err) {
		free(t);
		return NULL;
	}
	return t;
}

/* Written directly, not through a temporary file: a device, a FIFO, a socket, an open file. */
static bool direct(const char *path, const struct stat *st, bool exists)
{
	return exists && (!S_ISREG(st->st_mode) || names_open_file(path));
}

/* Open target, found to be a device or a file named as an open one, to be written directly:
 * without waiting (O_NONBLOCK: a FIFO put there since it was looked at has no reader to wait
 * for), without following a link put there since (O_NOFOLLOW), and refused when what was
 * opened is what refused() refuses. The fd, blocking again, or -errno. */
static int open_direct(const char *path, const char *target)
{
	bool open_file = names_open_file(path);
	int fd = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK |
				  (open_file ? O_APPEND : O_NOFOLLOW));
	struct stat st;
	int e = 0, fl;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || (fl = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		e = -errno;
	else
		e = refused(path, &st);
	if (e) {
		close(fd);
		return e;
	}
	return fd;
}

/* A new file beside target, ".NAME.XXXXXX" (created here, so ours to remove): its fd, *tmp
 * its path (caller frees); -errno. Mode 0600 until outfile_commit sets the target's. */
static int tmp_beside(const char *target, char **tmp)
{
	const char *slash = strrchr(target, '/');
	const char *base = slash ? slash + 1 : target;
	int dlen = slash ? (int)(slash - target) + 1 : 0;
	size_t len = strlen(target) + 16;
	uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20) ^ (uintptr_t)tmp;

	if (!(*tmp = malloc(len)))
		return -ENOMEM;
	for (int tries = 0; tries < 100; tries++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		snprintf(*tmp, len, "%.*s.%.200s.%06llx", dlen, target, base,
			 (unsigned long long)(x >> 40) & 0xffffff);
		int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);

		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
	}
	int e = errno == EEXIST ? -EEXIST : -errno;

	free(*tmp);
	*tmp = NULL;
	return e;
}

int outfile_check(const char *path)
{
	struct stat st;
	bool exists;
	int e = 0;
	char *t = resolve(path, &st, &exists, &e), *tmp;

	if (!t)
		return e;
	if (exists && faccessat(AT_FDCWD, t, W_OK, AT_EACCESS))
		e = -errno;
	else if (!direct(path, &st, exists) && (e = tmp_beside(t, &tmp)) >= 0) {
		close(e);
		unlink(tmp);
		free(tmp);
		e = 0;
	}
	free(t);
	return e;
}

int outfile_open(struct outfile *o, const char *path)
{
	static const cookie_io_functions_t io = {.write = fd_write, .close = fd_close};
	struct stat st;
	bool exists;
	int e = 0, fd;

	*o = (struct outfile){0};
	if (!(o->target = resolve(path, &st, &exists, &e)))
		return e;
	if (exists && faccessat(AT_FDCWD, o->target, W_OK, AT_EACCESS)) {
		e = -errno;
		goto fail;
	}
	if (direct(path, &st, exists))
		fd = e = open_direct(path, o->target);
	else
		fd = e = tmp_beside(o->target, &o->tmp);
	if (fd < 0)
		goto fail;
	if (!(o->fd = calloc(1, sizeof(*o->fd))) || !(o->f = fopencookie(o->fd, "w", io))) {
		e = -ENOMEM;
		close(fd);
		goto fail;
	}
	o->fd->fd = fd;
	if (exists) {
		o->fd->mode = st.st_mode & 0777;
		o->fd->uid = st.st_uid;
		o->fd->gid = st.st_gid;
		o->fd->chown = geteuid() == 0 && (st.st_uid != 0 || st.st_gid != getegid());
	} else {
		mode_t m = umask(022);

		umask(m);
		o->fd->mode = 0666 & ~m;
	}
	return 0;
fail:
	return outfile_abort(o, e);
}

static void outfile_free(struct outfile *o)
{
	free(o->target);
	free(o->tmp);
	free(o->fd);
	*o = (struct outfile){0};
}

int outfile_commit(struct outfile *o)
{
	int e = fflush(o->f) || ferror(o->f) ? -EIO : 0;

	if (!e && o->tmp && (fchmod(o->fd->fd, o->fd->mode) ||
			     (o->fd->chown && fchown(o->fd->fd, o->fd->uid, o->fd->gid))))
		e = -errno;

	if (fclose(o->f) && !e)
		e = -EIO;
	o->f = NULL;
	if (o->fd->err)
		e = o->fd->err;
	if (!e && o->tmp && rename(o->tmp, o->target))
		e = -errno;
	if (e && o->tmp)
		unlink(o->tmp);
	outfile_free(o);
	return e;
}

int outfile_abort(struct outfile *o, int err)
{
	if (o->fd && o->fd->err)
		err = o->fd->err;
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	outfile_free(o);
	return err;
}

bool outfile_direct(const struct outfile *o)
{
	return o->target && !o->tmp;
}

int outfile_copy(const char *src, const char *path, bool *isdirect)
{
	struct outfile o;
	char buf[65536];
	ssize_t got;
	int in = open(src, O_RDONLY | O_CLOEXEC), e;

	*isdirect = false;
	if (in < 0)
		return -errno;
	if ((e = outfile_open(&o, path))) {
		close(in);
		return e;
	}
	*isdirect = outfile_direct(&o);
	while ((got = read(in, buf, sizeof(buf))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || fwrite(buf, 1, (size_t)got, o.f) != (size_t)got) {
			e = got < 0 ? -errno : o.fd->err ? o.fd->err : -EIO;
			break;
		}
	}
	close(in);
	return e ? outfile_abort(&o, e) : outfile_commit(&o);
}

static struct outfile_fd out1 = {.fd = STDOUT_FILENO};

int outfile_stdout(void)
{
	static const cookie_io_functions_t io = {.write = fd_write, .close = fd_close};
	FILE *f = fopencookie(&out1, "w", io);

	if (!f)
		return -ENOMEM;
	if (isatty(STDOUT_FILENO))
		setvbuf(f, NULL, _IOLBF, 0);
	stdout = f; /* glibc: stdout is a variable meant to be set */
	return 0;
}

int outfile_stdout_error(void)
{
	return out1.err;
}

const char *outfile_strerror(int err)
{
	switch (err) {
	case -ESPIPE:
		return "is a FIFO: refusing to write a result into a pipe someone else may read; "
		       "name a regular file";
	case -ENOTSOCK:
		return "is a socket: refusing to send a result to whoever listens on it; name a "
		       "regular file";
	case -ENOTBLK:
		return "is a block device: refusing to write a result over a disk; name a "
		       "regular file";
	}
	return strerror(-err);
}

const char *outfile_left(int isdirect)
{
	return isdirect ? "; what was written is incomplete" : "; nothing written";
}
