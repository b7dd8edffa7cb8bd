/* edges.c: see edges.h. */
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "run/edges.h"

static bool read_proto(const struct workload *wl, bool v6, struct kernel_read *k)
{
	return kstat_proto_read(wl->snmp_proto, v6, &k->proto) == 0;
}

/* The rest: /proc/net/netstat is twice the size of /proc/net/snmp and takes longer to read. */
static bool read_ext(const struct workload *wl, bool v6, struct kernel_read *k)
{
	bool ok = true;

	if (!strcmp(wl->snmp_proto, "Tcp"))
		ok = kstat_snmp_read("/proc/net/netstat", "TcpExt", &k->ext) == 0;
	else
		memset(&k->ext, 0, sizeof(k->ext));
	if (kstat_ip_read(v6, &k->ip))
		memset(&k->ip, 0, sizeof(k->ip));
	return ok;
}

bool edges_read_kernel(const struct workload *wl, bool v6, struct kernel_read *k)
{
	bool ok = read_proto(wl, v6, k);

	return read_ext(wl, v6, k) && ok;
}

bool edges_read_at(const struct workload *wl, bool v6, struct kernel_read *k, uint64_t t,
		   double *lag_us)
{
	bool ok = read_proto(wl, v6, k);

	*lag_us = (double)(now_ns() - t) / 1e3;
	return read_ext(wl, v6, k) && ok;
}

static void append_delta(struct snmp *out, const struct snmp *d, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n && out->n < SNMP_MAX; i++) {
		int64_t v = kstat_snmp_get(d, keys[i]);

		if (v < 0)
			continue;
		snprintf(out->name[out->n], sizeof(out->name[0]), "%s", keys[i]);
		out->v[out->n++] = (uint64_t)v;
	}
}

static void kernel_delta(struct run *r, const struct kernel_read *a, const struct kernel_read *b)
{
	static const char *const ext_keys[] = {"ListenOverflows", "ListenDrops", "TW",
					       "TWRecycled", "TCPAbortOnData", "TCPTimeouts"};
	static const char *const ip_keys[] = {"InOctets", "OutOctets"};
	struct snmp d;

	kstat_snmp_delta(&a->proto, &b->proto, &r->res.kernel);
	kstat_snmp_delta(&a->ext, &b->ext, &d);
	append_delta(&r->res.kernel, &d, ext_keys, ARRAY_SIZE(ext_keys));
	if (r->wl->units) {
		kstat_snmp_delta(&a->ip, &b->ip, &d);
		append_delta(&r->res.kernel, &d, ip_keys, ARRAY_SIZE(ip_keys));
	}
}

void edges_figures(struct run *r, const struct edges *e)
{
	r->res.machine_ok = e->cpu_ok;
	r->res.kernel_ok = e->k_ok;
	if (r->res.machine_ok) {
		double hz = (double)sysconf(_SC_CLK_TCK);

		kstat_cpu_split(&e->c0, &e->c1, &r->res.machine);
		r->res.softirq_inline_s =
		    (double)(e->c1.t[CPU_SOFTIRQ] - e->c0.t[CPU_SOFTIRQ]) / hz;
		if (r->ksirq.n)
			r->res.softirq_ksoftirqd_s = (double)(e->ks1 - e->ks0) / hz;
	}
	if (r->res.kernel_ok)
		kernel_delta(r, &e->k0, &e->k1);
}
