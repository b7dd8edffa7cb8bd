/* noise.c: see noise.h. */
#include "measure/noise.h"
#include "measure/kstat.h"

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 1024
#define MAX_PROCS 4096

struct cpu_ticks {
	uint64_t busy, irq, steal, total;
};

struct proc_ticks {
	int pid;
	char comm[32];
	uint64_t t;
};

struct sample {
	int ncpu;
	struct cpu_ticks all, cpu[MAX_CPUS];
	int nproc;
	struct proc_ticks *proc;
};

static void read_cpus(struct sample *s)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[512];

	s->ncpu = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = {0};
		int id = -1;

		if (strncmp(line, "cpu", 3))
			break;
		char *p = line + 3;

		if (isdigit((unsigned char)*p))
			id = (int)strtol(p, &p, 10);
		if (sscanf(p, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
			   &v[4], &v[5], &v[6], &v[7]) < 8)
			continue;
		struct cpu_ticks t = {.busy = v[0] + v[1] + v[2] + v[5] + v[6], .irq = v[5] + v[6],
				      .steal = v[7]};

		t.total = t.busy + v[3] + v[4] + v[7];
		if (id < 0)
			s->all = t;
		else if (id < MAX_CPUS && id == s->ncpu)
			s->cpu[s->ncpu++] = t;
	}
	if (f)
		fclose(f);
}

static void read_procs(struct sample *s)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int self = getpid();

	s->nproc = 0;
	while (d && (e = readdir(d)) && s->nproc < MAX_PROCS) {
		struct proc_ticks *p = &s->proc[s->nproc];
		int pid = atoi(e->d_name);

		if (pid <= 0 || pid == self || !kstat_task_ticks(pid, p->comm, sizeof(p->comm), &p->t))
			continue;
		p->pid = pid;
		s->nproc++;
	}
	if (d)
		closedir(d);
}

static bool read_word(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok = f && fgets(out, (int)len, f);

	if (f)
		fclose(f);
	if (ok)
		out[strcspn(out, "\n")] = 0;
	return ok;
}

static struct noise_finding *add(struct noise *o)
{
	return o->n < NOISE_MAX ? &o->f[o->n++] : NULL;
}

static void settings(struct noise *o)
{
	char v[64], path[128];
	int notperf = 0, cpus = 0;
	struct noise_finding *f;

	for (int c = 0; c < MAX_CPUS; c++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", c);
		if (!read_word(path, v, sizeof(v)))
			break;
		cpus++;
		notperf += strcmp(v, "performance") != 0;
	}
	if (notperf && (f = add(o))) {
		snprintf(f->what, sizeof(f->what), "frequency scaling: %d of %d CPUs are not on the "
			 "performance governor (cpu0: %s)", notperf, cpus,
			 read_word("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", v,
				   sizeof(v)) ? v : "?");
		snprintf(f->does, sizeof(f->does), "the clock follows the load, so rates drift within "
			 "and between runs, and a faster configuration can look slower");
		snprintf(f->fix, sizeof(f->fix), "cpupower frequency-set -g performance (or write "
			 "performance to /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor)");
	}
	bool turbo = (read_word("/sys/devices/system/cpu/intel_pstate/no_turbo", v, sizeof(v)) &&
		      !strcmp(v, "0")) ||
		     (read_word("/sys/devices/system/cpu/cpufreq/boost", v, sizeof(v)) &&
		      !strcmp(v, "1"));

	if (turbo && (f = add(o))) {
		snprintf(f->what, sizeof(f->what), "turbo boost is on");
		snprintf(f->does, sizeof(f->does), "the clock depends on temperature and on how many "
			 "cores are busy: one thread runs faster than two, and runs vary");
		snprintf(f->fix, sizeof(f->fix), "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo "
			 "(or echo 0 > /sys/devices/system/cpu/cpufreq/boost)");
	}
	if (read_word("/sys/devices/system/clocksource/clocksource0/current_clocksource", v,
		      sizeof(v)) && strcmp(v, "tsc") && strcmp(v, "arch_sys_counter") && (f = add(o))) {
		snprintf(f->what, sizeof(f->what), "clock source %s (not the CPU's counter)", v);
		snprintf(f->does, sizeof(f->does), "every clock read may be a system call or a slow "
			 "device read: latency figures include it, and timing costs CPU");
		snprintf(f->fix, sizeof(f->fix), "echo tsc > /sys/devices/system/clocksource/"
			 "clocksource0/current_clocksource, if the kernel trusts it (dmesg says why not)");
	}
}

