/* prof.c: see prof.h. */
#include "profile/prof.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/util.h"

#define RING_PAGES 128 /* data pages per CPU: 512 KiB, drained every 50 ms */
#define MAX_CPUS 1024
#define MAX_SYSCALLS 128
#define MAX_STACK 128
#define FOLD_SLOTS (1 << 16)
#define LAST_SYM_SPAN 0x10000 /* how far past the last symbol an address still belongs to it */
#define KERNEL_MIN 0xffff800000000000ULL

/* ---- the symbolizer ---- */

struct ksym {
	uint64_t addr;
	char *name;
};

struct ksyms {
	struct ksym *s;
	int n;
};

static int cmp_ksym(const void *a, const void *b)
{
	uint64_t x = ((const struct ksym *)a)->addr, y = ((const struct ksym *)b)->addr;

	return x < y ? -1 : x > y;
}

struct ksyms *ksyms_load(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
	struct ksyms *k;
	char line[512], name[256], type;
	unsigned long long addr;
	int cap = 1 << 16, nonzero = 0;

	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path ? path : "/proc/kallsyms", strerror(errno));
		return NULL;
	}
	k = xcalloc(1, sizeof(*k));
	k->s = xmalloc((size_t)cap * sizeof(*k->s));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue; /* text symbols only */
		nonzero += addr != 0;
		if (k->n == cap) {
			cap *= 2;
			k->s = realloc(k->s, (size_t)cap * sizeof(*k->s));
			if (!k->s)
				abort();
		}
		k->s[k->n++] = (struct ksym){.addr = addr, .name = xstrdup(name)};
	}
	fclose(f);
	if (!nonzero) {
		snprintf(err, errlen, "kernel symbol addresses are hidden: set "
			 "/proc/sys/kernel/kptr_restrict to 0 (or run as root with it at 1)");
		ksyms_free(k);
		return NULL;
	}
	qsort(k->s, (size_t)k->n, sizeof(*k->s), cmp_ksym);
	return k;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	for (int i = 0; i < k->n; i++)
		free(k->s[i].name);
	free(k->s);
	free(k);
}

