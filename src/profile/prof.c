/* prof.c: see prof.h. */
#include "profile/prof.h"
#include "profile/prof_priv.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/util.h"
#include "profile/usyms.h"

static bool is_softirq_frame(const char *n)
{
	return !strcmp(n, "handle_softirqs") || !strcmp(n, "__do_softirq") ||
	       !strcmp(n, "net_rx_action") || !strcmp(n, "do_softirq");
}

/* The syscall a handler frame stands for: "__x64_sys_sendmsg", "__sys_sendmsg",
 * "do_sys_poll", "ksys_read" -> "sendmsg", "sendmsg", "poll", "read"; NULL for a frame that
 * is no handler. */
static const char *syscall_name(const char *n)
{
	if (!strncmp(n, "exit_to_user_mode", 17) || !strncmp(n, "syscall_exit", 12))
		return "(syscall exit: rescheduling, signals)";
	static const char *const prefixes[] = {"__x64_sys_", "__ia32_sys_", "__arm64_sys_",
					       "__se_sys_",  "__do_sys_",   "__sys_",
					       "do_sys_",    "ksys_",	    "sys_"};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(n, prefixes[i], strlen(prefixes[i])) && n[strlen(prefixes[i])])
			return n + strlen(prefixes[i]);
	return NULL; /* not a handler: an irq-enable, a thunk, the entry's own work */
}

/* The syscall dispatcher frames: the handler is the first frame inside them. */
static bool is_dispatch(const char *n)
{
	return !strcmp(n, "do_syscall_64") || !strcmp(n, "x64_sys_call") ||
	       !strncmp(n, "entry_SYSCALL", 13) || !strcmp(n, "do_int80_syscall_32") ||
	       !strcmp(n, "__do_fast_syscall_32") || !strcmp(n, "invoke_syscall") ||
	       !strcmp(n, "el0_svc_common");
}

struct prof *prof_create(struct ksyms *k, int hz, bool folded)
{
	struct prof *p = xcalloc(1, sizeof(*p));

	p->k = k;
	p->hz = hz;
	p->want_folded = folded;
	p->event = "cpu-clock";
	p->func = xcalloc((size_t)ksyms_count(k) + 1, sizeof(*p->func));
	if (folded)
		p->folds = xcalloc(FOLD_SLOTS, sizeof(*p->folds));
	for (int i = 0; i < MAX_CPUS; i++)
		p->fd[i] = -1;
	p->scratch = xmalloc(65536);
	p->u = usyms_create();
	return p;
}

void prof_destroy(struct prof *p)
{
	if (!p)
		return;
	for (int c = 0; c < p->ncpu; c++) {
		if (p->ring[c])
			munmap(p->ring[c], p->ring_len);
		if (p->fd[c] >= 0)
			close(p->fd[c]);
	}
	for (int i = 0; p->folds && i < FOLD_SLOTS; i++)
		free(p->folds[i].frames);
	free(p->folds);
	free(p->func);
	free(p->clients);
	free(p->scratch);
	usyms_free(p->u);
	free(p);
}

void prof_set_pids(struct prof *p, const pid_t *clients, int n, pid_t server)
{
	free(p->clients);
	p->clients = xcalloc((size_t)n + 1, sizeof(pid_t));
	memcpy(p->clients, clients, (size_t)n * sizeof(pid_t));
	p->nclients = n;
	p->server = server;
}

/* The user instruction pointer's bit in sample_regs_user, where this arch is known. */
#if defined(__x86_64__)
#include <asm/perf_regs.h>
#define USER_IP_REG (1ULL << PERF_REG_X86_IP)
#elif defined(__aarch64__)
#include <asm/perf_regs.h>
#define USER_IP_REG (1ULL << PERF_REG_ARM64_PC)
#else
#define USER_IP_REG 0ULL
#endif

/* Kernel callchains only (a user stack walk costs far more), and the user instruction
 * pointer: the one witness of which syscall a sample with no handler frame was in. */
static int open_event(struct prof *p, int cpu, bool hw)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
		.config = hw ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = (uint64_t)p->hz,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN |
			       (p->user_ip ? PERF_SAMPLE_REGS_USER : 0),
		.sample_regs_user = p->user_ip ? USER_IP_REG : 0,
		.exclude_callchain_user = 1,
		.disabled = 1,
	};

	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void permission_hint(char *err, size_t errlen, int e)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int level = 99;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 99;
		fclose(f);
	}
	snprintf(err, errlen,
		 "perf_event_open refused (%s): system-wide sampling needs CAP_PERFMON or "
		 "CAP_SYS_ADMIN (run as root), or /proc/sys/kernel/perf_event_paranoid at -1 (it is "
		 "%d)",
		 strerror(e), level);
}