static int by_ticks(const void *a, const void *b)
{
	const struct proc_ticks *x = a, *y = b;

	return x->t < y->t ? 1 : x->t > y->t ? -1 : 0;
}

static void load(struct noise *o, struct sample *a, struct sample *b)
{
	struct noise_finding *f;
	double total = (double)(b->all.total - a->all.total);

	if (total <= 0)
		return;
	double busy = (double)(b->all.busy - a->all.busy) / total * 100;
	double steal = (double)(b->all.steal - a->all.steal) / total * 100;
	long hz = sysconf(_SC_CLK_TCK);

	if (busy > 15 && (f = add(o))) {
		/* Who: the processes whose CPU time grew the most over the sample. */
		for (int i = 0; i < b->nproc; i++) {
			uint64_t was = 0;

			for (int k = 0; k < a->nproc; k++)
				if (a->proc[k].pid == b->proc[i].pid)
					was = a->proc[k].t;
			b->proc[i].t = b->proc[i].t > was ? b->proc[i].t - was : 0;
		}
		qsort(b->proc, (size_t)b->nproc, sizeof(b->proc[0]), by_ticks);
		size_t n = (size_t)snprintf(f->what, sizeof(f->what), "other processes kept %.0f%% of "
					    "the CPUs busy over %.2f s", busy, o->sample_s);

		for (int i = 0; i < 3 && i < b->nproc && b->proc[i].t && n < sizeof(f->what); i++)
			n += (size_t)snprintf(f->what + n, sizeof(f->what) - n, "%s %s (%d) %.0f%%",
					      i ? "," : "; top:", b->proc[i].comm, b->proc[i].pid,
					      (double)b->proc[i].t / (double)hz / o->sample_s * 100);
		snprintf(f->does, sizeof(f->does), "they take CPU time and caches from both sides: "
			 "rates fall and vary with them");
		snprintf(f->fix, sizeof(f->fix), "stop them for the test, or keep them off the test's "
			 "CPUs (taskset, cgroups) and use --pin");
	}
	if (steal > 2 && (f = add(o))) {
		snprintf(f->what, sizeof(f->what), "the hypervisor took %.1f%% of the CPU time (steal) "
			 "over %.2f s", steal, o->sample_s);
		snprintf(f->does, sizeof(f->does), "other guests run on these cores: rates vary with "
			 "their load, and CPU per unit includes waits that are not ours");
		snprintf(f->fix, sizeof(f->fix), "dedicated or pinned vCPUs; else trust only "
			 "interleaved comparisons (compare, --runs) and their intervals");
	}
	for (int c = 0; c < b->ncpu && c < a->ncpu; c++) {
		double t = (double)(b->cpu[c].total - a->cpu[c].total);
		double irq = t > 0 ? (double)(b->cpu[c].irq - a->cpu[c].irq) / t * 100 : 0;

		if (irq > 20 && (f = add(o))) {
			snprintf(f->what, sizeof(f->what), "CPU %d spent %.0f%% of the sample in interrupts "
				 "and softirq", c, irq);
			snprintf(f->does, sizeof(f->does), "a side that runs there is slowed by work that "
				 "is not its own");
			snprintf(f->fix, sizeof(f->fix), "move interrupts off it (/proc/irq/*/smp_affinity, "
				 "irqbalance) or --pin the test to other CPUs");
			break;
		}
	}
}

int noise_check(struct noise *out, int ms)
{
	struct sample *a = calloc(2, sizeof(*a));
	struct timespec d = {ms / 1000, (long)(ms % 1000) * 1000000};

	*out = (struct noise){.sample_s = ms / 1000.0};
	settings(out);
	if (!a)
		return out->n;
	a[0].proc = calloc(MAX_PROCS, sizeof(struct proc_ticks));
	a[1].proc = calloc(MAX_PROCS, sizeof(struct proc_ticks));
	if (a[0].proc && a[1].proc) {
		read_cpus(&a[0]);
		read_procs(&a[0]);
		nanosleep(&d, NULL);
		read_cpus(&a[1]);
		read_procs(&a[1]);
		load(out, &a[0], &a[1]);
	}
	free(a[0].proc);
	free(a[1].proc);
	free(a);
	return out->n;
}
