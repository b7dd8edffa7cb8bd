/* cpus.h: --cpus client=LIST,server=LIST: CPU lists in taskset's syntax ("0-3,8", "0-7:2"),
 * checked against the online CPUs and this process's affinity, and the pinning of every client
 * process or thread and server thread round-robin over its side's list (or --pin's fixed
 * layout). */
#ifndef SB_CPUS_H
#define SB_CPUS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/opts.h"

#define CPUS_MAX 1024 /* CPU_SETSIZE */

struct cpu_list {
	int n;
	short cpu[CPUS_MAX];
};

/* A list in taskset's syntax into l (in order, repeats kept once). 0 or -EINVAL with err. */
int cpus_parse_list(const char *s, size_t len, struct cpu_list *l, char *err, size_t errlen);
/* --cpus into its two lists (a side not named: n = 0). 0 or -EINVAL with err. */
int cpus_parse(const char *spec, struct cpu_list *client, struct cpu_list *server, char *err,
	       size_t errlen);
/* --cpus checked: its syntax, every CPU online on this host and in this process's affinity
 * (else err names the ones it may use; the server's list only where the server is local), not
 * with --pin. 0 or -EINVAL. */
int cpus_check(const struct opts *o, char *err, size_t errlen);
/* Pin the calling thread, the n-th of its side (server: a server thread), by --cpus
 * (round-robin over the side's list) or --pin. The CPU, or -1 when it is not pinned. */
int cpus_pin(const struct opts *o, int n, bool server);
/* Whether `clients` busy client threads and `servers` busy server threads, the k-th of each
 * side pinned as cpus_pin pins it, can each run on a CPU of its own: no more in all than the
 * CPUs this process may use, and no two pinned to one CPU by --cpus or --pin. Both sides are
 * counted on this host (where one runs elsewhere, the stricter). */
bool cpus_each_own(const struct opts *o, long clients, long servers);
/* "--cpus client=C,server=C", C the first CPU this process may use: explore's strategy "client
 * and server on one CPU" (workload.h), filled by cpus_one_fill before a table is read. */
extern char cpus_one_args[48];
void cpus_one_fill(void);

#endif
