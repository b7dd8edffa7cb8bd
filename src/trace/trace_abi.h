/* trace_abi.h: what --trace's BPF programs (bpf/stages.bpf.c) and user space (trace.c) share:
 * the stages, the counters and the histogram's buckets. Plain C for both compilers. */
#ifndef SB_TRACE_ABI_H
#define SB_TRACE_ABI_H

enum trace_stage {
	TRACE_STAGE_SEND,    /* the send call's entry -> its skb queued to the device */
	TRACE_STAGE_DEVICE,  /* -> taken off the device or backlog queue in softirq */
	TRACE_STAGE_SOFTIRQ, /* -> queued to the receiving socket */
	TRACE_STAGE_SOCKET,  /* -> read by the receiving process, less the wake-up */
	TRACE_STAGE_WAKEUP,  /* the reader woken -> running, inside the socket's wait */
	TRACE_STAGE_RECV,    /* that read -> the receiving call's exit */
	TRACE_STAGE_USER,    /* a thread's receiving call's exit -> its next send's entry */
	TRACE_STAGES,
};

enum trace_side { TRACE_SIDE_CLIENT = 1, TRACE_SIDE_SERVER = 2 };

/* The system calls that send and read, as bitmaps of 64-bit words (ids up to 511). */
#define TRACE_SYSCALL_WORDS 8

enum trace_cnt {
	TRACE_CNT_SENT_CLIENT,	 /* packets the clients sent, seen queued to a device */
	TRACE_CNT_SENT_SERVER,
	TRACE_CNT_READ_BY_SERVER,  /* ... and read by the receiving process, each stage seen */
	TRACE_CNT_READ_BY_CLIENTS,
	TRACE_CNT_UNFOLLOWED,	 /* queued to a socket whose 256 unread were followed already */
	TRACE_CNT_RCVQ_FULL,	 /* sock_rcvqueue_full, anywhere on this host (any socket) */
	TRACE_CNT_UDP_FAIL,	 /* udp_fail_queue_rcv_skb */
	TRACE_CNT_RETRANS,	 /* tcp_retransmit_skb */
	TRACE_CNT_TCP_SOFTIRQ,	 /* TCP segments of the run's taken by their socket in softirq */
	TRACE_CNT_TCP_PROCESS,	 /* ... in the reading process (its socket's backlog, at release) */
	TRACE_CNT_N,
};

/* Log-linear buckets: 8 a power of two (within 12.5%), exact below 16 ns, up to 2^42 ns;
 * bucket b holds [lo(b), lo(b+1)). */
#define TRACE_SUB 8
#define TRACE_BUCKETS 320
#define TRACE_HIST_CELLS (TRACE_STAGES * 2 * TRACE_BUCKETS)

/* The bucket of ns, lg being floor(log2(ns)) (0 for 0). */
static inline unsigned trace_bucket(unsigned long long ns, unsigned lg)
{
	unsigned b;

	if (ns < 2 * TRACE_SUB)
		return (unsigned)ns;
	b = (lg - 2) * TRACE_SUB + (unsigned)((ns >> (lg - 3)) & (TRACE_SUB - 1));
	return b < TRACE_BUCKETS ? b : TRACE_BUCKETS - 1;
}

/* The least value of bucket b. */
static inline unsigned long long trace_bucket_lo(unsigned b)
{
	unsigned lg;

	if (b < 2 * TRACE_SUB)
		return b;
	lg = b / TRACE_SUB + 2;
	return (unsigned long long)(TRACE_SUB + b % TRACE_SUB) << (lg - 3);
}

#endif