int ksyms_find(const struct ksyms *k, uint64_t addr)
{
	int lo = 0, hi = k->n - 1, best = -1;

	if (!k->n || addr < k->s[0].addr)
		return -1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (k->s[mid].addr <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (best == k->n - 1 && addr - k->s[best].addr >= LAST_SYM_SPAN)
		return -1;
	return best;
}

const char *ksyms_name(const struct ksyms *k, int idx)
{
	return idx >= 0 && idx < k->n ? k->s[idx].name : "[unknown kernel]";
}

int ksyms_count(const struct ksyms *k)
{
	return k->n;
}

/* ---- sampling ---- */

struct fold {
	uint64_t hash;
	uint32_t count;
	uint8_t side;
	uint8_t user;
	uint16_t depth;
	int32_t *frames; /* outermost first */
};

struct sys_count {
	const char *name; /* the syscall, or a pseudo entry below */
	uint32_t n[PS_N];
};

static const char SYS_USER[] = "(user space)", SYS_SOFTIRQ[] = "(softirq)",
		  SYS_NONE[] = "(kernel, outside a syscall)";

struct prof {
	struct ksyms *k;
	int hz;
	bool want_folded;
	const char *event;
	pid_t *clients;
	int nclients;
	pid_t server;
	int ncpu;
	int fd[MAX_CPUS];
	void *ring[MAX_CPUS];
	size_t ring_len;
	uint64_t samples, lost;
	uint64_t mode[PS_N][3]; /* user, kernel, softirq */
	uint32_t (*func)[PS_N]; /* self samples per symbol (+1: unknown) */
	struct sys_count sys[MAX_SYSCALLS];
	int nsys;
	struct fold *folds;
	uint64_t fold_overflow;
	bool want_cycles;
	char *scratch;
};

static bool is_softirq_frame(const char *n)
{
	return !strcmp(n, "handle_softirqs") || !strcmp(n, "__do_softirq") ||
	       !strcmp(n, "net_rx_action") || !strcmp(n, "do_softirq");
}

/* With a software clock, time spent with interrupts off is billed to the instruction that
 * turns them back on: these symbols collect it. */
static bool is_irq_enable(const char *n)
{
	return strstr(n, "irq_enable") || strstr(n, "irqrestore") || strstr(n, "local_bh_enable") ||
	       strstr(n, "restore_fl");
}

/* The syscall a handler frame stands for: "__x64_sys_sendmsg", "__sys_sendmsg",
 * "do_sys_poll", "ksys_read" -> "sendmsg", "sendmsg", "poll", "read". */
static const char *syscall_name(const char *n)
{
	if (!strncmp(n, "exit_to_user_mode", 17) || !strncmp(n, "syscall_exit", 12))
		return "(syscall exit: rescheduling, signals)";
	static const char *const prefixes[] = {"__x64_sys_", "__ia32_sys_", "__arm64_sys_",
					       "__se_sys_",  "__do_sys_",   "__sys_",
					       "do_sys_",    "ksys_"};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(n, prefixes[i], strlen(prefixes[i])) && n[strlen(prefixes[i])])
			return n + strlen(prefixes[i]);
	return n;
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

static int open_event(struct prof *p, int cpu, bool hw)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
		.config = hw ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = (uint64_t)p->hz,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN,
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
		 "%d); kernel symbols also need /proc/sys/kernel/kptr_restrict at 0",
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
	for (int c = 0; c < p->ncpu; c++) {
		int fd = open_event(p, c, hw);

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

void prof_enable(struct prof *p)
{
	for (int c = 0; c < p->ncpu; c++)
		ioctl(p->fd[c], PERF_EVENT_IOC_ENABLE, 0);
}

void prof_disable(struct prof *p)
{
	for (int c = 0; c < p->ncpu; c++)
		ioctl(p->fd[c], PERF_EVENT_IOC_DISABLE, 0);
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

void prof_add_sample(struct prof *p, uint32_t pid, uint64_t ip, const uint64_t *chain, int nr)
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

		/* The first frame inside the syscall dispatcher is the handler. */
		if (!sys && s >= 0) {
			if (is_dispatch(name))
				in_dispatch = true;
			else if (in_dispatch)
				sys = syscall_name(name);
		}
		softirq |= is_softirq_frame(name);
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

	if (sizeof(*h) + 24 + nr * 8 > h->size)
		return;
	prof_add_sample(p, pid, ip, w + 3, (int)nr);
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

/* ---- the report ---- */

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0;
}

static int cmp_sys_desc(const void *a, const void *b, void *side)
{
	int s = *(int *)side;
	uint32_t x = ((const struct sys_count *)a)->n[s], y = ((const struct sys_count *)b)->n[s];

	return x < y ? 1 : x > y ? -1 : 0;
}

static cJSON *syscalls_json(const struct prof *p, int side)
{
	struct sys_count sorted[MAX_SYSCALLS];
	uint64_t total = 0;
	cJSON *arr = cJSON_CreateArray();

	memcpy(sorted, p->sys, (size_t)p->nsys * sizeof(*sorted));
	qsort_r(sorted, (size_t)p->nsys, sizeof(*sorted), cmp_sys_desc, &side);
	for (int m = 0; m < 3; m++)
		total += p->mode[side][m];
	for (int i = 0; i < p->nsys && sorted[i].n[side]; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", sorted[i].name);
		cJSON_AddNumberToObject(e, "samples", sorted[i].n[side]);
		cJSON_AddNumberToObject(e, "pct", pct(sorted[i].n[side], total));
		cJSON_AddItemToArray(arr, e);
	}
	return arr;
}

static uint64_t func_total(const struct prof *p, int i)
{
	return (uint64_t)p->func[i][PS_CLIENT] + p->func[i][PS_SERVER] + p->func[i][PS_OTHER];
}

static cJSON *functions_json(const struct prof *p, int top, uint64_t busy, cJSON **irq)
{
	int n = ksyms_count(p->k) + 1, *best = xcalloc((size_t)top, sizeof(int)), nbest = 0;
	uint64_t irq_total = 0;
	cJSON *arr = cJSON_CreateArray(), *irq_syms = cJSON_CreateArray();

	/* Top-N selection by insertion: N is small. */
	for (int i = 0; i < n; i++) {
		uint64_t t = func_total(p, i);

		if (!t)
			continue;
		if (i < n - 1 && is_irq_enable(ksyms_name(p->k, i))) {
			irq_total += t;
			cJSON *e = cJSON_CreateObject();

			cJSON_AddStringToObject(e, "name", ksyms_name(p->k, i));
			cJSON_AddNumberToObject(e, "pct", pct(t, busy));
			cJSON_AddItemToArray(irq_syms, e);
		}
		int j = nbest < top ? nbest++ : top;

		if (j == top && t <= func_total(p, best[top - 1]))
			continue;
		if (j == top)
			j = top - 1;
		for (; j > 0 && func_total(p, best[j - 1]) < t; j--)
			best[j] = best[j - 1];
		best[j] = i;
	}
	for (int r = 0; r < nbest; r++) {
		int i = best[r];
		const char *name = i == n - 1 ? "[unknown kernel]" : ksyms_name(p->k, i);
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", name);
		cJSON_AddNumberToObject(e, "pct", pct(func_total(p, i), busy));
		cJSON_AddNumberToObject(e, "pct_of_all", pct(func_total(p, i), p->samples));
		cJSON_AddNumberToObject(e, "client", pct(p->func[i][PS_CLIENT], busy));
		cJSON_AddNumberToObject(e, "server", pct(p->func[i][PS_SERVER], busy));
		cJSON_AddNumberToObject(e, "other", pct(p->func[i][PS_OTHER], busy));
		cJSON_AddBoolToObject(e, "irq_enable", is_irq_enable(name));
		cJSON_AddItemToArray(arr, e);
	}
	*irq = cJSON_CreateObject();
	cJSON_AddNumberToObject(*irq, "pct", pct(irq_total, busy));
	cJSON_AddItemToObject(*irq, "symbols", irq_syms);
	cJSON_AddStringToObject(*irq, "note",
				"with a software clock, time spent with interrupts off is billed to the "
				"instruction that turns them back on: these symbols stand for that "
				"time (mostly around the syscall boundary), not for their own work");
	free(best);
	return arr;
}

cJSON *prof_json(const struct prof *p, int top)
{
	cJSON *j = cJSON_CreateObject(), *modes = cJSON_CreateObject(), *sys = cJSON_CreateObject();
	uint64_t busy = p->samples - p->mode[PS_IDLE][0] - p->mode[PS_IDLE][1] - p->mode[PS_IDLE][2];
	cJSON *irq;

	cJSON_AddStringToObject(j, "event", p->event);
	cJSON_AddNumberToObject(j, "hz", p->hz);
	cJSON_AddNumberToObject(j, "samples", (double)p->samples);
	cJSON_AddNumberToObject(j, "lost", (double)p->lost);
	cJSON_AddNumberToObject(j, "folded_overflow", (double)p->fold_overflow);
	cJSON_AddBoolToObject(j, "server_profiled", p->server != 0);
	cJSON_AddNumberToObject(modes, "client_user", pct(p->mode[PS_CLIENT][0], p->samples));
	cJSON_AddNumberToObject(modes, "client_kernel",
				pct(p->mode[PS_CLIENT][1] + p->mode[PS_CLIENT][2], p->samples));
	cJSON_AddNumberToObject(modes, "server_user", pct(p->mode[PS_SERVER][0], p->samples));
	cJSON_AddNumberToObject(modes, "server_kernel",
				pct(p->mode[PS_SERVER][1] + p->mode[PS_SERVER][2], p->samples));
	cJSON_AddNumberToObject(modes, "softirq_and_other",
				pct(p->mode[PS_OTHER][0] + p->mode[PS_OTHER][1] + p->mode[PS_OTHER][2],
				    p->samples));
	cJSON_AddNumberToObject(modes, "idle", pct(p->samples - busy, p->samples));
	cJSON_AddNumberToObject(modes, "softirq_in_client",
				pct(p->mode[PS_CLIENT][2], p->samples));
	cJSON_AddNumberToObject(modes, "softirq_in_server",
				pct(p->mode[PS_SERVER][2], p->samples));
	cJSON_AddItemToObject(j, "modes", modes);
	cJSON_AddItemToObject(sys, "client", syscalls_json(p, PS_CLIENT));
	cJSON_AddItemToObject(sys, "server", syscalls_json(p, PS_SERVER));
	cJSON_AddItemToObject(j, "syscalls", sys);
	cJSON_AddItemToObject(j, "functions", functions_json(p, top, busy, &irq));
	cJSON_AddItemToObject(j, "irq_enable", irq);
	return j;
}

int prof_write_folded(const struct prof *p, FILE *f)
{
	static const char *const sides[] = {"client", "server", "other", "idle"};

	for (int i = 0; p->folds && i < FOLD_SLOTS; i++) {
		const struct fold *e = &p->folds[i];

		if (!e->count)
			continue;
		fputs(sides[e->side], f);
		if (e->user)
			fputs(e->side == PS_CLIENT || e->side == PS_SERVER ? ";[user] sockbench" : ";[user]", f);
		for (int d = 0; d < e->depth; d++)
			fprintf(f, ";%s", ksyms_name(p->k, e->frames[d]));
		fprintf(f, " %u\n", e->count);
	}
	return ferror(f) ? -EIO : 0;
}
