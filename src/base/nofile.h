/* nofile.h: the open-file limit a test needs. A process with many connections needs a
 * descriptor for each: raise the soft limit (and, as root, the hard one up to fs.nr_open) as
 * far as the need, or say which limit stops it, the number needed and how to raise it. */
#ifndef SB_NOFILE_H
#define SB_NOFILE_H

#include <stddef.h>
#include <sys/resource.h>

/* Descriptors a process uses besides its sockets (stdio, pipes, epoll, perf, files). */
#define NOFILE_SPARE 64

/* Make RLIMIT_NOFILE's soft limit at least need + NOFILE_SPARE. what names the request in the
 * message ("--flows 20000"). 0, or -EMFILE with a message in err that names the limit, the
 * number needed and `ulimit -n`. */
int nofile_ensure(long need, const char *what, char *err, size_t errlen);

/* Spread need descriptors over fd tables of their own (threads that unshare(CLONE_FILES): the
 * limit holds each table to it, not the process): how many tables, each under the limit this
 * process may raise its soft one to (nofile_ensure of need / tables then holds). 1 when one
 * table holds them all, after nofile_ensure(need); 0, with err, when even NOFILE_SPARE more
 * than a table's room is short. */
int nofile_tables(long need, const char *what, char *err, size_t errlen);

/* Give the calling thread a descriptor table of its own that holds only keep[0..n) and stdio
 * (unshare(CLONE_FILES), then every other descriptor closed in it). A thread that shares its
 * table pays on every call on a descriptor: the kernel takes a reference to the file (and
 * drops it after), which a table of one user skips. For a thread that serves sockets it was
 * given and opens the rest itself; what it opens afterwards is in its table alone, and goes
 * with it when it ends. 0, or -errno (the table is still shared: nothing else changed). */
int nofile_own_table(const int *keep, int n);

/* need descriptors short of the limit in one process: how many processes would hold them
 * (each under the hard limit, less NOFILE_SPARE), appended to err as "or spread them over
 * client processes: --clients K --FLAG N" (what: the option a process holds N of). */
void nofile_suggest_clients(long need, long clients, const char *what, char *err,
			    size_t errlen);

/* The pure decision, for tests: from the soft and hard limits (cur), the need and whether the
 * hard limit may be raised (root) up to nr_open, the soft and hard limits to set (set). 0, or
 * -EMFILE when even the most that may be set is short of want (set is then cur). */
int nofile_plan(const struct rlimit *cur, unsigned long long want, int may_raise_hard,
		unsigned long long nr_open, struct rlimit *set);

#endif
