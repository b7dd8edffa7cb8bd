/* stages_sock.bpf.h: --trace's programs at the receiving socket: a packet queued to it
 * (sk_data_ready for UDP, tcp_probe for TCP, in softirq or from its backlog), read from it
 * (sock_recv_length), the queue set right when the socket is known empty or starts afresh,
 * and where TCP's receive processing ran. Included once, by stages.bpf.c. */
#ifndef SB_STAGES_SOCK_BPF_H
#define SB_STAGES_SOCK_BPF_H

#include "stages_maps.bpf.h"

/* A packet queued to socket sk now. */
static __always_inline void queued(__u64 sk, struct skb_info *s, __u64 now, __u32 len)
{
	struct sock_q *q = sock_q_of(sk);

	/* Already read, by a reader spinning on another CPU, between its queueing and this: a
	 * read that found nothing followed queued longer ago was another packet's (one sent
	 * before the programs started, or by a call not followed), and must not pair with this
	 * one (it did, packet after packet, for a reader one deep: each wait read as nil). */
	if (q && q->early && now - q->early_t > EARLY_NS)
		q->early = 0;
	if (q && q->early) {
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

SEC("tp_btf/sk_data_ready")
int BPF_PROG(on_data_ready, const struct sock *sk_p)
{
	__u32 z = 0;
	__u64 *cur = bpf_map_lookup_elem(&cur_rx, &z), now, sk = (__u64)sk_p, skb;
	struct skb_info *s;

	if (!cur || !*cur)
		return 0;
	skb = *cur;
	*cur = 0;
	/* TCP's are queued where tcp_probe names both the skb and the socket, in softirq or
	 * from the socket's backlog in the reader's context (on_tcp_probe). */
	if (sk_p->sk_protocol != 17 || !(s = bpf_map_lookup_elem(&skbs, &skb)) || !s->t_rx)
		return 0;
	now = bpf_ktime_get_ns();
	record(TRACE_STAGE_SOFTIRQ, s->dir, now - s->t_rx);
	queued(sk, s, now, 1);
	bpf_map_delete_elem(&skbs, &skb);
	return 0;
}

/* A TCP socket connected, or closed: what the queue here held was an earlier socket's at that
 * address (tcp-crr reuses them by the thousand a second). */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(on_set_state, const struct sock *sk_p, const int oldstate, const int newstate)
{
	__u64 sk = (__u64)sk_p;

	if (newstate == 1 /* TCP_ESTABLISHED */ || newstate == 7 /* TCP_CLOSE */)
		bpf_map_delete_elem(&socks, &sk);
	return 0;
}

#define NET_RX_VEC 3

static __always_inline int set_in_rx(unsigned int vec, __u32 v)
{
	__u32 z = 0, *r;
	__u64 *cur;

	if (vec != NET_RX_VEC || !(r = bpf_map_lookup_elem(&in_rx, &z)))
		return 0;
	*r = v;
	if (!v && (cur = bpf_map_lookup_elem(&cur_rx, &z)))
		*cur = 0; /* its packet's socket step is over */
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(on_softirq_entry, unsigned int vec)
{
	return set_in_rx(vec, 1);
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(on_softirq_exit, unsigned int vec)
{
	return set_in_rx(vec, 0);
}

/* The segment's payload bytes, as tcp_probe's format computes its data_len: its length less
 * its TCP header's, at skb->data there. Whole: the format's __u16 cut the segments a socket's
 * backlog merges (up to 392,898 bytes in a tcp-stream here). The header is packet memory,
 * not a BTF struct's: read with bpf_probe_read_kernel, its doff bits where the kernel's BTF
 * puts them. */
static __always_inline __u32 tcp_payload(const struct sk_buff *skb)
{
	const struct tcphdr *th = (const void *)skb->data;

	return skb->len - (__u32)BPF_CORE_READ_BITFIELD_PROBED(th, doff) * 4;
}

/* A TCP segment an established socket processes: one with data is queued to it now, in the
 * NET_RX softirq or in the process that owned the socket (its backlog, at release_sock). */
SEC("tp_btf/tcp_probe")
int BPF_PROG(on_tcp_probe, struct sock *sk_p, const struct sk_buff *skb_p)
{
	__u64 skb = (__u64)skb_p, now;
	struct skb_info *s;
	__u32 z = 0, *r, len;

	if (!(s = bpf_map_lookup_elem(&skbs, &skb)) || !s->t_rx || !(len = tcp_payload(skb_p)))
		return 0;
	r = bpf_map_lookup_elem(&in_rx, &z);
	count(r && *r ? TRACE_CNT_TCP_SOFTIRQ : TRACE_CNT_TCP_PROCESS);
	now = bpf_ktime_get_ns();
	record(TRACE_STAGE_SOFTIRQ, s->dir, now - s->t_rx);
	queued((__u64)sk_p, s, now, len);
	bpf_map_delete_elem(&skbs, &skb);
	return 0;
}

/* A packet copied to thread t in its receiving call, now. */
static __always_inline void copied(struct tid_info *t, __u32 dir, __u64 now)
{
	if (!t->n_copied) {
		t->t_copy = now;
		t->copy_dir = dir;
	}
	t->n_copied++;
	t->copy_sum += now;
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
	copied(t, dir, now);
}

/* A read of the socket: the oldest datagram queued (UDP), or all that was queued (TCP, whose
 * segments may merge). The programs follow every packet from their start, before the run's
 * traffic, so the queue here is the socket's. */
SEC("tp_btf/sock_recv_length")
int BPF_PROG(on_recv_length, struct sock *sk_p, int ret, int flags)
{
	__u64 sk = (__u64)sk_p, now;
	struct tid_info *t;
	struct sock_q *q;

	if ((ret <= 0 && ret != -11) || (flags & 2 /* MSG_PEEK */) || !(t = ours()) ||
	    !(q = sock_q_of(sk)))
		return 0;
	if (ret == -11) {
		/* EAGAIN: the socket is empty now, so is its queue here. What is left in it was
		 * read unseen, and would pair every later read with an older packet (each wait
		 * one arrival too long, for as long as the run). */
		q->head = q->tail;
		q->early = 0;
		return 0;
	}
	now = bpf_ktime_get_ns();
	if (sk_p->sk_protocol == 17) {
		if (q->head == q->tail) {
			/* Read between its queueing and sk_data_ready (a reader on another CPU): its
			 * wait was nil, told when it is seen queued. */
			if (q->early < RING)
				q->early++;
			q->early_t = now;
			t->udp_sk = sk;
			copied(t, t->side == TRACE_SIDE_CLIENT, now);
			return 0;
		}
		t->udp_sk = sk;
		one_read(t, q->t[q->head & (RING - 1)], q->dir[q->head & (RING - 1)], now);
		q->head++;
		return 0;
	}
	/* TCP: the bytes read take the queued segments in order; a segment is read when its last
	 * byte is (a read of part of one leaves the rest queued). tcp_probe comes before its
	 * data is queued, so no read is early; nothing followed queued: not ours to time. */
	__u32 left = (__u32)ret;

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

#endif
