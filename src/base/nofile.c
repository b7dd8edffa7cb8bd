/* nofile.c: raise the open-file limit to what a test needs, or say why it cannot be. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/nofile.h"

int nofile_plan(unsigned long long soft, unsigned long long hard, unsigned long long want,
		int may_raise_hard, unsigned long long nr_open, unsigned long long *new_soft,
		unsigned long long *new_hard)
{
	*new_soft = soft;
	*new_hard = hard;
	if (soft >= want)
		return 0;
	if (hard < want) {
		if (!may_raise_hard || nr_open < want)
			return -EMFILE;
		*new_hard = want;
	}
	*new_soft = want;
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
	struct rlimit rl;
	unsigned long long want = (unsigned long long)need + NOFILE_SPARE, ns, nh;
	unsigned long long nr_open = read_nr_open();
	int root = geteuid() == 0;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	if (nofile_plan(rl.rlim_cur, rl.rlim_max, want, root, nr_open, &ns, &nh)) {
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
	if (ns == rl.rlim_cur && nh == rl.rlim_max)
		return 0;
	rl.rlim_cur = ns;
	rl.rlim_max = nh;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		int e = errno;

		snprintf(err, errlen, "%s needs %llu open files: raising the limit failed (%s): "
			 "raise it with `ulimit -n %llu`", what, want, strerror(e), want);
		return -EMFILE;
	}
	return 0;
}
