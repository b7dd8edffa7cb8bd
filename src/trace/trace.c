/* trace.c: see trace.h. The loader (libbpf's skeleton of bpf/stages.bpf.c) and the sums. */
#include "trace/trace.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/util.h"
#include "trace/trace_abi.h"

#ifdef HAVE_LIBBPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "stages.skel.h"

/* The programs' CO-RE field reads and tp_btf tracepoints are resolved against it at load. */
#define KERNEL_BTF "/sys/kernel/btf/vmlinux"

struct trace {
	struct stages_bpf *skel;
	int ncpu;
};

int trace_check(char *err, size_t len)
{
	if (geteuid() != 0) {
		snprintf(err, len, "--trace needs root (it loads BPF programs on the kernel's "
			 "tracepoints): run as root, or leave --trace out");
		return -EPERM;
	}
	if (access(KERNEL_BTF, R_OK)) {
		snprintf(err, len, "--trace needs the kernel's BTF at " KERNEL_BTF " (its programs "
			 "find the kernel's fields there): a kernel with CONFIG_DEBUG_INFO_BTF");
		return -ENOENT;
	}
	return 0;
}

static void set_bit(volatile __u64 *set, long nr)
{
	if (nr >= 0 && nr < TRACE_SYSCALL_WORDS * 64)
		set[nr / 64] |= 1ULL << (nr % 64);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

struct trace *trace_open(const pid_t *clients, int n, pid_t server, char *err, size_t len)
{
	struct trace *t = xcalloc(1, sizeof(*t));
	static const long sends[] = {SYS_sendto, SYS_sendmsg, SYS_sendmmsg, SYS_write, SYS_writev};
	static const long recvs[] = {SYS_recvfrom, SYS_recvmsg, SYS_recvmmsg, SYS_read, SYS_readv};
	int ret;

	libbpf_set_print(quiet);
	t->ncpu = libbpf_num_possible_cpus();
	t->skel = stages_bpf__open();
	if (!t->skel || t->ncpu <= 0) {
		snprintf(err, len, "--trace: cannot open its BPF programs (%s)", strerror(errno));
		goto fail;
	}
	for (size_t i = 0; i < sizeof(sends) / sizeof(sends[0]); i++)
		set_bit(t->skel->rodata->send_calls, sends[i]);
	for (size_t i = 0; i < sizeof(recvs) / sizeof(recvs[0]); i++)
		set_bit(t->skel->rodata->recv_calls, recvs[i]);
	if ((ret = stages_bpf__load(t->skel))) {
		snprintf(err, len, "--trace: the kernel refused its BPF programs (%s): %s", strerror(-ret),
			 ret == -ENOMEM ? "no memory for its maps (raise the memlock limit)"
			 : "it needs BPF tracing programs (CONFIG_BPF_EVENTS) and the tracepoints "
			   "sk_data_ready and sock_recv_length (Linux 6.3 or later)");
		goto fail;
	}
	for (int i = 0; i <= n; i++) {
		__u32 pid = (__u32)(i < n ? clients[i] : server), side = i < n ? TRACE_SIDE_CLIENT
									       : TRACE_SIDE_SERVER;

		if (pid > 0 && bpf_map_update_elem(bpf_map__fd(t->skel->maps.tgids), &pid, &side, BPF_ANY)) {
			snprintf(err, len, "--trace: cannot name the run's processes to it (%s)",
				 strerror(errno));
			goto fail;
		}
	}
	if ((ret = stages_bpf__attach(t->skel))) {
		snprintf(err, len, "--trace: cannot attach to the kernel's tracepoints (%s)",
			 strerror(-ret));
		goto fail;
	}
	return t;
fail:
	trace_close(t);
	return NULL;
}

void trace_enable(struct trace *t)
{
	__atomic_store_n(&t->skel->bss->on, 1, __ATOMIC_RELEASE);
}

void trace_disable(struct trace *t)
{
	__atomic_store_n(&t->skel->bss->on, 0, __ATOMIC_RELEASE);
}

/* The sum over the CPUs of a per-CPU array's cell k. */
static unsigned long long cell(int fd, int ncpu, __u32 k)
{
	unsigned long long v[ncpu], sum = 0;

	if (bpf_map_lookup_elem(fd, &k, v))
		return 0;
	for (int c = 0; c < ncpu; c++)
		sum += v[c];
	return sum;
}

/* Every cell of the histograms, summed over the CPUs (xcalloc'd): in batches, a few system
 * calls, where a call a cell took 4,480 of them (0.4 s a traced run, each run of explore). */
static unsigned long long *hist_all(struct trace *t)
{
	int fd = bpf_map__fd(t->skel->maps.hist), nc = t->ncpu;
	unsigned long long *sum = xcalloc(TRACE_HIST_CELLS, sizeof(*sum));
	unsigned long long *v = xcalloc((size_t)TRACE_HIST_CELLS * (size_t)nc, sizeof(*v));
	__u32 *keys = xcalloc(TRACE_HIST_CELLS, sizeof(*keys)), got = 0, out = 0;
	bool first = true, ok = true;

	for (;;) {
		__u32 n = TRACE_HIST_CELLS - got;
		int ret = bpf_map_lookup_batch(fd, first ? NULL : &out, &out, keys + got,
					       v + (size_t)got * (size_t)nc, &n, NULL);

		first = false;
		if (ret && errno != ENOENT) {
			ok = false;
			break;
		}
		got += n;
		if (ret || got >= TRACE_HIST_CELLS) /* ENOENT: that was the last batch */
			break;
	}
	for (__u32 i = 0; ok && i < got; i++)
		for (int c = 0; c < nc && keys[i] < TRACE_HIST_CELLS; c++)
			sum[keys[i]] += v[(size_t)i * (size_t)nc + (size_t)c];
	if (!ok) /* no batches here: a cell at a time */
		for (__u32 k = 0; k < TRACE_HIST_CELLS; k++)
			sum[k] = cell(fd, nc, k);
	free(v);
	free(keys);
	return sum;
}

static const char *const stage_names[TRACE_STAGES] = {
	[TRACE_STAGE_SEND] = "send",	   [TRACE_STAGE_DEVICE] = "device",
	[TRACE_STAGE_SOFTIRQ] = "softirq", [TRACE_STAGE_SOCKET] = "socket",
	[TRACE_STAGE_WAKEUP] = "wakeup",   [TRACE_STAGE_RECV] = "receive",
	[TRACE_STAGE_USER] = "user",
};

/* The value at quantile q of a bucketed histogram, the middle of its bucket, in us. */
static double quantile_us(const unsigned long long *b, unsigned long long n, double q)
{
	unsigned long long want = (unsigned long long)ceil(q * (double)n), seen = 0;

	if (want < 1)
		want = 1;
	if (want > n)
		want = n;
	for (unsigned i = 0; i < TRACE_BUCKETS; i++) {
		seen += b[i];
		if (seen >= want) {
			unsigned long long lo = trace_bucket_lo(i);
			unsigned long long hi = i + 1 < TRACE_BUCKETS ? trace_bucket_lo(i + 1) : 2 * lo;

			return (double)(lo + hi) / 2 / 1e3;
		}
	}
	return 0;
}

cJSON *trace_json(struct trace *t)
{
	cJSON *j = cJSON_CreateObject(), *dirs = cJSON_AddObjectToObject(j, "directions");
	int cfd = bpf_map__fd(t->skel->maps.cnt);
	int sfd = bpf_map__fd(t->skel->maps.sums);
	static const char *const dir_names[2] = {"request", "answer"};
	static const char *const cnt_names[TRACE_CNT_N] = {
		"sent_by_clients", "sent_by_server", "read_by_server", "read_by_clients",
		"unfollowed", "sock_rcvqueue_full", "udp_fail_queue_rcv_skb", "tcp_retransmit_skb",
		"tcp_in_softirq", "tcp_in_process"};
	cJSON *c = cJSON_AddObjectToObject(j, "packets");
	unsigned long long *all = hist_all(t);

	for (int d = 0; d < 2; d++) {
		cJSON *dj = cJSON_AddObjectToObject(dirs, dir_names[d]);

		for (int s = 0; s < TRACE_STAGES; s++) {
			unsigned long long b[TRACE_BUCKETS], n = 0;
			cJSON *sj;

			for (unsigned i = 0; i < TRACE_BUCKETS; i++) {
				b[i] = all[(s * 2 + d) * TRACE_BUCKETS + i];
				n += b[i];
			}
			sj = cJSON_AddObjectToObject(dj, stage_names[s]);
			cJSON_AddNumberToObject(sj, "count", (double)n);
			/* The stage's whole time: over the round trips it adds up, as a mean. */
			cJSON_AddNumberToObject(sj, "total_us",
						(double)cell(sfd, t->ncpu, (__u32)(s * 2 + d)) / 1e3);
			if (!n)
				continue;
			cJSON_AddNumberToObject(sj, "p50_us", quantile_us(b, n, 0.5));
			cJSON_AddNumberToObject(sj, "p90_us", quantile_us(b, n, 0.9));
			cJSON_AddNumberToObject(sj, "p99_us", quantile_us(b, n, 0.99));
			cJSON_AddNumberToObject(sj, "p999_us", quantile_us(b, n, 0.999));
			unsigned top = TRACE_BUCKETS - 1;

			while (top && !b[top])
				top--;
			/* The top of the highest bucket that holds one: max within 12.5%, not below. */
			cJSON_AddNumberToObject(sj, "max_us_at_most",
						(double)(top + 1 < TRACE_BUCKETS ? trace_bucket_lo(top + 1)
										 : UINT64_MAX / 2) / 1e3);
		}
	}
	for (int k = 0; k < TRACE_CNT_N; k++)
		cJSON_AddNumberToObject(c, cnt_names[k], (double)cell(cfd, t->ncpu, (__u32)k));
	free(all);
	return j;
}

/* The links are tp_btf ones: each goes at once (a classic tracepoint's waited out an RCU grace
 * period in the kernel, 35-75 ms, in turn: 0.5 s a traced run). */
void trace_close(struct trace *t)
{
	if (!t)
		return;
	stages_bpf__destroy(t->skel);
	free(t);
}

#else /* no libbpf at build time */

struct trace {
	int unused;
};

int trace_check(char *err, size_t len)
{
	snprintf(err, len, "--trace: this sockbench was built without libbpf: install libbpf-dev, "
		 "bpftool and clang (scripts/deps run) and rebuild");
	return -ENOTSUP;
}

struct trace *trace_open(const pid_t *clients, int n, pid_t server, char *err, size_t len)
{
	(void)clients, (void)n, (void)server;
	trace_check(err, len);
	return NULL;
}

void trace_enable(struct trace *t) { (void)t; }
void trace_disable(struct trace *t) { (void)t; }
cJSON *trace_json(struct trace *t)
{
	(void)t;
	return NULL;
}
void trace_close(struct trace *t) { (void)t; }
#endif
