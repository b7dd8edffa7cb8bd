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
#include "stages_maps.bpf.h"

/* The thread's first send call since it last read: each packet those reads took waited in
 * its user space until now (the user stage, under the direction of the send to come: the
 * server's before its answer, a client's before its next request). */
static __noinline void burst_starts(struct tid_info *t, __u64 now)
{
	__u32 dir = t->side == TRACE_SIDE_SERVER;

	for (__u32 i = 0; i < PENDING; i++) {
		if (i >= t->pending)
			break;
		__u64 w = now > t->exit_t[i] ? now - t->exit_t[i] : 0;
		__u32 n = t->exit_n[i];

		record_n(TRACE_STAGE_USER, dir, w, n, w * n);
	}
	t->pending = 0;
	t->t_first = now;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id)
{
	struct tid_info *t;
	__u64 now;

	if (bit(recv_calls, id)) {
		if ((t = ours()))
			t->in_recv = 1;
		return 0;
	}
	if (!bit(send_calls, id) || !(t = ours()))
		return 0;
	now = bpf_ktime_get_ns();
	t->t_send = now;
	if (!t->t_first || t->pending)
		burst_starts(t, now);
	return 0;
}

/* A receiving call's exit: its packets' receive stage (copy -> exit; those of one call by
 * their mean copy), then they wait for the thread's next send. */
static __noinline void recv_exit(struct tid_info *t, __u64 now)
{
	__u32 n = t->n_copied, i = t->pending;
	__u64 total = n * now - t->copy_sum;

	if (n)
		record_n(TRACE_STAGE_RECV, t->copy_dir, total / n, n, total);
	t->t_copy = 0;
	t->copy_sum = 0;
	t->n_copied = 0;
	t->t_first = 0;
	if (!n)
		return;
	if (i >= PENDING) { /* more calls than kept: told as the last one's (a little later) */
		i = PENDING - 1;
		n += t->exit_n[i & (PENDING - 1)];
	} else {
		t->pending = i + 1;
	}
	t->exit_t[i & (PENDING - 1)] = now;
	t->exit_n[i & (PENDING - 1)] = n;
}

/* sys_exit's arguments are the registers and the return value: the call's number is in a
 * register each architecture names its own way. The thread's state from the call's entry says
 * which it was instead (t_send: a send; in_recv: a read; neither: any other). */
SEC("tp_btf/sys_exit")
int on_sys_exit(void *ctx)
{
	struct tid_info *t;

	if (!(t = ours()))
		return 0;
	if (t->t_send) {
		t->t_send = 0;
		return 0;
	}
	if (t->in_recv) {
		t->in_recv = 0;
		recv_exit(t, bpf_ktime_get_ns());
		return 0;
	}
	/* Any other call (a wait, a timer): the thread's burst is over, and what it read is
	 * answered later by its schedule, not at once (the open loop): no user stage. */
	t->t_first = 0;
	t->pending = 0;
	return 0;
}

/* An skb is known by its address (a map key, the pointer's value). */
SEC("tp_btf/net_dev_queue")
int BPF_PROG(on_dev_queue, struct sk_buff *skb_p)
{
	struct tid_info *t;
	__u64 now, skb = (__u64)skb_p;

	__u32 z = 0, *r = bpf_map_lookup_elem(&in_rx, &z);

	/* In the NET_RX softirq (run inline in a send call on loopback): the receiver's ACK or
	 * answer, not this call's packet. */
	if (!(t = ours()) || !t->t_send || (r && *r))
		return 0;
	now = bpf_ktime_get_ns();
	struct skb_info s = {.t_queue = now, .dir = t->side == TRACE_SIDE_SERVER};

	/* From the burst's first send call: a packet behind the thread's earlier sends of the
	 * burst waited for them in its sender. */
	record(TRACE_STAGE_SEND, s.dir, now - (t->t_first ? t->t_first : t->t_send));
	bpf_map_update_elem(&skbs, &skb, &s, BPF_ANY);
	count(s.dir ? TRACE_CNT_SENT_SERVER : TRACE_CNT_SENT_CLIENT);
	return 0;
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(on_receive_skb, struct sk_buff *skb_p)
{
	__u64 skb = (__u64)skb_p, now;
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
	/* Taken in already long ago: a packet of ours lost before its socket (never freed in
	 * our sight), whose address another's skb has now. */
	if (s->t_rx && now - s->t_rx > REPASS_NS) {
		bpf_map_delete_elem(&skbs, &skb);
		return 0;
	}
	if (!s->t_rx) { /* its first pass (a bridge or vlan may show it twice, at once) */
		s->t_rx = now;
		record(TRACE_STAGE_DEVICE, s->dir, now - s->t_queue);
	}
	*cur = skb;
	return 0;
}

#include "stages_sock.bpf.h"

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	__u32 tid = p->pid;
	struct tid_info *t;

	if (!(t = bpf_map_lookup_elem(&tids, &tid)))
		return 0;
	t->t_wake = bpf_ktime_get_ns();
	t->t_running = 0;
	return 0;
}

/* TASK_INTERRUPTIBLE (S) and TASK_UNINTERRUPTIBLE (D), less TASK_IDLE (D with TASK_NOLOAD:
 * a kernel thread's idle wait, told I, not D, by the sched_switch format): as that format's
 * prev_state & 3 was, on every switch of a tcp-rr and a udp-rr run here. */
#define ASLEEP_STATES 3
#define TASK_NOLOAD 0x400

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 tid = prev->pid;
	struct tid_info *t = bpf_map_lookup_elem(&tids, &tid);
	struct sock_q *q;

	/* A reader asleep in its receiving call (S or D, not preempted): its UDP socket is empty,
	 * so is its queue here. A read seen early whose sk_data_ready came late left one packet
	 * in it for good (every wait then one arrival too long). A preempted task's prev_state is
	 * the sleep it was about to enter, not one it is in: it still runs. */
	if (t && t->in_recv && !preempt && (prev_state & ASLEEP_STATES) &&
	    !(prev_state & TASK_NOLOAD) && t->udp_sk &&
	    (q = bpf_map_lookup_elem(&socks, &t->udp_sk))) {
		q->head = q->tail;
		q->early = 0;
	}
	tid = next->pid;

	if (!(t = bpf_map_lookup_elem(&tids, &tid)))
		return 0;
	if (t->t_wake && !t->t_running)
		t->t_running = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sock_rcvqueue_full")
int on_rcvqueue_full(void *ctx)
{
	if (on)
		count(TRACE_CNT_RCVQ_FULL);
	return 0;
}

SEC("tp_btf/udp_fail_queue_rcv_skb")
int on_udp_fail(void *ctx)
{
	if (on)
		count(TRACE_CNT_UDP_FAIL);
	return 0;
}

SEC("tp_btf/tcp_retransmit_skb")
int on_retransmit(void *ctx)
{
	if (on)
		count(TRACE_CNT_RETRANS);
	return 0;
}
