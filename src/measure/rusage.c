/* rusage.c: see rusage.h. */
#include "measure/rusage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "base/util.h"

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

void cpu_mark_take(struct cpu_mark *m)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	m->ns = now_ns();
	m->user_s = tv_s(ru.ru_utime);
	m->sys_s = tv_s(ru.ru_stime);
	m->vcsw = ru.ru_nvcsw;
	m->ivcsw = ru.ru_nivcsw;
}

void cpu_mark_switches(const struct cpu_mark *a, const struct cpu_mark *b, double *vcsw,
		       double *ivcsw)
{
	*vcsw = (double)(b->vcsw - a->vcsw);
	*ivcsw = (double)(b->ivcsw - a->ivcsw);
}

void cpu_mark_delta(const struct cpu_mark *a, const struct cpu_mark *b, double *user_s,
		    double *sys_s, double *wall_s)
{
	*user_s = b->user_s - a->user_s;
	*sys_s = b->sys_s - a->sys_s;
	*wall_s = ns_to_s(b->ns - a->ns);
}

int mem_use_read(int pid, struct mem_use *m)
{
	char path[64], line[128];
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	if (!(f = fopen(path, "re")))
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "VmRSS:", 6))
			m->rss_kb = strtod(line + 6, NULL);
		else if (!strncmp(line, "VmHWM:", 6))
			m->hwm_kb = strtod(line + 6, NULL);
	}
	fclose(f);
	return 0;
}
