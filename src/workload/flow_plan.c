/* flow_plan.c: the plan of a run with many flows (flow_plan.h). */
#include <stdio.h>

#include "workload/flow_plan.h"

int flow_plan_threads(long flows, int ncpu)
{
	long n = ncpu > 0 ? ncpu : 1;

	return (int)(n < flows ? n : flows > 0 ? flows : 1);
}

long flow_plan_ports(long lo, long hi)
{
	return hi >= lo ? hi - lo + 1 : 1;
}

long flow_plan_local_ports(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
	long lo = 32768, hi = 60999;

	if (f) {
		if (fscanf(f, "%ld %ld", &lo, &hi) != 2)
			lo = 32768, hi = 60999;
		fclose(f);
	}
	return flow_plan_ports(lo, hi);
}

int flow_plan_src_addrs(long total, long ports)
{
	long usable = ports / 4;

	if (usable < 1)
		usable = 1;
	return (int)((total + usable - 1) / usable > 0 ? (total + usable - 1) / usable : 1);
}

int flow_plan_connect_inflight(long backlog, long clients, long flows)
{
	long n = backlog / (clients > 0 ? clients : 1);

	if (n > FLOW_PLAN_CONNECT_BURST)
		n = FLOW_PLAN_CONNECT_BURST;
	if (n > flows)
		n = flows;
	return (int)(n > 0 ? n : 1);
}

long flow_plan_backlog(long total, long clients)
{
	long burst = (clients > 0 ? clients : 1) * FLOW_PLAN_CONNECT_BURST * 2;
	long b = total < burst ? total : burst;

	return b + 128;
}
