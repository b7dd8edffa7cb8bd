// SPDX-License-Identifier: GPL-2.0
/* stages.bpf.c: --trace's programs. Each packet a process of the run sends is followed by its
 * skb from the sending system call to the receiving one, on stable tracepoints only:
 *
 *   send     the send call's entry (raw_syscalls) -> the skb queued to the device (net_dev_queue)
 *   device   -> taken off the device or backlog queue in softirq (netif_receive_skb)
 *   softirq  -> queued to the receiving socket (sk_data_ready, same CPU, same softirq)
 *   socket   -> read by the receiving process (sock_recv_length: a UDP read takes the oldest
 *              datagram queued, a TCP read the bytes of the segments in order), less the
 *              wake-up
 *   wakeup   the reader's sched_wakeup -> sched_switch to it, when it fell inside the above
 *   receive  that read -> the receiving call's exit
 *   user     a thread's receiving call's exit -> its next send call's entry
 *
 * Per stage and direction (the side that sent: 0 the clients, 1 the server) a histogram of
 * log-linear buckets, per CPU; user space adds them up. The packets are followed from the
 * programs' start (before the run's traffic: a socket's queue is known whole), recorded only
 * while .on (the window). */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#include "../trace_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* Bit n: system call n sends / reads (user space sets them; ids up to 511). */
volatile const __u64 send_calls[TRACE_SYSCALL_WORDS] = {};
volatile const __u64 recv_calls[TRACE_SYSCALL_WORDS] = {};
volatile __u32 on = 0;

#define STALE_NS 1000000000ULL /* an skb of ours not delivered in a second: a dropped one's */

struct skb_info {
	__u64 t_queue, t_rx, t_sock;
	__u32 dir;
	__u32 pad;
};

