/* stages_maps.bpf.h: --trace's maps, state and helpers, shared by the programs of
 * stages.bpf.c and stages_sock.bpf.h (one BPF object: included once, by stages.bpf.c). */
#ifndef SB_STAGES_MAPS_BPF_H
#define SB_STAGES_MAPS_BPF_H

#include <linux/bpf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "../trace_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* The programs are tp_btf ones (BPF on the tracepoint's own arguments, the kernel structs its
 * caller passes): letting one go is at once, where a classic tracepoint's waited out an RCU
 * grace period in the kernel (35-75 ms each, in turn). The fields read, and only those: CO-RE
 * (libbpf) finds each one's offset in the running kernel's BTF when the programs load. */
struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct sock {
	__u16 sk_protocol;
} __attribute__((preserve_access_index));

struct sk_buff {
	unsigned int len;
	unsigned char *data;
} __attribute__((preserve_access_index));

struct tcphdr {
	__u16 doff:4; /* its bits in the word: the kernel's BTF says (a bit-field relocation) */
} __attribute__((preserve_access_index));

/* Bit n: system call n sends / reads (user space sets them; ids up to 511). */
volatile const __u64 send_calls[TRACE_SYSCALL_WORDS] = {};
volatile const __u64 recv_calls[TRACE_SYSCALL_WORDS] = {};
volatile __u32 on = 0;

#define STALE_NS 1000000000ULL /* an skb of ours not delivered in a second: a dropped one's */
/* A UDP read before sk_data_ready is seen for its datagram comes while the enqueueing CPU is
 * between the two (a few us, an interrupt at most); older than this it was another's. */
#define EARLY_NS 20000ULL
#define REPASS_NS 1000000ULL /* a second netif_receive_skb of one packet comes within this */

struct skb_info {
	__u64 t_queue, t_rx, t_sock;
	__u32 dir;
	__u32 pad;
};

#define PENDING 16 /* receiving calls whose packets wait for the thread's next send */

struct tid_info {
	__u64 t_send;	  /* in a send call since (0: not) */
	__u64 t_first;	  /* the first send call of this burst (0: none since its last read) */
	__u64 t_copy;	  /* the first copy to it in this call (0: none) */
	__u64 copy_sum;	  /* the copies' times in this call, summed */
	__u64 t_wake;	  /* its last wake-up */
	__u64 t_running;  /* running again after that wake-up */
	__u64 exit_t[PENDING]; /* receiving calls' exits since its last send, with their packets */
	__u32 exit_n[PENDING];
	__u32 pending;
	__u32 n_copied;	  /* packets copied to it in this call */
	__u32 side;	  /* TRACE_SIDE_CLIENT or _SERVER */
	__u32 copy_dir;
	__u32 tgid;	  /* its process (a tid is reused once its thread is gone) */
	__u32 in_recv;	  /* inside a receiving call */
	__u64 udp_sk;	  /* the UDP socket it last read */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096); /* the run's threads; some 300 bytes each */
	__type(key, __u32);
	__type(value, struct tid_info);
} tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct skb_info);
} skbs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cur_rx SEC(".maps");

/* This CPU is in the NET_RX softirq (1) or not (0). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} in_rx SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TRACE_HIST_CELLS);
	__type(key, __u32);
	__type(value, __u64);
} hist SEC(".maps");

/* Each stage's total, per direction (ns): the means add up as the round trip's does. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TRACE_STAGES * 2);
	__type(key, __u32);
	__type(value, __u64);
} sums SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TRACE_CNT_N);
	__type(key, __u32);
	__type(value, __u64);
} cnt SEC(".maps");

static __always_inline void count(__u32 k)
{
	__u64 *c;

	if (!on)
		return;
	c = bpf_map_lookup_elem(&cnt, &k);

	if (c)
		(*c)++;
}

/* floor(log2(v)) for v > 0, without loops. */
static __always_inline __u32 ilog2(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
}

/* n packets that spent ns each in a stage (total_ns in all: the mean stays exact where a
 * call's packets are told by their mean). */
__noinline int record_n(__u32 stage, __u32 dir, __u64 ns, __u32 n, __u64 total_ns)
{
	__u32 b = trace_bucket(ns, ilog2(ns | 1));
	__u32 k = (stage * 2 + (dir & 1)) * TRACE_BUCKETS + b;
	__u64 *c;

	if (!on || k >= TRACE_HIST_CELLS)
		return 0;
	c = bpf_map_lookup_elem(&hist, &k);
	if (c)
		*c += n;
	k = stage * 2 + (dir & 1);
	c = bpf_map_lookup_elem(&sums, &k);
	if (c)
		*c += total_ns;
	return 0;
}

static __always_inline void record(__u32 stage, __u32 dir, __u64 ns)
{
	record_n(stage, dir, ns, 1, ns);
}

static __always_inline int bit(volatile const __u64 *set, long id)
{
	if (id < 0 || id >= TRACE_SYSCALL_WORDS * 64)
		return 0;
	return (set[(id >> 6) & (TRACE_SYSCALL_WORDS - 1)] >> (id & 63)) & 1;
}

/* The thread's record when it is one of the run's (its process's side set), else NULL. */
static __always_inline struct tid_info *ours(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct tid_info *t = bpf_map_lookup_elem(&tids, &tid);
	__u32 *side;

	if (t && t->tgid == tgid)
		return t;
	side = bpf_map_lookup_elem(&tgids, &tgid);
	if (!side) {
		if (t) /* another process's thread now: not ours */
			bpf_map_delete_elem(&tids, &tid);
		return NULL;
	}
	struct tid_info n = {.side = *side, .tgid = tgid};

	bpf_map_update_elem(&tids, &tid, &n, BPF_ANY);
	return bpf_map_lookup_elem(&tids, &tid);
}

#define RING 256

/* A socket's packets queued and not yet read, oldest first: when each was queued, and its
 * direction. */
struct sock_q {
	__u64 t[RING];
	__u32 dir[RING];
	__u32 len[RING]; /* TCP: its payload bytes not yet read */
	__u32 head, tail;
	__u32 early; /* UDP: reads that came before sk_data_ready was seen */
	__u32 pad;
	__u64 early_t; /* the last of them */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024); /* 4 KiB each: 4 MiB, least recently used out */
	__type(key, __u64);
	__type(value, struct sock_q);
} socks SEC(".maps");

/* An empty sock_q to copy from (too large for the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sock_q);
} empty_q SEC(".maps");

static __always_inline struct sock_q *sock_q_of(__u64 sk)
{
	struct sock_q *q = bpf_map_lookup_elem(&socks, &sk), *e;
	__u32 z = 0;

	if (q || !(e = bpf_map_lookup_elem(&empty_q, &z)))
		return q;
	bpf_map_update_elem(&socks, &sk, e, BPF_NOEXIST);
	return bpf_map_lookup_elem(&socks, &sk);
}

#endif
