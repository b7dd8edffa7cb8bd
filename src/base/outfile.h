/* outfile.h: an output file that is whole or not there. A regular file (or a new one) is written
 * to a temporary file in the target's folder and renamed over the target only when every write,
 * the flush and the close succeeded; until then, and after a failure, the target is as it was.
 * A target that is not a regular file (a device such as /dev/full, /dev/stdout) is written
 * directly: never renamed over, never unlinked, its writes checked all the same. A FIFO, a
 * socket or a block device is refused (-ESPIPE, -ENOTSOCK, -ENOTBLK: outfile_strerror says
 * why) unless named as a file this process has open (/dev/stdout, /dev/fd/N, /proc/self/fd/N):
 * in a shared folder anyone may have put one there to read the result or to hold the writer.
 */
#ifndef SB_OUTFILE_H
#define SB_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct outfile_fd;

struct outfile {
	FILE *f;       /* write here between outfile_open and outfile_commit */
	char *target;  /* the path written at commit (a symlink's target, resolved) */
	char *tmp;     /* our temporary file; NULL when writing the target directly */
	struct outfile_fd *fd; /* f's descriptor and its first write error */
};

/* Could path be written? The checks outfile_open makes, before any work, without opening a
 * device: 0 or -errno (-EISDIR for a folder, a refused target as above). Leaves no file
 * behind. */
int outfile_check(const char *path);
/* Open an output for path: 0 or -errno (-EISDIR for a folder). */
int outfile_open(struct outfile *o, const char *path);
/* Flush, close and (through the temporary file) put the output in place: 0 or -errno, the first
 * error of any write. On failure our temporary file is gone and the target untouched. */
int outfile_commit(struct outfile *o);
/* Give up: close, remove our temporary file; the target is left as it was. Returns the first
 * write error if there was one (the real cause of a writer's -EIO), else err. */
int outfile_abort(struct outfile *o, int err);
/* Was the target written directly (a device, /dev/stdout), so that a failure leaves part there? */
bool outfile_direct(const struct outfile *o);
/* Put the file at src (whole, already written by someone else, e.g. gnuplot) at path the same
 * way: 0 or -errno; *direct as outfile_direct says. */
int outfile_copy(const char *src, const char *path, bool *direct);
/* Make stdout a stream on descriptor 1 that keeps its first write error, so that the check at
 * exit can say which it was (glibc forgets errno once a flush has failed); line-buffered on a
 * terminal, as stdout is. 0 or -errno (stdout left as it was). */
int outfile_stdout(void);
/* The first error writing standard output through outfile_stdout's stream, -errno, or 0. */
int outfile_stdout_error(void);
/* strerror for an error of this file's functions, -errno: for a refused target, why. */
const char *outfile_strerror(int err);
/* Where a failed output leaves the target, for the end of a message: "; nothing written" or
 * "; what was written is incomplete". */
const char *outfile_left(int direct);

#endif
