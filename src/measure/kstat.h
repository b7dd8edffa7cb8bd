/* kstat.h: the kernel's own figures, read before and after the window: the machine-wide CPU
 * split from /proc/stat and the protocol counters of /proc/net/snmp.
 * It reads /proc and nothing else.
 */
#ifndef SB_KSTAT_H
#define SB_KSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { CPU_USER, CPU_NICE, CPU_SYSTEM, CPU_IDLE, CPU_IOWAIT, CPU_IRQ, CPU_SOFTIRQ, CPU_STEAL,
       CPU_NFIELDS };

struct cpu_stat {
	uint64_t t[CPU_NFIELDS]; /* clock ticks, all CPUs */
};

/* Percent of all CPU time between two samples. */
struct cpu_split {
	double user, system, softirq, irq, idle, steal;
};

#define SNMP_MAX 160 /* TcpExt has ~130 */

struct snmp {
	int n;
	char name[SNMP_MAX][40];
	uint64_t v[SNMP_MAX];
};

/* The kernel's softirq threads (ksoftirqd/N), found once before a run: softirq work the
 * kernel defers to them is their own CPU time, not /proc/stat's softirq column. */
#define KSOFTIRQD_MAX 1024
struct ksoftirqd {
	int n;
	int pid[KSOFTIRQD_MAX];
};
/* A task's name and user + system time (clock ticks) from /proc/PID/stat; false if gone. */
bool kstat_task_ticks(int pid, char *comm, size_t len, uint64_t *ticks);
/* Find them in /proc. Returns how many. */
int kstat_ksoftirqd_find(struct ksoftirqd *k);
/* Their user + system time, clock ticks, summed. */
uint64_t kstat_ksoftirqd_ticks(const struct ksoftirqd *k);

/* Read the "cpu" line of a /proc/stat file (path NULL: /proc/stat). 0 or -errno. */
int kstat_cpu_read(const char *path, struct cpu_stat *s);
/* Split b - a into percentages (user includes nice; idle includes iowait). */
void kstat_cpu_split(const struct cpu_stat *a, const struct cpu_stat *b, struct cpu_split *out);
/* Read the counters of one protocol ("Udp", "Tcp") from a /proc/net/snmp file (NULL: the real
 * one). 0 or -errno (-ENOENT when the protocol is absent). */
int kstat_snmp_read(const char *path, const char *proto, struct snmp *s);
/* A protocol's row as a workload counts it ("Udp", "Tcp"): over IPv6, UDP from snmp6 (TCP's
 * one row counts both families). 0 or -errno. */
int kstat_proto_read(const char *proto, bool v6, struct snmp *s);
/* The IP layer's counters (IpExt's InOctets/OutOctets; over IPv6, snmp6's Ip6 row). */
int kstat_ip_read(bool v6, struct snmp *s);
/* out = b - a, by name. */
void kstat_snmp_delta(const struct snmp *a, const struct snmp *b, struct snmp *out);
/* Value of a counter by name, or -1 if absent. */
int64_t kstat_snmp_get(const struct snmp *s, const char *name);

#endif
