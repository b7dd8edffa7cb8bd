/* rusage.h: per-process CPU time marks, taken at the edges of the measured window.
 * It reads the process's own clocks and nothing else.
 */
#ifndef SB_RUSAGE_H
#define SB_RUSAGE_H

#include <stdint.h>

struct cpu_mark {
	uint64_t ns;   /* CLOCK_MONOTONIC */
	double user_s; /* getrusage(RUSAGE_SELF): all threads of this process */
	double sys_s;
	long vcsw, ivcsw; /* context switches: voluntary (slept), involuntary (preempted) */
	/* Time its threads spent runnable but waiting for a CPU, all of them (ns, the second
	 * field of /proc/self/task/N/schedstat); 0 when the kernel has no schedstat. */
	uint64_t run_delay_ns;
	int threads; /* the threads it summed */
};

/* Take a mark now. */
void cpu_mark_take(struct cpu_mark *m);
/* CPU and wall time between two marks. */
void cpu_mark_delta(const struct cpu_mark *a, const struct cpu_mark *b, double *user_s,
		    double *sys_s, double *wall_s);

/* A process's user-space memory, from /proc/PID/status: resident now and its peak. */
struct mem_use {
	double rss_kb, hwm_kb; /* VmRSS, VmHWM; 0: not read */
};
/* Read pid's (0: this process's) VmRSS and VmHWM. 0 or -errno. */
int mem_use_read(int pid, struct mem_use *m);

/* The run delay between two marks, seconds (a thread that ended between them takes its
 * part along: a lower bound). */
double cpu_mark_run_delay(const struct cpu_mark *a, const struct cpu_mark *b);
/* Context switches between two marks: voluntary, involuntary. */
void cpu_mark_switches(const struct cpu_mark *a, const struct cpu_mark *b, double *vcsw,
		       double *ivcsw);

#endif
