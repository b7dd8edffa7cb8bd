/* rusage.c: see rusage.h. */
#include "measure/rusage.h"

#include <dirent.h>
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

/* The run delay of every thread of this process, summed: off the data path (the window's
 * edges only). */
static uint64_t run_delay_ns(int *threads)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	uint64_t sum = 0;

	*threads = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[64];
		unsigned long long run, wait;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/schedstat", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%llu %llu", &run, &wait) == 2) {
			sum += wait;
			(*threads)++;
		}
		fclose(f);
	}
	closedir(d);
	return sum;
}

double cpu_mark_run_delay(const struct cpu_mark *a, const struct cpu_mark *b)
{
	return b->run_delay_ns > a->run_delay_ns ? ns_to_s(b->run_delay_ns - a->run_delay_ns) : 0;
}

void cpu_mark_take(struct cpu_mark *m)
{
	struct rusage ru;

	m->run_delay_ns = run_delay_ns(&m->threads);
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
