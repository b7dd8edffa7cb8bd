/* env.c: the environment block of every result (see env.h). */
#include "measure/env.h"
#include "base/safe_json.h"
#include "base/util.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

const char *const env_sysctls[] = {
	"net.core.rmem_default", "net.core.rmem_max", "net.core.wmem_default", "net.core.wmem_max",
	"net.core.optmem_max", "net.core.netdev_max_backlog", "net.core.netdev_budget",
	"net.core.netdev_budget_usecs", "net.core.somaxconn", "net.core.busy_read",
	"net.core.busy_poll", "net.core.default_qdisc", "net.core.bpf_jit_enable",
	"net.core.rps_sock_flow_entries",
	"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.ipv4.tcp_mem", "net.ipv4.tcp_autocorking",
	"net.ipv4.tcp_congestion_control", "net.ipv4.tcp_timestamps", "net.ipv4.tcp_sack",
	"net.ipv4.tcp_window_scaling", "net.ipv4.tcp_tw_reuse", "net.ipv4.tcp_fin_timeout",
	"net.ipv4.tcp_max_syn_backlog", "net.ipv4.tcp_syncookies", "net.ipv4.tcp_fastopen",
	"net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_no_metrics_save",
	"net.ipv4.tcp_notsent_lowat", "net.ipv4.tcp_limit_output_bytes", "net.ipv4.tcp_ecn",
	"net.ipv4.tcp_mtu_probing", "net.ipv4.tcp_early_demux", "net.ipv4.tcp_moderate_rcvbuf",
	"net.ipv4.udp_mem", "net.ipv4.udp_rmem_min", "net.ipv4.udp_wmem_min",
	"net.ipv4.udp_early_demux", "net.ipv4.ip_local_port_range", "net.ipv4.ip_forward",
	NULL,
};

/* The first line of a file, squashed (base/util.h); false if it cannot be read. */
static bool read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	char buf[4096];

	if (!f)
		return false;
	bool ok = fgets(buf, sizeof(buf), f) != NULL;

	fclose(f);
	if (ok)
		squash_line(buf, out, len);
	return ok;
}

static void add_file(cJSON *j, const char *key, const char *path)
{
	char v[1024];

	if (read_line(path, v, sizeof(v)))
		cJSON_AddStringToObject(j, key, v);
	else
		cJSON_AddNullToObject(j, key);
}

/* CPUs in a list such as "0-3,8,10-11"; -1 if it cannot be read. */
static int count_list(const char *path)
{
	char v[512], *p;
	int n = 0;

	if (!read_line(path, v, sizeof(v)))
		return -1;
	for (p = v; *p;) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			return -1;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		n += (int)(b - a + 1);
		p = *end == ',' ? end + 1 : end;
		if (*p && !isdigit((unsigned char)*p))
			return -1;
	}
	return n;
}

static void add_count(cJSON *j, const char *key, int n)
{
	if (n < 0)
		cJSON_AddNullToObject(j, key);
	else
		cJSON_AddNumberToObject(j, key, n);
}

static void cpu_model(char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];

	snprintf(out, len, "%s", "");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = 0;
		snprintf(out, len, "%s", colon);
		break;
	}
	if (f)
		fclose(f);
}

/* The hypervisor's CPUID signature ("KVMKVMKVM", "Microsoft Hv", ...), or "" on bare metal. */
static void hypervisor(char *out, size_t len)
{
	snprintf(out, len, "%s", "");
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	char sig[13];

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
		return;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = 0;
	static const char *const names[][2] = {
		{"KVMKVMKVM", "KVM"}, {"Microsoft Hv", "Hyper-V"}, {"VMwareVMware", "VMware"},
		{"XenVMMXenVMM", "Xen"}, {"TCGTCGTCGTCG", "QEMU (TCG)"}, {"bhyve bhyve ", "bhyve"},
		{"ACRNACRNACRN", "ACRN"}, {" lrpepyh  vr", "Parallels"},
	};

	snprintf(out, len, "%s", sig);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(sig, names[i][0], strlen(names[i][0])))
			snprintf(out, len, "%s", names[i][1]);
#endif
}

static cJSON *cpu_json(void)
{
	cJSON *j = cJSON_CreateObject(), *mit = cJSON_CreateObject();
	char v[512], path[512];
	DIR *d;
	struct dirent *e;

	cpu_model(v, sizeof(v));
	cJSON_AddStringToObject(j, "model", v);
	add_count(j, "online", count_list("/sys/devices/system/cpu/online"));
	add_file(j, "smt", "/sys/devices/system/cpu/smt/control");
	add_count(j, "numa_nodes", count_list("/sys/devices/system/node/online"));
	add_file(j, "governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	add_file(j, "scaling_driver", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver");
	/* Turbo: intel_pstate says no_turbo, acpi-cpufreq and amd say boost. */
	if (read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", v, sizeof(v)))
		cJSON_AddBoolToObject(j, "turbo", strcmp(v, "1") != 0);
	else if (read_line("/sys/devices/system/cpu/cpufreq/boost", v, sizeof(v)))
		cJSON_AddBoolToObject(j, "turbo", strcmp(v, "1") == 0);
	else
		cJSON_AddNullToObject(j, "turbo");
	d = opendir("/sys/devices/system/cpu/vulnerabilities");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/vulnerabilities/%s", e->d_name);
		add_file(mit, e->d_name, path);
	}
	if (d)
		closedir(d);
	/* readdir's order is the directory's: sorted, so two runs list them alike. */
	int n = cJSON_GetArraySize(mit);
	cJSON *sorted = cJSON_CreateObject();

	for (int pass = 0; pass < n; pass++) {
		cJSON *min = NULL, *it;

		cJSON_ArrayForEach(it, mit)
			if (!min || strcmp(it->string, min->string) < 0)
				min = it;
		cJSON_AddItemToObject(sorted, min->string, cJSON_DetachItemViaPointer(mit, min));
	}
	cJSON_Delete(mit);
	cJSON_AddItemToObject(j, "vulnerabilities", sorted);
	return j;
}

