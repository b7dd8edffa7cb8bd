/* prof_priv.h: what the profiler's files share (ksyms.c, prof.c, prof_report.c): the sampler's
 * state. Not for use outside profile/. */
#ifndef SB_PROF_PRIV_H
#define SB_PROF_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct usyms;

#define RING_PAGES 128 /* data pages per CPU: 512 KiB, drained every 50 ms */
#define MAX_CPUS 1024
#define MAX_SYSCALLS 128
#define MAX_STACK 128
#define FOLD_SLOTS (1 << 16)
#define LAST_SYM_SPAN 0x10000 /* how far past the last symbol an address still belongs to it */
#define KERNEL_MIN 0xffff800000000000ULL

struct fold {
	uint64_t hash;
	uint32_t count;
	uint8_t side;
	uint8_t user;
	uint16_t depth;
	int32_t *frames; /* outermost first */
};

struct sys_count {
	const char *name; /* the syscall, or a pseudo entry below */
	uint32_t n[PS_N];
};

static const char SYS_USER[] = "(user space)", SYS_SOFTIRQ[] = "(softirq)",
		  SYS_NONE[] = "(kernel, outside a syscall)",
		  SYS_ENTRY[] = "(syscall entry, unattributed)";

struct prof {
	struct ksyms *k;
	int hz;
	bool want_folded;
	const char *event;
	pid_t *clients;
	int nclients;
	pid_t server;
	int ncpu;
	int fd[MAX_CPUS];
	void *ring[MAX_CPUS];
	size_t ring_len;
	uint64_t samples, lost;
	uint64_t mode[PS_N][3]; /* user, kernel, softirq */
	uint32_t (*func)[PS_N]; /* self samples per symbol (+1: unknown) */
	struct sys_count sys[MAX_SYSCALLS];
	int nsys;
	struct fold *folds;
	uint64_t fold_overflow;
	bool want_cycles;
	char *scratch;
	struct usyms *u; /* the user-space callers, for samples with no handler frame */
	bool user_ip;	 /* the samples carry the user instruction pointer */
	uint64_t t_on, t_off; /* enabled and disabled, CLOCK_MONOTONIC ns */
};

#endif
