/* prof.h: where the time goes, for exactly the measured window: perf_event_open sampling on
 * every CPU (hardware cycles where the machine has them, else the software cpu-clock, which
 * works in VMs) with kernel callchains, a /proc/kallsyms symbolizer, and attribution of each
 * sample to a side (client, server, other, idle), a mode (user, kernel, softirq), a syscall
 * (the sys_* entry point on its callchain, else the user-space caller: usyms.h) and a kernel
 * function.
 * It opens perf events and reads /proc/kallsyms; it knows nothing of workloads.
 */
#ifndef SB_PROF_H
#define SB_PROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct cJSON;

/* ---- the symbolizer ---- */

struct ksyms;

/* Load the text symbols of a kallsyms file (NULL: /proc/kallsyms), sorted. NULL with a
 * reason in err when unreadable or when every address is hidden (kptr_restrict). */
struct ksyms *ksyms_load(const char *path, char *err, size_t errlen);
void ksyms_free(struct ksyms *k);
/* Index of the symbol holding addr (the last one at or below it), or -1 before the first or
 * well past the last. */
int ksyms_find(const struct ksyms *k, uint64_t addr);
const char *ksyms_name(const struct ksyms *k, int idx);
int ksyms_count(const struct ksyms *k);

/* ---- sampling and attribution ---- */

enum prof_side { PS_CLIENT, PS_SERVER, PS_OTHER, PS_IDLE, PS_N };

struct prof;

/* A profile over k's symbols at hz samples per second; keeps folded stacks if asked. */
struct prof *prof_create(struct ksyms *k, int hz, bool folded);
void prof_destroy(struct prof *p);
/* Which processes are which side (the server pid may be 0: it runs elsewhere). */
void prof_set_pids(struct prof *p, const pid_t *clients, int n, pid_t server);
/* Sample CPU cycles (--profile-event cycles) rather than the CPU clock; falls back to the
 * clock where there are no hardware counters. Before prof_open. */
void prof_use_cycles(struct prof *p);
/* Samples whose stack found no room in the folded table (not in --profile-folded). */
uint64_t prof_fold_overflow(const struct prof *p);
/* Open a sampling event on every CPU, disabled. 0, or -errno with a reason in err that says
 * what to change (perf_event_paranoid, kptr_restrict, the capability). */
int prof_open(struct prof *p, char *err, size_t errlen);
void prof_enable(struct prof *p);
void prof_disable(struct prof *p);
/* Read what the kernel has written into the per-CPU rings (call every few tens of ms). */
void prof_drain(struct prof *p);
/* Attribute one sample (what drain does per record; exposed for tests): the pid, the sampled
 * ip, the kernel callchain as perf gives it (innermost first, context markers included), and
 * the user instruction pointer (0: not known), which names the syscall of a sample inside one
 * whose chain holds no handler frame. */
void prof_add_sample(struct prof *p, uint32_t pid, uint64_t ip, const uint64_t *chain, int nr,
		     uint64_t uip);
/* The report as JSON (caller frees): event, samples, lost, modes, syscalls per side, the top
 * kernel functions with a column per side, the irq-enable share, and the folded stacks, most
 * samples first, when the profile keeps them. */
struct cJSON *prof_json(const struct prof *p, int top);
/* Folded stacks, one "side;outer;...;leaf count" line per distinct stack. 0 or -errno. */
int prof_write_folded(const struct prof *p, FILE *f);

#endif