void prof_use_cycles(struct prof *p)
{
	p->want_cycles = true;
}

uint64_t prof_fold_overflow(const struct prof *p)
{
	return p->fold_overflow;
}

int prof_open(struct prof *p, char *err, size_t errlen)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	/* A clock by default: its shares are of time, idle included; cycles stop on a halted CPU,
	 * so idle and every share of all time would be wrong on bare metal. */
	bool hw = p->want_cycles;

	p->ncpu = n < 1 ? 1 : n > MAX_CPUS ? MAX_CPUS : (int)n;
	p->ring_len = (size_t)(RING_PAGES + 1) * (size_t)sysconf(_SC_PAGESIZE);
	p->user_ip = USER_IP_REG != 0;
	for (int c = 0; c < p->ncpu; c++) {
		int fd = open_event(p, c, hw);

		if (fd < 0 && p->user_ip && c == 0 && errno == EINVAL) {
			p->user_ip = false; /* a kernel without user registers in samples */
			fd = open_event(p, c, hw);
		}

		if (fd < 0 && hw && c == 0 && (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV)) {
			hw = false; /* no hardware counters (a VM): the software clock */
			fd = open_event(p, c, hw);
		}
		if (fd < 0) {
			int e = errno;

			if (e == EACCES || e == EPERM)
				permission_hint(err, errlen, e);
			else
				snprintf(err, errlen, "perf_event_open on CPU %d: %s", c, strerror(e));
			return -e;
		}
		p->fd[c] = fd;
		p->ring[c] = mmap(NULL, p->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p->ring[c] == MAP_FAILED) {
			p->ring[c] = NULL;
			snprintf(err, errlen, "mmap of the perf ring: %s (perf_event_mlock_kb?)",
				 strerror(errno));
			return -errno;
		}
	}
	p->event = hw ? "cycles" : "cpu-clock";
	return 0;
}

/* The window's edges on CLOCK_MONOTONIC, which `perf record -k CLOCK_MONOTONIC` stamps its
 * samples with: another profiler's view of the very same window can be cut from its own. */
void prof_enable(struct prof *p)
{
	p->t_on = now_ns();
	for (int c = 0; c < p->ncpu; c++)
		ioctl(p->fd[c], PERF_EVENT_IOC_ENABLE, 0);
}

void prof_disable(struct prof *p)
{
	for (int c = 0; c < p->ncpu; c++)
		ioctl(p->fd[c], PERF_EVENT_IOC_DISABLE, 0);
	p->t_off = now_ns();
}

static int side_of(const struct prof *p, uint32_t pid)
{
	if (pid == 0)
		return PS_IDLE;
	if (p->server && pid == (uint32_t)p->server)
		return PS_SERVER;
	for (int i = 0; i < p->nclients; i++)
		if (pid == (uint32_t)p->clients[i])
			return PS_CLIENT;
	return PS_OTHER;
}

