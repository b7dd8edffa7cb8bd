/* nofile.c: raise the open-file limit to what a test needs, or say why it cannot be. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/nofile.h"

int nofile_plan(const struct rlimit *cur, unsigned long long want, int may_raise_hard,
		unsigned long long nr_open, struct rlimit *set)
{
	*set = *cur;
	if (cur->rlim_cur >= want)
		return 0;
	if (cur->rlim_max < want) {
		if (!may_raise_hard || nr_open < want)
			return -EMFILE;
		set->rlim_max = want;
	}
	set->rlim_cur = want;
	return 0;
}

static unsigned long long read_nr_open(void)
{
	unsigned long long v = 1048576; /* the kernel's default */
	FILE *f = fopen("/proc/sys/fs/nr_open", "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 1048576;
		fclose(f);
	}
	return v;
}

int nofile_ensure(long need, const char *what, char *err, size_t errlen)
{
	struct rlimit rl, set;
	unsigned long long want = (unsigned long long)need + NOFILE_SPARE;
	unsigned long long nr_open = read_nr_open();
	int root = geteuid() == 0;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	if (nofile_plan(&rl, want, root, nr_open, &set)) {
		if (root)
			snprintf(err, errlen,
				 "%s needs %llu open files, more than the kernel allows a process "
				 "(fs.nr_open %llu): ask for fewer, or raise fs.nr_open",
				 what, want, nr_open);
		else
			snprintf(err, errlen,
				 "%s needs %llu open files; this process may have %llu (hard limit "
				 "%llu): raise it with `ulimit -n %llu` as root (or in "
				 "/etc/security/limits.conf), or ask for fewer",
				 what, want, (unsigned long long)rl.rlim_cur,
				 (unsigned long long)rl.rlim_max, want);
		return -EMFILE;
	}
	if (set.rlim_cur == rl.rlim_cur && set.rlim_max == rl.rlim_max)
		return 0;
	if (setrlimit(RLIMIT_NOFILE, &set)) {
		int e = errno;

		snprintf(err, errlen, "%s needs %llu open files: raising the limit failed (%s): "
			 "raise it with `ulimit -n %llu`", what, want, strerror(e), want);
		return -EMFILE;
	}
	return 0;
}

int nofile_tables(long need, const char *what, char *err, size_t errlen)
{
	struct rlimit rl;
	long room, tables;

	if (nofile_ensure(need, what, err, errlen) == 0)
		return 1;
	/* The hard limit as it now stands (root failed to raise it, or may not). A table needs
	 * its spare too: it starts as a copy of the process's. */
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_max < 4 * NOFILE_SPARE)
		return 0;
	room = (long)rl.rlim_max - 2 * NOFILE_SPARE;
	tables = (need + room - 1) / room;
	return nofile_ensure((need + tables - 1) / tables, what, err, errlen) ? 0 : (int)tables;
}

void nofile_suggest_clients(long need, long clients, const char *what, char *err,
			    size_t errlen)
{
	struct rlimit rl;
	size_t at = strlen(err);
	long room, k;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_max == RLIM_INFINITY ||
	    rl.rlim_max < 4 * NOFILE_SPARE || at >= errlen)
		return;
	room = (long)rl.rlim_max - NOFILE_SPARE;
	k = (need * clients + room - 1) / room;
	if (k <= clients)
		return;
	/* As few processes as hold them, the total kept (no more: --clients x --flows has its
	 * ceiling), else its nearest below. */
	for (long j = k; j < 2 * k; j++)
		if (need * clients % j == 0) {
			k = j;
			break;
		}
	snprintf(err + at, errlen - at, "; or spread them over client processes, each may have "
		 "%ld: --clients %ld --%s %ld", (long)rl.rlim_max, k, what, need * clients / k);
}

int nofile_own_table(const int *keep, int n)
{
	unsigned from = 3;

	if (unshare(CLONE_FILES) < 0)
		return -errno;
	/* Close the gaps between the kept ones, in ascending order (a few: sorted here). */
	for (;;) {
		unsigned next = ~0U;

		for (int i = 0; i < n; i++)
			if (keep[i] >= (int)from && (unsigned)keep[i] < next)
				next = (unsigned)keep[i];
		if (next > from)
			close_range(from, next == ~0U ? ~0U : next - 1, 0);
		if (next == ~0U)
			return 0;
		from = next + 1;
	}
}
