/* cpus.c: see cpus.h. */
#include "base/cpus.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define ONLINE "/sys/devices/system/cpu/online"

static void list_add(struct cpu_list *l, int cpu)
{
	for (int i = 0; i < l->n; i++)
		if (l->cpu[i] == cpu)
			return;
	l->cpu[l->n++] = (short)cpu;
}

/* A number of the list at *p (advanced past it); -1 when there is none. */
static long take_num(const char **p, const char *end)
{
	char *stop;
	long v;

	if (*p >= end || **p < '0' || **p > '9')
		return -1;
	v = strtol(*p, &stop, 10);
	if (stop > end || v >= CPUS_MAX)
		return -1;
	*p = stop;
	return v;
}

int cpus_parse_list(const char *s, size_t len, struct cpu_list *l, char *err, size_t errlen)
{
	const char *p = s, *end = s + len;

	l->n = 0;
	while (p < end) {
		long a = take_num(&p, end), b, step = 1;

		b = a;
		if (a >= 0 && p < end && *p == '-') {
			p++;
			b = take_num(&p, end);
			if (b >= 0 && p < end && *p == ':') {
				p++;
				step = take_num(&p, end);
			}
		}
		if (a < 0 || b < a || step < 1 || (p < end && *p != ',') || (p + 1 == end)) {
			snprintf(err, errlen, "'%.*s%s' is not a CPU list like 0-3,8 or 0-7:2 (CPUs 0 "
				 "to %d)", (int)(len > OPTS_SHOWN ? OPTS_SHOWN : len), s,
				 len > OPTS_SHOWN ? "..." : "", CPUS_MAX - 1);
			return -EINVAL;
		}
		for (long c = a; c <= b; c += step)
			list_add(l, (int)c);
		p += p < end; /* the comma */
	}
	if (!l->n) {
		snprintf(err, errlen, "an empty CPU list");
		return -EINVAL;
	}
	return 0;
}

/* The next ",key=" after p (a side's name: lowercase letters, then '='), or NULL. */
static const char *next_key(const char *p)
{
	for (const char *c = strchr(p, ','); c; c = strchr(c + 1, ',')) {
		size_t k = strspn(c + 1, "abcdefghijklmnopqrstuvwxyz");

		if (k && c[1 + k] == '=')
			return c;
	}
	return NULL;
}

int cpus_parse(const char *spec, struct cpu_list *client, struct cpu_list *server, char *err,
	       size_t errlen)
{
	const char *p = spec;

	client->n = server->n = 0;
	while (*p) {
		bool srv = !strncmp(p, "server=", 7);
		struct cpu_list *l = srv ? server : client;

		if (!srv && strncmp(p, "client=", 7)) {
			snprintf(err, errlen, "'%.*s%s' is not client=LIST,server=LIST (e.g. "
				 "client=0-3,server=4-7)", OPTS_VAL(p));
			return -EINVAL;
		}
		p += 7;
		/* The list runs to the next key (commas separate both), so that a key given twice
		 * is seen as one, not read as a CPU of the first. */
		const char *next = next_key(p);
		size_t len = next ? (size_t)(next - p) : strlen(p);

		if (l->n) {
			snprintf(err, errlen, "'%.*s%s' gives %s= twice: give each side once, its CPUs "
				 "in one list (%s=0,2-3)", OPTS_VAL(spec), srv ? "server" : "client",
				 srv ? "server" : "client");
			return -EINVAL;
		}
		if (cpus_parse_list(p, len, l, err, errlen))
			return -EINVAL;
		p += len + (next != NULL);
	}
	return 0;
}

/* The first CPU of l not in the online list, or -1. */
static int first_offline(const struct cpu_list *l, const struct cpu_list *online)
{
	for (int i = 0; i < l->n; i++) {
		int j = 0;

		while (j < online->n && online->cpu[j] != l->cpu[i])
			j++;
		if (j == online->n)
			return l->cpu[i];
	}
	return -1;
}

/* The CPUs this process may run on, into l and as a list in text ("0-1,4"). 0, or -1 when
 * the kernel does not say. */
static int allowed(struct cpu_list *l, char *text, size_t len)
{
	cpu_set_t set;
	size_t o = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	l->n = 0;
	text[0] = 0;
	for (int i = 0; i < CPU_SETSIZE && i < CPUS_MAX; i++) {
		if (!CPU_ISSET(i, &set))
			continue;
		int j = i;

		while (j + 1 < CPU_SETSIZE && j + 1 < CPUS_MAX && CPU_ISSET(j + 1, &set))
			j++;
		for (int k = i; k <= j; k++)
			l->cpu[l->n++] = (short)k;
		if (o < len && j > i)
			o += (size_t)snprintf(text + o, len - o, "%s%d-%d", o ? "," : "", i, j);
		else if (o < len)
			o += (size_t)snprintf(text + o, len - o, "%s%d", o ? "," : "", i);
		i = j;
	}
	return l->n ? 0 : -1;
}