struct tid_info {
	__u64 t_send;	  /* in a send call since (0: not) */
	__u64 t_copy;	  /* the last copy to it, not yet returned (0: none) */
	__u64 t_exit;	  /* its last receiving call's exit */
	__u64 t_wake;	  /* its last wake-up */
	__u64 t_running;  /* running again after that wake-up */
	__u32 side;	  /* TRACE_SIDE_CLIENT or _SERVER */
	__u32 copy_dir;
	__u32 tgid;	  /* its process (a tid is reused once its thread is gone) */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
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

static __noinline void record(__u32 stage, __u32 dir, __u64 ns)
{
	__u32 b = trace_bucket(ns, ilog2(ns | 1));
	__u32 k = (stage * 2 + (dir & 1)) * TRACE_BUCKETS + b;
	__u64 *c;

	if (!on || k >= TRACE_HIST_CELLS)
		return;
	c = bpf_map_lookup_elem(&hist, &k);
	if (c)
		(*c)++;
	k = stage * 2 + (dir & 1);
	c = bpf_map_lookup_elem(&sums, &k);
	if (c)
		*c += ns;
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

struct sys_enter_ctx { __u64 common; long id; unsigned long args[6]; };
struct sys_exit_ctx { __u64 common; long id; long ret; };

SEC("tracepoint/raw_syscalls/sys_enter")
int on_sys_enter(struct sys_enter_ctx *ctx)
{
	struct tid_info *t;
	__u64 now;

	if (!bit(send_calls, ctx->id) || !(t = ours()))
		return 0;
	now = bpf_ktime_get_ns();
	t->t_send = now;
	if (t->t_exit && now > t->t_exit)
		record(TRACE_STAGE_USER, t->side == TRACE_SIDE_SERVER, now - t->t_exit);
	t->t_exit = 0;
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int on_sys_exit(struct sys_exit_ctx *ctx)
{
	struct tid_info *t;
	__u64 now;

	if (!(t = ours()))
		return 0;
	if (bit(send_calls, ctx->id)) {
		t->t_send = 0;
		return 0;
	}
	if (!bit(recv_calls, ctx->id))
		return 0;
	now = bpf_ktime_get_ns();
	if (t->t_copy) {
		record(TRACE_STAGE_RECV, t->copy_dir, now - t->t_copy);
		t->t_copy = 0;
		t->t_exit = now;
	}
	return 0;
}

struct skb_ctx { __u64 common; __u64 skbaddr; };

SEC("tracepoint/net/net_dev_queue")
int on_dev_queue(struct skb_ctx *ctx)
{
	struct tid_info *t;
	__u64 now, skb = ctx->skbaddr;

	if (!(t = ours()) || !t->t_send)
		return 0;
	now = bpf_ktime_get_ns();
	struct skb_info s = {.t_queue = now, .dir = t->side == TRACE_SIDE_SERVER};

	record(TRACE_STAGE_SEND, s.dir, now - t->t_send);
	bpf_map_update_elem(&skbs, &skb, &s, BPF_ANY);
	count(s.dir ? TRACE_CNT_SENT_SERVER : TRACE_CNT_SENT_CLIENT);
	return 0;
}

SEC("tracepoint/net/netif_receive_skb")
int on_receive_skb(struct skb_ctx *ctx)
{
	__u64 skb = ctx->skbaddr, now;
	struct skb_info *s;
	__u32 z = 0;
	__u64 *cur = bpf_map_lookup_elem(&cur_rx, &z);

	if (!cur)
		return 0;
	*cur = 0;
	s = bpf_map_lookup_elem(&skbs, &skb);
	if (!s)
		return 0;
	now = bpf_ktime_get_ns();
	/* An address a freed skb of ours had (dropped on the way, never delivered) now another
	 * packet's: stale after a second. */
	if (now - s->t_queue > STALE_NS) {
		bpf_map_delete_elem(&skbs, &skb);
		return 0;
	}
	if (!s->t_rx) { /* its first pass (a bridge or vlan may show it twice) */
		s->t_rx = now;
		record(TRACE_STAGE_DEVICE, s->dir, now - s->t_queue);
	}
	*cur = skb;
	return 0;
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

struct sk_ctx { __u64 common; __u64 skaddr; __u16 family; __u16 protocol; };

/* A packet queued to socket sk now. */
static __always_inline void queued(__u64 sk, struct skb_info *s, __u64 now, __u32 len)
{
	struct sock_q *q = sock_q_of(sk);

	if (q && q->early) { /* already read, by a reader spinning on another CPU */
		q->early--;
		record(TRACE_STAGE_SOCKET, s->dir, 0);
		count(s->dir ? TRACE_CNT_READ_BY_CLIENTS : TRACE_CNT_READ_BY_SERVER);
	} else if (q && q->tail - q->head < RING) {
		q->t[q->tail & (RING - 1)] = now;
		q->dir[q->tail & (RING - 1)] = s->dir;
		q->len[q->tail & (RING - 1)] = len;
		q->tail++;
	} else {
		count(TRACE_CNT_UNFOLLOWED);
	}
}

SEC("tracepoint/sock/sk_data_ready")
int on_data_ready(struct sk_ctx *ctx)
{
	__u32 z = 0;
	__u64 *cur = bpf_map_lookup_elem(&cur_rx, &z), now, sk = ctx->skaddr, skb;
	struct skb_info *s;

	if (!cur || !*cur)
		return 0;
	skb = *cur;
	*cur = 0;
	/* TCP's are queued where tcp_probe names both the skb and the socket, in softirq or
	 * from the socket's backlog in the reader's context (on_tcp_probe). */
	if (ctx->protocol != 17 || !(s = bpf_map_lookup_elem(&skbs, &skb)) || !s->t_rx)
		return 0;
	now = bpf_ktime_get_ns();
	record(TRACE_STAGE_SOFTIRQ, s->dir, now - s->t_rx);
	queued(sk, s, now, 1);
	bpf_map_delete_elem(&skbs, &skb);
	return 0;
}

struct tcp_probe_ctx {
	__u64 common;
	__u8 saddr[28], daddr[28];
	__u16 sport, dport, family, pad;
	__u32 mark;
	__u16 data_len, pad2;
	__u32 snd_nxt, snd_una, snd_cwnd, ssthresh, snd_wnd, srtt, rcv_wnd, pad3;
	__u64 sock_cookie, skbaddr, skaddr;
};

/* A TCP segment an established socket processes: one with data is queued to it now. */
SEC("tracepoint/tcp/tcp_probe")
int on_tcp_probe(struct tcp_probe_ctx *ctx)
{
	__u64 skb = ctx->skbaddr, now;
	struct skb_info *s;

	if (!ctx->data_len || !(s = bpf_map_lookup_elem(&skbs, &skb)) || !s->t_rx)
		return 0;
	now = bpf_ktime_get_ns();
	record(TRACE_STAGE_SOFTIRQ, s->dir, now - s->t_rx);
	queued(ctx->skaddr, s, now, ctx->data_len);
	bpf_map_delete_elem(&skbs, &skb);
	return 0;
}

/* A packet queued at tq read by thread t now: the socket and wake-up stages. */
static __noinline void one_read(struct tid_info *t, __u64 tq, __u32 dir, __u64 now)
{
	__u64 w = 0, wait = now > tq ? now - tq : 0;

	/* Woken after the packet was queued, and running again before this read: that wait for
	 * a CPU is the wake-up stage, the rest the socket's. */
	if (t->t_wake >= tq && t->t_running >= t->t_wake && t->t_running <= now) {
		w = t->t_running - t->t_wake;
		record(TRACE_STAGE_WAKEUP, dir, w);
	}
	record(TRACE_STAGE_SOCKET, dir, wait - (w < wait ? w : wait));
	count(dir ? TRACE_CNT_READ_BY_CLIENTS : TRACE_CNT_READ_BY_SERVER);
	if (!t->t_copy) {
		t->t_copy = now;
		t->copy_dir = dir;
	}
}

struct recv_len_ctx { __u64 common; __u64 sk; __u16 family; __u16 protocol; int ret; int flags; };

/* A read of the socket: the oldest datagram queued (UDP), or all that was queued (TCP, whose
 * segments may merge). The programs follow every packet from their start, before the run's
 * traffic, so the queue here is the socket's. */
SEC("tracepoint/sock/sock_recv_length")
int on_recv_length(struct recv_len_ctx *ctx)
{
	__u64 sk = ctx->sk, now;
	struct tid_info *t;
	struct sock_q *q;

	if (ctx->ret <= 0 || (ctx->flags & 2 /* MSG_PEEK */) || !(t = ours()) ||
	    !(q = sock_q_of(sk)))
		return 0;
	now = bpf_ktime_get_ns();
	if (ctx->protocol == 17) {
		if (q->head == q->tail) {
			/* Read between its queueing and sk_data_ready (a reader on another CPU): its
			 * wait was nil, told when it is seen queued. */
			if (q->early < RING)
				q->early++;
			if (!t->t_copy) {
				t->t_copy = now;
				t->copy_dir = t->side == TRACE_SIDE_CLIENT;
			}
			return 0;
		}
		one_read(t, q->t[q->head & (RING - 1)], q->dir[q->head & (RING - 1)], now);
		q->head++;
		return 0;
	}
	/* TCP: the bytes read take the queued segments in order; a segment is read when its last
	 * byte is (a read of part of one leaves the rest queued). tcp_probe comes before its
	 * data is queued, so no read is early; nothing followed queued: not ours to time. */
	__u32 left = (__u32)ctx->ret;

	for (int k = 0; k < 16 && q->head != q->tail && left; k++) {
		__u32 i = q->head & (RING - 1);

		if (q->len[i] > left) {
			q->len[i] -= left;
			break;
		}
		left -= q->len[i];
		one_read(t, q->t[i], q->dir[i], now);
		q->head++;
	}
	return 0;
}

struct wakeup_ctx { __u64 common; char comm[16]; int pid; };
struct switch_ctx { __u64 common; char prev_comm[16]; int prev_pid; int prev_prio; long prev_state;
		    char next_comm[16]; int next_pid; };

SEC("tracepoint/sched/sched_wakeup")
int on_wakeup(struct wakeup_ctx *ctx)
{
	__u32 tid = ctx->pid;
	struct tid_info *t;

	if (!(t = bpf_map_lookup_elem(&tids, &tid)))
		return 0;
	t->t_wake = bpf_ktime_get_ns();
	t->t_running = 0;
	return 0;
}

SEC("tracepoint/sched/sched_switch")
int on_switch(struct switch_ctx *ctx)
{
	__u32 tid = ctx->next_pid;
	struct tid_info *t;

	if (!(t = bpf_map_lookup_elem(&tids, &tid)))
		return 0;
	if (t->t_wake && !t->t_running)
		t->t_running = bpf_ktime_get_ns();
	return 0;
}

SEC("tracepoint/sock/sock_rcvqueue_full")
int on_rcvqueue_full(void *ctx)
{
	if (on)
		count(TRACE_CNT_RCVQ_FULL);
	return 0;
}

SEC("tracepoint/udp/udp_fail_queue_rcv_skb")
int on_udp_fail(void *ctx)
{
	if (on)
		count(TRACE_CNT_UDP_FAIL);
	return 0;
}

SEC("tracepoint/tcp/tcp_retransmit_skb")
int on_retransmit(void *ctx)
{
	if (on)
		count(TRACE_CNT_RETRANS);
	return 0;
}