static void count_syscall(struct prof *p, const char *name, int side)
{
	for (int i = 0; i < p->nsys; i++) {
		if (p->sys[i].name == name || !strcmp(p->sys[i].name, name)) {
			p->sys[i].n[side]++;
			return;
		}
	}
	if (p->nsys < MAX_SYSCALLS) {
		p->sys[p->nsys] = (struct sys_count){.name = name};
		p->sys[p->nsys++].n[side]++;
	}
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		h = (h ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
	return h;
}

static void fold(struct prof *p, int side, bool user, const int32_t *frames, int depth)
{
	uint64_t h = fnv(fnv(0xcbf29ce484222325ULL, (uint64_t)side), user);

	for (int i = 0; i < depth; i++)
		h = fnv(h, (uint64_t)(uint32_t)frames[i]);
	for (uint32_t probe = 0; probe < 64; probe++) {
		struct fold *f = &p->folds[(h + probe) & (FOLD_SLOTS - 1)];

		if (!f->count) {
			f->hash = h;
			f->side = (uint8_t)side;
			f->user = user;
			f->depth = (uint16_t)depth;
			f->frames = xmalloc((size_t)(depth ? depth : 1) * sizeof(int32_t));
			if (depth)
				memcpy(f->frames, frames, (size_t)depth * sizeof(int32_t));
			f->count = 1;
			return;
		}
		if (f->hash == h && f->side == side && f->user == user && f->depth == depth &&
		    (!depth || !memcmp(f->frames, frames, (size_t)depth * sizeof(int32_t)))) {
			f->count++;
			return;
		}
	}
	p->fold_overflow++;
}

void prof_add_sample(struct prof *p, uint32_t pid, uint64_t ip, const uint64_t *chain, int nr,
		     uint64_t uip)
{
	int side = side_of(p, pid), depth = 0;
	const char *sys = NULL;
	int32_t frames[MAX_STACK];
	bool softirq = false, in_dispatch = false;

	p->samples++;
	if (ip < KERNEL_MIN) {
		p->mode[side][0]++;
		count_syscall(p, SYS_USER, side);
		if (p->folds)
			fold(p, side, true, NULL, 0);
		return;
	}
	/* The kernel frames, outermost first (perf gives the innermost first). */
	for (int i = nr - 1; i >= 0 && depth < MAX_STACK; i--) {
		if (chain[i] >= (uint64_t)PERF_CONTEXT_MAX)
			continue; /* a context marker */
		if (chain[i] < KERNEL_MIN)
			continue;
		int s = ksyms_find(p->k, chain[i]);

		frames[depth++] = s;
		const char *name = ksyms_name(p->k, s);

		/* The handler is the first frame inside the syscall dispatcher that is named as
		 * one; a frame between them (a mitigation thunk) is passed over. */
		if (!sys && s >= 0) {
			if (is_dispatch(name))
				in_dispatch = true;
			else if (in_dispatch)
				sys = syscall_name(name);
		}
		softirq |= is_softirq_frame(name);
	}
	/* Inside a syscall with no handler frame (a paravirtual irq-enable at entry, a sample in
	 * the dispatcher itself): the user-space caller says which, else it is not invented. */
	if (in_dispatch && !sys) {
		sys = uip && (side == PS_CLIENT || side == PS_SERVER) ? usyms_syscall(p->u, pid, uip)
								   : NULL;
		if (!sys && !softirq)
			sys = SYS_ENTRY;
	}
	if (!depth)
		frames[depth++] = ksyms_find(p->k, ip);
	if (side == PS_IDLE && softirq)
		side = PS_OTHER; /* softirq run on an idle CPU is work, not idle */
	p->mode[side][softirq ? 2 : 1]++;
	int leaf = frames[depth - 1];

	p->func[leaf < 0 ? ksyms_count(p->k) : leaf][side]++;
	count_syscall(p, sys ? sys : softirq ? SYS_SOFTIRQ : SYS_NONE, side);
	if (p->folds)
		fold(p, side, false, frames, depth);
}

/* One record of a ring; wrapping records are copied out first. */
static void take_record(struct prof *p, const struct perf_event_header *h)
{
	const uint64_t *w = (const uint64_t *)(h + 1);

	if (h->type == PERF_RECORD_LOST) {
		p->lost += w[1];
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) + 24)
		return;
	uint64_t ip = w[0];
	uint32_t pid = (uint32_t)w[1];
	uint64_t nr = w[2];

	if (nr > 4096 || sizeof(*h) + 24 + nr * 8 > h->size)
		return;
	/* Then the user registers: their ABI (0: none, a kernel thread), then the ip. */
	uint64_t uip = 0;
	size_t at = sizeof(*h) + 24 + nr * 8;

	if (p->user_ip && at + 8 <= h->size && w[3 + nr] && at + 16 <= h->size)
		uip = w[3 + nr + 1];
	prof_add_sample(p, pid, ip, w + 3, (int)nr, uip);
}

void prof_drain(struct prof *p)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), data_len = p->ring_len - page;

	for (int c = 0; c < p->ncpu; c++) {
		struct perf_event_mmap_page *pg = p->ring[c];

		if (!pg)
			continue;
		char *data = (char *)pg + page;
		uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = pg->data_tail;

		while (tail < head) {
			struct perf_event_header *h = (void *)(data + (tail % data_len));
			size_t off = tail % data_len, size = h->size;

			if (size < sizeof(*h) || size > 65536)
				break;
			if (off + size > data_len) { /* wraps around the ring's end */
				memcpy(p->scratch, data + off, data_len - off);
				memcpy(p->scratch + (data_len - off), data, size - (data_len - off));
				h = (void *)p->scratch;
			}
			take_record(p, h);
			tail += size;
		}
		__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	}
}