static cJSON *sysctl_json(void)
{
	cJSON *j = cJSON_CreateObject();
	char path[256];

	for (int i = 0; env_sysctls[i]; i++) {
		size_t o = snprintf(path, sizeof(path), "/proc/sys/");

		for (const char *k = env_sysctls[i]; *k && o + 1 < sizeof(path); k++)
			path[o++] = *k == '.' ? '/' : *k;
		path[o] = 0;
		add_file(j, env_sysctls[i], path);
	}
	return j;
}

/* ---- the data path's interface ---- */

/* The interface that holds the local address a datagram to peer would leave from. */
static bool route_ifname(const struct sockaddr *peer, socklen_t len, char *name, size_t nlen)
{
	struct sockaddr_storage to = {0}, me;
	socklen_t mlen = sizeof(me);
	struct ifaddrs *ifs, *i;
	bool found = false;

	if (peer && len <= sizeof(to))
		memcpy(&to, peer, len);
	if (!peer || (to.ss_family != AF_INET && to.ss_family != AF_INET6)) {
		struct sockaddr_in *in = (struct sockaddr_in *)&to;

		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*in);
	}
	/* A port for connect(): a datagram socket sends nothing by connecting. */
	if (to.ss_family == AF_INET && !((struct sockaddr_in *)&to)->sin_port)
		((struct sockaddr_in *)&to)->sin_port = htons(9);
	if (to.ss_family == AF_INET6 && !((struct sockaddr_in6 *)&to)->sin6_port)
		((struct sockaddr_in6 *)&to)->sin6_port = htons(9);
	int fd = socket(to.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&to,
			      to.ss_family == AF_INET ? sizeof(struct sockaddr_in)
						       : sizeof(struct sockaddr_in6)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&me, &mlen) < 0 || getifaddrs(&ifs) < 0) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	for (i = ifs; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != me.ss_family)
			continue;
		if (me.ss_family == AF_INET)
			found = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
				((struct sockaddr_in *)&me)->sin_addr.s_addr;
		else
			found = !memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
					&((struct sockaddr_in6 *)&me)->sin6_addr, sizeof(struct in6_addr));
		if (found)
			snprintf(name, nlen, "%s", i->ifa_name);
	}
	freeifaddrs(ifs);
	return found;
}

static int ethtool(int fd, const char *ifname, void *data)
{
	struct ifreq ifr = {0};

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr);
}

static void offloads(cJSON *j, int fd, const char *ifname)
{
	static const struct {
		const char *name;
		unsigned cmd;
	} off[] = {
		{"gro", ETHTOOL_GGRO},	       {"gso", ETHTOOL_GGSO},	    {"tso", ETHTOOL_GTSO},
		{"rx_checksum", ETHTOOL_GRXCSUM}, {"tx_checksum", ETHTOOL_GTXCSUM},
		{"scatter_gather", ETHTOOL_GSG},
	};
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		struct ethtool_value v = {.cmd = off[i].cmd};

		if (ethtool(fd, ifname, &v) == 0)
			cJSON_AddBoolToObject(o, off[i].name, v.data != 0);
		else
			cJSON_AddNullToObject(o, off[i].name);
	}
	cJSON_AddItemToObject(j, "offloads", o);
}

/* Entries of a directory whose names start with prefix; -1 if it cannot be read. */
static int count_dir(const char *path, const char *prefix)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' && !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

struct qdisc_find {
	unsigned ifindex;
	char kind[32];
};

