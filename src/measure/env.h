/* env.h: what shaped the figures, recorded with them: the kernel, the CPUs and how their
 * frequency is set, the clock source, the hypervisor, the socket sysctls and the interface
 * the data path uses (driver, MTU, qdisc, offloads, queues). Read from /proc and /sys and
 * through the kernel's ethtool ioctls and rtnetlink; nothing is run. Data only.
 */
#ifndef SB_ENV_H
#define SB_ENV_H

#include <sys/socket.h>

struct cJSON;

/* This host's environment as a JSON object, for the data path towards peer (NULL or an
 * unspecified address: loopback). Values the host does not have (no cpufreq in a VM, no
 * driver for lo) are null; the keys are always there. Never NULL. */
struct cJSON *env_collect(const struct sockaddr *peer, socklen_t peer_len);

/* Does ifname's driver have interrupt coalescing settings (ETHTOOL_GCOALESCE)? 0 or -errno. */
int env_coalesce_probe(const char *ifname);

/* The sysctls the environment records, NULL-terminated ("net.core.rmem_max", ...). */
extern const char *const env_sysctls[];

/* Call each(path, a, b) for every leaf that differs between two environments (a value missing
 * on one side is "(none)"), in a's order then b's extras. "a.b.c" paths; values as text.
 * Returns how many differ. */
int env_diff(const struct cJSON *a, const struct cJSON *b,
	     void (*each)(const char *path, const char *va, const char *vb, void *arg), void *arg);

#endif
