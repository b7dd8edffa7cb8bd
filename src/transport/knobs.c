/* knobs.c: see knobs.h. */
#include "transport/knobs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TCP_MIN_MSS 88 /* the kernel refuses a smaller TCP_MAXSEG */
#define AVAILABLE_CC "/proc/sys/net/ipv4/tcp_available_congestion_control"

/* --bind split into an address (port 0) and a device ("" for none). 0 or -EINVAL. */
static int parse_bind(const char *spec, struct sockaddr_storage *a, char *dev, size_t devlen)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *pct = strchr(spec, '%');
	size_t n = pct ? (size_t)(pct - spec) : strlen(spec);

	memset(a, 0, sizeof(*a));
	*dev = 0;
	if (n >= sizeof(host) || (pct && (!pct[1] || strlen(pct + 1) >= devlen)))
		return -EINVAL;
	memcpy(host, spec, n);
	host[n] = 0;
	if (pct)
		strcpy(dev, pct + 1);
	if (n && host[0] == '[' && host[n - 1] == ']') {
		memmove(host, host + 1, n - 2);
		host[n - 2] = 0;
	}
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)a)->sin_addr) == 1)
		a->ss_family = AF_INET;
	else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)a)->sin6_addr) == 1)
		a->ss_family = AF_INET6;
	else if (!*host && *dev)
		a->ss_family = AF_UNSPEC; /* "%eth0": the device alone */
	else
		return -EINVAL;
	return 0;
}

static int count_setsockopt(int fd, int level, int name, const void *v, socklen_t len,
			    uint64_t *calls)
{
	if (calls)
		++*calls;
	return setsockopt(fd, level, name, v, len) < 0 ? -errno : 0;
}

int knobs_set(int fd, int family, const struct opts *o, uint64_t *calls)
{
	int r = 0, v;

	if (o->cc)
		r = count_setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, o->cc, (socklen_t)strlen(o->cc),
				     calls);
	if (!r && o->mss) {
		v = (int)o->mss;
		r = count_setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &v, sizeof(v), calls);
	}
	if (!r && o->tos >= 0 && !family) {
		socklen_t len = sizeof(family);

		if (calls)
			++*calls;
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &family, &len) < 0)
			return -errno;
	}
	if (!r && o->tos >= 0) {
		v = (int)o->tos;
		r = family == AF_INET6
			    ? count_setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, sizeof(v), calls)
			    : count_setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof(v), calls);
	}
	return r;
}

int knobs_client(int fd, const struct opts *o, struct sockaddr_storage *local, uint64_t *calls)
{
	struct sockaddr_storage a;
	char dev[IFNAMSIZ];
	int one = 1, r;

	if (!o->bind)
		return 0;
	if (parse_bind(o->bind, &a, dev, sizeof(dev)))
		return -EINVAL;
	if (*dev && (r = count_setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev,
					  (socklen_t)strlen(dev), calls)))
		return r;
	if (a.ss_family == AF_UNSPEC)
		return 0;
	if (local) {
		if (local->ss_family != a.ss_family)
			return -EAFNOSUPPORT;
		*local = a;
		return 0;
	}
	count_setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one), calls);
	if (calls)
		++*calls;
	if (bind(fd, (struct sockaddr *)&a,
		 a.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)))
		return -errno;
	return 0;
}

void knobs_read(int fd, struct knobs_seen *k)
{
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);
	int type = 0;
	socklen_t tl = sizeof(type), il = sizeof(int);
	const void *addr;

	if (__atomic_load_n(&k->claimed, __ATOMIC_RELAXED) ||
	    __atomic_exchange_n(&k->claimed, 1, __ATOMIC_ACQ_REL))
		return;
	memset(k->cc, 0, sizeof(k->cc));
	memset(k->local, 0, sizeof(k->local));
	k->mss = k->tos = -1;
	if (getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return;
	getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl);
	k->tcp = type == SOCK_STREAM;
	if (k->tcp) {
		socklen_t cl = sizeof(k->cc) - 1;

		getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, k->cc, &cl);
		getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &k->mss, &il);
	}
	il = sizeof(int);
	if (a.ss_family == AF_INET6)
		getsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &k->tos, &il);
	else
		getsockopt(fd, IPPROTO_IP, IP_TOS, &k->tos, &il);
	addr = a.ss_family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)&a)->sin6_addr
				       : (const void *)&((struct sockaddr_in *)&a)->sin_addr;
	/* A UDP socket not bound yet has no address of its own (the first send picks one). */
	if (((struct sockaddr_in *)&a)->sin_port)
		inet_ntop(a.ss_family, addr, k->local, sizeof(k->local));
	len = sizeof(k->dev); /* the kernel wants room for IFNAMSIZ and ends it with a 0 */
	if (getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, k->dev, &len) < 0)
		*k->dev = 0;
	k->dev[sizeof(k->dev) - 1] = 0;
	__atomic_store_n(&k->seen, true, __ATOMIC_RELEASE);
}

