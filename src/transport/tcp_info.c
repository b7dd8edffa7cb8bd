/* tcp_info.c: tcp_info_add (tcp.h). Apart from tcp.c because glibc's <netinet/tcp.h> has an
 * old struct tcp_info without the segment counts; the kernel's header has them. */
#include <linux/tcp.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "transport/tcp.h"

void tcp_info_add(int fd, struct side_counters *c, int sign)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return;
	c->retrans += (uint64_t)((int64_t)sign * ti.tcpi_total_retrans);
	c->segs_out += (uint64_t)((int64_t)sign * ti.tcpi_segs_out);
}
