/* tcp_info.c: tcp_info_add (tcp.h). Apart from tcp.c because glibc's <netinet/tcp.h> has an
 * old struct tcp_info without the segment counts; the kernel's header has them. */
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
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

static void lo_hi(uint64_t *lo, uint64_t *hi, uint64_t v, bool first)
{
	if (lo && (first || v < *lo))
		*lo = v;
	if (hi && (first || v > *hi))
		*hi = v;
}

void tcp_info_sample(int fd, struct side_counters *c, struct tcp_info_dist *d, uint64_t *calls)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	bool first = !c->ti_conns;

	memset(&ti, 0, sizeof(ti));
	if (calls)
		++*calls;
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
	    len < offsetof(struct tcp_info, tcpi_delivery_rate) + sizeof(ti.tcpi_delivery_rate))
		return; /* a kernel before 4.18 lacks the delivery rate: nothing taken */
	c->ti_conns++;
	c->ti_rtt_sum += ti.tcpi_rtt;
	c->ti_rttvar_sum += ti.tcpi_rttvar;
	c->ti_minrtt_sum += ti.tcpi_min_rtt;
	c->ti_cwnd_sum += ti.tcpi_snd_cwnd;
	c->ti_rate_sum += ti.tcpi_delivery_rate;
	c->ti_retrans += ti.tcpi_total_retrans;
	lo_hi(&c->ti_rtt_min, &c->ti_rtt_max, ti.tcpi_rtt, first);
	lo_hi(&c->ti_minrtt_min, NULL, ti.tcpi_min_rtt, first);
	lo_hi(&c->ti_cwnd_min, &c->ti_cwnd_max, ti.tcpi_snd_cwnd, first);
	lo_hi(NULL, &c->ti_rate_max, ti.tcpi_delivery_rate, first);
	if (d)
		tcp_info_dist_record(d, ti.tcpi_rtt, ti.tcpi_min_rtt, ti.tcpi_snd_cwnd);
}

void tcp_io_count(struct side_counters *c, const struct tcp_io *io)
{
	c->rx_bytes += io->rx_bytes;
	c->tx_bytes += io->tx_bytes;
	c->rx_packets += io->rx_calls;
	c->tx_packets += io->tx_calls;
	c->syscalls += io->syscalls;
}