static int qdisc_attr(const struct nlattr *a, void *arg)
{
	struct qdisc_find *q = arg;

	if (mnl_attr_get_type(a) == TCA_KIND && mnl_attr_validate(a, MNL_TYPE_STRING) >= 0)
		snprintf(q->kind, sizeof(q->kind), "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static int qdisc_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct qdisc_find *q = arg;
	const struct tcmsg *tc = mnl_nlmsg_get_payload(nlh);

	if ((unsigned)tc->tcm_ifindex == q->ifindex && tc->tcm_parent == TC_H_ROOT)
		mnl_attr_parse(nlh, sizeof(*tc), qdisc_attr, q);
	return MNL_CB_OK;
}

/* The root qdisc's kind ("noqueue", "fq_codel", "mq"), by an rtnetlink dump. */
static bool root_qdisc(unsigned ifindex, char *out, size_t len)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct qdisc_find q = {.ifindex = ifindex};
	unsigned seq = (unsigned)time(NULL);
	int ret = -1;

	if (!nl)
		return false;
	nlh->nlmsg_type = RTM_GETQDISC;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	struct tcmsg *tc = mnl_nlmsg_put_extra_header(nlh, sizeof(*tc));

	tc->tcm_family = AF_UNSPEC;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) == 0 &&
	    mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) >= 0) {
		unsigned portid = mnl_socket_get_portid(nl);
		ssize_t n;

		while ((n = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
			ret = mnl_cb_run(buf, (size_t)n, seq, portid, qdisc_msg, &q);
			if (ret <= MNL_CB_STOP)
				break;
		}
	}
	mnl_socket_close(nl);
	snprintf(out, len, "%s", q.kind);
	return ret >= 0 && q.kind[0];
}

static cJSON *iface_json(const struct sockaddr *peer, socklen_t peer_len)
{
	cJSON *j = cJSON_CreateObject();
	char name[IF_NAMESIZE] = "", path[256], v[64];
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (!route_ifname(peer, peer_len, name, sizeof(name)) || fd < 0) {
		cJSON_AddNullToObject(j, "name");
		name[0] = 0;
	} else {
		cJSON_AddStringToObject(j, "name", name);
	}
	struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};

	if (name[0] && ethtool(fd, name, &di) == 0 && di.driver[0])
		cJSON_AddStringToObject(j, "driver", di.driver);
	else
		cJSON_AddNullToObject(j, "driver");
	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", name);
	if (name[0] && read_line(path, v, sizeof(v)))
		cJSON_AddNumberToObject(j, "mtu", atof(v));
	else
		cJSON_AddNullToObject(j, "mtu");
	if (name[0] && root_qdisc(if_nametoindex(name), v, sizeof(v)))
		cJSON_AddStringToObject(j, "qdisc", v);
	else
		cJSON_AddNullToObject(j, "qdisc");
	if (name[0]) {
		offloads(j, fd, name);
	} else {
		cJSON_AddNullToObject(j, "offloads");
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", name);
	add_count(j, "rx_queues", name[0] ? count_dir(path, "rx-") : -1);
	add_count(j, "tx_queues", name[0] ? count_dir(path, "tx-") : -1);
	/* Receive steering (RPS, RFS) of its first rx queue, as --sysctl net.dev.IF.* sets all. */
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-0/rps_cpus", name);
	if (name[0] && read_line(path, v, sizeof(v)))
		cJSON_AddStringToObject(j, "rps_cpus", v);
	else
		cJSON_AddNullToObject(j, "rps_cpus");
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-0/rps_flow_cnt", name);
	if (name[0] && read_line(path, v, sizeof(v)))
		cJSON_AddStringToObject(j, "rps_flow_cnt", v);
	else
		cJSON_AddNullToObject(j, "rps_flow_cnt");
	/* MSI interrupts of the device behind it; a virtual interface has none (null). */
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/msi_irqs", name);
	add_count(j, "irqs", name[0] ? count_dir(path, "") : -1);
	if (fd >= 0)
		close(fd);
	return j;
}

int env_coalesce_probe(const char *ifname)
{
	struct ethtool_coalesce ec = {.cmd = ETHTOOL_GCOALESCE};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -errno;
	ret = ethtool(fd, ifname, &ec) == 0 ? 0 : -errno;
	close(fd);
	return ret;
}

cJSON *env_collect(const struct sockaddr *peer, socklen_t peer_len)
{
	cJSON *j = cJSON_CreateObject(), *k = cJSON_CreateObject(), *virt = cJSON_CreateObject();
	struct utsname u;
	char v[256];

	if (gethostname(v, sizeof(v)) == 0) {
		v[sizeof(v) - 1] = 0;
		cJSON_AddStringToObject(j, "hostname", v);
	} else {
		cJSON_AddNullToObject(j, "hostname");
	}
	if (uname(&u) == 0) {
		cJSON_AddStringToObject(k, "release", u.release);
		cJSON_AddStringToObject(k, "version", u.version);
		cJSON_AddStringToObject(k, "machine", u.machine);
	}
	add_file(k, "cmdline", "/proc/cmdline");
	cJSON_AddItemToObject(j, "kernel", k);
	cJSON_AddItemToObject(j, "cpu", cpu_json());
	add_file(j, "clocksource", "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	hypervisor(v, sizeof(v));
	if (v[0])
		cJSON_AddStringToObject(virt, "hypervisor", v);
	else
		cJSON_AddNullToObject(virt, "hypervisor");
	cJSON_AddItemToObject(j, "virtualization", virt);
	cJSON_AddItemToObject(j, "sysctl", sysctl_json());
	cJSON_AddItemToObject(j, "interface", iface_json(peer, peer_len));
	safe_json_tree(j); /* a hostname or an interface name may hold controls */
	return j;
}