int cpus_check(const struct opts *o, char *err, size_t errlen)
{
	struct cpu_list *c = xmalloc(3 * sizeof(*c)), *s = c + 1, *on = c + 2;
	char why[200], text[512] = "";
	int ret = -EINVAL, bad = -1;
	FILE *f;

	if (!o->cpus) {
		free(c);
		return 0;
	}
	if (o->pin) {
		snprintf(err, errlen, "--pin and --cpus both place the threads: give one");
		goto out;
	}
	if (cpus_parse(o->cpus, c, s, why, sizeof(why))) {
		snprintf(err, errlen, "--cpus %s", why);
		goto out;
	}
	f = fopen(ONLINE, "r");
	if (f && fgets(text, sizeof(text), f))
		text[strcspn(text, "\n")] = 0;
	if (f)
		fclose(f);
	if (!*text || cpus_parse_list(text, strlen(text), on, why, sizeof(why))) {
		ret = 0; /* cannot tell here: an offline CPU is then not pinned */
		goto out;
	}
	if (!o->clients_on)
		bad = first_offline(c, on);
	if (bad < 0 && !o->server)
		bad = first_offline(s, on);
	if (bad >= 0) {
		snprintf(err, errlen, "--cpus: CPU %d is not online here; the online CPUs are %s", bad,
			 text);
		goto out;
	}
	/* Online but outside this process's affinity (a cpuset, taskset): pinning there fails. */
	if (allowed(on, text, sizeof(text)) == 0) {
		if (!o->clients_on)
			bad = first_offline(c, on);
		if (bad < 0 && !o->server)
			bad = first_offline(s, on);
		if (bad >= 0) {
			snprintf(err, errlen, "--cpus: CPU %d is online but outside this process's "
				 "CPU affinity (a cpuset or taskset): it may run on %s", bad, text);
			goto out;
		}
	}
	ret = 0;
out:
	free(c);
	return ret;
}

/* --cpus's two lists (a side not named, or a spec cpus_check refused: n = 0); free() them. */
static struct cpu_list *lists_of(const struct opts *o)
{
	struct cpu_list *l = xcalloc(2, sizeof(*l));
	char err[200];

	if (o->cpus && cpus_parse(o->cpus, l, l + 1, err, sizeof(err)))
		l[0].n = l[1].n = 0;
	return l;
}

/* The CPU the k-th thread of a side is pinned to, or -1: round-robin over its side's list
 * (--cpus), or --pin's fixed layout (clients from the first CPU, server threads from the
 * last, of the `usable` this process may run on). */
static int pinned_cpu(const struct opts *o, const struct cpu_list *l, long k, bool server,
		      int usable)
{
	if (o->cpus)
		return l->n ? l->cpu[k % l->n] : -1;
	if (!o->pin)
		return -1;
	return server ? usable - 1 - (int)(k % usable) : (int)(k % usable);
}

int cpus_pin(const struct opts *o, int n, bool server)
{
	struct cpu_list *l = lists_of(o);
	int cpu = pinned_cpu(o, l + server, n, server, cpus_usable());
	cpu_set_t set;

	free(l);
	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) ? -1 : cpu;
}

bool cpus_each_own(const struct opts *o, long clients, long servers)
{
	int usable = cpus_usable();
	bool own = clients + servers <= usable;
	struct cpu_list *l;
	unsigned char *taken;

	if (!own || (!o->cpus && !o->pin))
		return own;
	l = lists_of(o);
	taken = xcalloc(CPUS_MAX, 1);
	for (int side = 0; side < 2 && own; side++)
		for (long k = 0; k < (side ? servers : clients) && own; k++) {
			int cpu = pinned_cpu(o, l + side, k, side, usable);

			own = cpu < 0 || cpu >= CPUS_MAX || !taken[cpu]++;
		}
	free(taken);
	free(l);
	return own;
}

char cpus_one_args[48] = "--cpus client=0,server=0";

void cpus_one_fill(void)
{
	struct cpu_list *l = xmalloc(sizeof(*l));
	char text[16];
	int first = allowed(l, text, sizeof(text)) == 0 ? l->cpu[0] : 0;

	free(l);
	snprintf(cpus_one_args, sizeof(cpus_one_args), "--cpus client=%d,server=%d", first, first);
}
