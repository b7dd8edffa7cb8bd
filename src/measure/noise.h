/* noise.h: what on this machine would make the figures vary, found before a run (and by
 * `sockbench check`): frequency scaling, turbo, other busy processes, steal time, a CPU loaded
 * with interrupts, a slow clock source. Each finding says what it does to the figures and how
 * to fix it. Reads /proc and /sys over a short sample; prints nothing.
 */
#ifndef SB_NOISE_H
#define SB_NOISE_H

#define NOISE_MAX 8

struct noise_finding {
	char what[200]; /* what was seen, with its numbers */
	char does[200]; /* what it does to the figures */
	char fix[240];	/* how to fix it */
};

struct noise {
	int n;
	struct noise_finding f[NOISE_MAX];
	double sample_s; /* how long the sample of busy CPUs was */
};

/* Look for noise, sampling /proc for ms milliseconds. Returns the number of findings. */
int noise_check(struct noise *out, int ms);

#endif
