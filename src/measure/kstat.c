/* kstat.c: see kstat.h. */
#include "measure/kstat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

bool kstat_task_ticks(int pid, char *comm, size_t len, uint64_t *ticks)
{
	char path[64], buf[512];
	int fd;

	/* One read: three calls a thread (it runs once per thread at setup). */
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	unsigned long long ut, st;

	if (!open || !close || close < open ||
	    sscanf(close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return false;
	snprintf(comm, len, "%.*s", (int)(close - open - 1), open + 1);
	*ticks = ut + st;
	return true;
}

static void take_if_ksoftirqd(struct ksoftirqd *k, int pid)
{
	char comm[64];
	uint64_t t;

	if (pid > 0 && k->n < KSOFTIRQD_MAX && kstat_task_ticks(pid, comm, sizeof(comm), &t) &&
	    !strncmp(comm, "ksoftirqd/", 10))
		k->pid[k->n++] = pid;
}

int kstat_ksoftirqd_find(struct ksoftirqd *k)
{
	/* They are kthreadd's children (pid 2): its list is short, /proc is not. */
	FILE *f = fopen("/proc/2/task/2/children", "re");
	int pid;

	k->n = 0;
	if (f) {
		while (fscanf(f, "%d", &pid) == 1)
			take_if_ksoftirqd(k, pid);
		fclose(f);
		return k->n;
	}
	DIR *d = opendir("/proc");
	struct dirent *e;

	while (d && (e = readdir(d)))
		take_if_ksoftirqd(k, atoi(e->d_name));
	if (d)
		closedir(d);
	return k->n;
}

uint64_t kstat_ksoftirqd_ticks(const struct ksoftirqd *k)
{
	uint64_t sum = 0, t;
	char comm[64];

	for (int i = 0; i < k->n; i++)
		if (kstat_task_ticks(k->pid[i], comm, sizeof(comm), &t))
			sum += t;
	return sum;
}

int kstat_cpu_read(const char *path, struct cpu_stat *s)
{
	FILE *f = fopen(path ? path : "/proc/stat", "re");
	char line[512];
	int ret = -ENOENT;

	if (!f)
		return -errno;
	memset(s, 0, sizeof(*s));
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "cpu ", 4))
			continue;
		char *p = line + 4, *end;

		for (int i = 0; i < CPU_NFIELDS; i++, p = end) {
			s->t[i] = strtoull(p, &end, 10);
			if (end == p)
				break; /* older kernels have fewer fields */
		}
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

void kstat_cpu_split(const struct cpu_stat *a, const struct cpu_stat *b, struct cpu_split *out)
{
	double d[CPU_NFIELDS], total = 0;

	for (int i = 0; i < CPU_NFIELDS; i++) {
		d[i] = b->t[i] >= a->t[i] ? (double)(b->t[i] - a->t[i]) : 0;
		total += d[i];
	}
	memset(out, 0, sizeof(*out));
	if (total <= 0)
		return;
	out->user = 100.0 * (d[CPU_USER] + d[CPU_NICE]) / total;
	out->system = 100.0 * d[CPU_SYSTEM] / total;
	out->softirq = 100.0 * d[CPU_SOFTIRQ] / total;
	out->irq = 100.0 * d[CPU_IRQ] / total;
	out->idle = 100.0 * (d[CPU_IDLE] + d[CPU_IOWAIT]) / total;
	out->steal = 100.0 * d[CPU_STEAL] / total;
}

int kstat_snmp_read(const char *path, const char *proto, struct snmp *s)
{
	FILE *f = fopen(path ? path : "/proc/net/snmp", "re");
	static __thread char head[8192], vals[8192];
	char prefix[40];
	int ret = -ENOENT;

	if (!f)
		return -errno;
	memset(s, 0, sizeof(*s));
	snprintf(prefix, sizeof(prefix), "%s: ", proto);
	/* The file pairs a line of names with a line of values, both starting "Proto: ". */
	while (fgets(head, sizeof(head), f)) {
		if (strncmp(head, prefix, strlen(prefix)))
			continue;
		if (!fgets(vals, sizeof(vals), f) || strncmp(vals, prefix, strlen(prefix)))
			break;
		char *hw[SNMP_MAX + 1], *vw[SNMP_MAX + 1];
		int nh = split_words(head + strlen(prefix), hw, SNMP_MAX + 1);
		int nv = split_words(vals + strlen(prefix), vw, SNMP_MAX + 1);

		s->n = nh < nv ? nh : nv;
		for (int i = 0; i < s->n; i++) {
			snprintf(s->name[i], sizeof(s->name[i]), "%s", hw[i]);
			s->v[i] = strtoull(vw[i], NULL, 10);
		}
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* kstat_snmp_read for IPv6 from a /proc/net/snmp6 file (NULL: the real one): "Udp" reads the
 * Udp6* lines, named without the "Udp6" (InDatagrams, ...). TCP has no IPv6 row of its own: its
 * counters in /proc/net/snmp count both families. 0 or -errno. */
static int kstat_snmp6_read(const char *path, const char *proto, struct snmp *s)
{
	FILE *f = fopen(path ? path : "/proc/net/snmp6", "re");
	char line[256], prefix[40];
	size_t plen;

	if (!f)
		return -errno;
	memset(s, 0, sizeof(*s));
	/* One "Udp6InDatagrams  123" a line: keep the names without the prefix, so they match
	 * /proc/net/snmp's row of the same protocol. */
	plen = (size_t)snprintf(prefix, sizeof(prefix), "%s6", proto);
	while (fgets(line, sizeof(line), f) && s->n < SNMP_MAX) {
		char name[64];
		unsigned long long v;

		if (strncmp(line, prefix, plen) || sscanf(line, "%63s %llu", name, &v) != 2)
			continue;
		snprintf(s->name[s->n], sizeof(s->name[0]), "%s", name + plen);
		s->v[s->n++] = v;
	}
	fclose(f);
	return s->n ? 0 : -ENOENT;
}

int64_t kstat_snmp_get(const struct snmp *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return (int64_t)s->v[i];
	return -1;
}

void kstat_snmp_delta(const struct snmp *a, const struct snmp *b, struct snmp *out)
{
	/* Gauges and constants, not counters: a difference of them means nothing. */
	static const char *const gauges[] = {"RtoAlgorithm", "RtoMin", "RtoMax", "MaxConn",
					     "CurrEstab"};

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < b->n; i++) {
		int64_t before = kstat_snmp_get(a, b->name[i]);
		bool gauge = false;

		for (size_t g = 0; g < sizeof(gauges) / sizeof(gauges[0]); g++)
			gauge |= !strcmp(b->name[i], gauges[g]);
		if (before < 0 || gauge)
			continue;
		snprintf(out->name[out->n], sizeof(out->name[0]), "%s", b->name[i]);
		out->v[out->n++] = b->v[i] - (uint64_t)before;
	}
}

int kstat_proto_read(const char *proto, bool v6, struct snmp *s)
{
	return v6 && !strcmp(proto, "Udp") ? kstat_snmp6_read(NULL, proto, s)
					   : kstat_snmp_read(NULL, proto, s);
}

int kstat_ip_read(bool v6, struct snmp *s)
{
	return v6 ? kstat_snmp6_read(NULL, "Ip", s) : kstat_snmp_read("/proc/net/netstat", "IpExt", s);
}