/* "reno cubic" (the kernel's list), or "" when it cannot be read. */
static void available_cc(char *buf, size_t cap)
{
	FILE *f = fopen(AVAILABLE_CC, "r");

	*buf = 0;
	if (!f)
		return;
	if (!fgets(buf, (int)cap, f))
		*buf = 0;
	buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static int check_cc(const struct opts *o, char *err, size_t errlen)
{
	char avail[512];
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return 0; /* cannot tell here: the run's own sockets will say */
	r = setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, o->cc, (socklen_t)strlen(o->cc)) < 0
		    ? errno
		    : 0;
	close(fd);
	if (!r)
		return 0;
	available_cc(avail, sizeof(avail));
	snprintf(err, errlen,
		 "--cc %s: the kernel refused it (%s); available here (%s): %s", o->cc,
		 strerror(r), AVAILABLE_CC, *avail ? avail : "unknown");
	return -EINVAL;
}

/* Bind a probe socket where the clients run here: an address not of this host, or a device
 * that needs privileges, is said now rather than by every client. */
static int check_bind_here(const struct opts *o, const struct sockaddr_storage *a, int tcp,
			   char *err, size_t errlen)
{
	int family = a->ss_family == AF_UNSPEC ? (o->ipv6 ? AF_INET6 : AF_INET) : a->ss_family;
	int fd = socket(family, (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return 0;
	r = knobs_client(fd, o, NULL, NULL);
	close(fd);
	if (!r)
		return 0;
	snprintf(err, errlen, "--bind %s: %s%s", o->bind, strerror(-r),
		 r == -EADDRNOTAVAIL ? " (not an address of this host: see `ip addr`)"
		 : r == -EPERM	     ? " (a device needs root or CAP_NET_RAW)"
				     : "");
	return -EINVAL;
}

static int check_bind(const struct opts *o, bool tcp, char *err, size_t errlen)
{
	struct sockaddr_storage a;
	char dev[IFNAMSIZ];

	if (parse_bind(o->bind, &a, dev, sizeof(dev))) {
		snprintf(err, errlen, "--bind %s: not ADDR, ADDR%%DEVICE or %%DEVICE (e.g. 127.0.0.2, "
			 "198.18.0.1%%eth0, ::1)", o->bind);
		return -EINVAL;
	}
	if (*dev && !if_nametoindex(dev)) {
		snprintf(err, errlen, "--bind %s: no device %s here (see `ip link`)", o->bind, dev);
		return -EINVAL;
	}
	if ((a.ss_family == AF_INET6 && o->ipv4) || (a.ss_family == AF_INET && o->ipv6)) {
		snprintf(err, errlen, "--bind %s is not of the family of -%c", o->bind,
			 o->ipv4 ? '4' : '6');
		return -EINVAL;
	}
	if (a.ss_family == AF_INET6 && !o->ipv6 && !o->server) {
		snprintf(err, errlen, "--bind %s is IPv6 and the server is 127.0.0.1: add -6", o->bind);
		return -EINVAL;
	}
	if (OPT_IS_SET(o, src_addrs) && o->src_addrs) {
		snprintf(err, errlen, "--bind and --src-addrs both choose the source address: give one");
		return -EINVAL;
	}
	return o->clients_on ? 0 : check_bind_here(o, &a, tcp, err, errlen);
}

int knobs_check(const struct opts *o, bool tcp, char *err, size_t errlen)
{
	if (o->mss && o->mss < TCP_MIN_MSS) {
		snprintf(err, errlen, "--mss %ld: the kernel takes %d to 32767 (0: the route's)", o->mss,
			 TCP_MIN_MSS);
		return -EINVAL;
	}
	if (o->cc && tcp && check_cc(o, err, errlen))
		return -EINVAL;
	if (o->bind && check_bind(o, tcp, err, errlen))
		return -EINVAL;
	return 0;
}
