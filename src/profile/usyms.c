/* usyms.c: see usyms.h. */
#include "profile/usyms.h"

#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define MAPS_MAX 64	/* executable file mappings kept per process */
#define PIDS_MAX 32	/* processes remembered (the sides' processes: a few) */
#define CACHE_SLOTS 256 /* user ips already resolved: a program has few call sites */
#define PATH_LEN 256

struct umap {
	uint64_t start, end, off;
	char path[PATH_LEN];
};

struct upid {
	uint32_t pid;
	int n;
	struct umap m[MAPS_MAX];
};

struct uslot {
	uint32_t pid;
	uint64_t ip;
	const char *name; /* NULL: could not be told */
	bool used;
};

struct usyms {
	struct upid self;
	bool self_read;
	struct upid pids[PIDS_MAX];
	int npids, next; /* next: the slot a new process takes once all are used */
	struct uslot cache[CACHE_SLOTS];
};

/* The executable file mappings of a process. */
static void read_maps(uint32_t pid, struct upid *up)
{
	char path[64], line[PATH_LEN + 128];
	FILE *f;

	up->pid = pid;
	up->n = 0;
	if (pid)
		snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	if (!(f = fopen(path, "re")))
		return;
	while (up->n < MAPS_MAX && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8];
		int at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &at) < 4 ||
		    !at || !strchr(perms, 'x') || line[at] != '/')
			continue;
		struct umap *m = &up->m[up->n++];

		*m = (struct umap){.start = s, .end = e, .off = off};
		snprintf(m->path, sizeof(m->path), "%.*s", (int)strcspn(line + at, "\n"), line + at);
	}
	fclose(f);
}

struct usyms *usyms_create(void)
{
	return xcalloc(1, sizeof(struct usyms));
}

void usyms_free(struct usyms *u)
{
	free(u);
}

static const struct upid *pid_maps(struct usyms *u, uint32_t pid)
{
	for (int i = 0; i < u->npids; i++)
		if (u->pids[i].pid == pid)
			return &u->pids[i];
	struct upid *up = &u->pids[u->npids < PIDS_MAX ? u->npids++ : u->next++ % PIDS_MAX];

	read_maps(pid, up);
	return up;
}

const char *usyms_name_syscall(const char *sym)
{
	static const char *const strip[] = {"__libc_", "__GI_", "__"};
	bool again = true;

	if (!sym || !*sym)
		return NULL;
	while (again) {
		again = false;
		for (size_t i = 0; i < ARRAY_SIZE(strip); i++)
			if (!strncmp(sym, strip[i], strlen(strip[i])) && sym[strlen(strip[i])]) {
				sym += strlen(strip[i]);
				again = true;
			}
	}
	/* liburing makes its syscalls inline: its submit and wait calls enter io_uring_enter. */
	if (!strncmp(sym, "io_uring_", 9) || !strncmp(sym, "sys_io_uring_enter", 18))
		return "io_uring_enter";
	if (!strcmp(sym, "syscall")) /* syscall(2) names its number in a register we do not see */
		return NULL;
	return sym;
}

/* The file and offset of ip in pid, then the same place in this process, then its symbol. */
static const char *resolve(struct usyms *u, uint32_t pid, uint64_t ip)
{
	const struct upid *up = pid_maps(u, pid);

	if (!u->self_read) {
		read_maps(0, &u->self);
		u->self_read = true;
	}
	for (int i = 0; i < up->n; i++) {
		const struct umap *m = &up->m[i];

		if (ip < m->start || ip >= m->end)
			continue;
		uint64_t foff = ip - m->start + m->off;

		for (int j = 0; j < u->self.n; j++) {
			const struct umap *s = &u->self.m[j];
			const ElfW(Sym) *sym = NULL;
			uint64_t at;
			Dl_info info;

			if (strcmp(s->path, m->path) || foff < s->off || foff >= s->off + (s->end - s->start))
				continue;
			at = s->start + (foff - s->off);
			/* The nearest exported symbol, and only if ip is inside it: a static function
			 * after a wrapper is not that wrapper. */
			if (!dladdr1((void *)(uintptr_t)at, &info, (void **)&sym, RTLD_DL_SYMENT) ||
			    !sym || !info.dli_saddr || at >= (uintptr_t)info.dli_saddr + sym->st_size)
				return NULL;
			return usyms_name_syscall(info.dli_sname);
		}
		return NULL;
	}
	return NULL;
}

const char *usyms_syscall(struct usyms *u, uint32_t pid, uint64_t ip)
{
	struct uslot *c = &u->cache[(ip ^ (ip >> 12) ^ pid) % CACHE_SLOTS];

	if (!ip)
		return NULL;
	if (c->used && c->ip == ip && c->pid == pid)
		return c->name;
	*c = (struct uslot){.pid = pid, .ip = ip, .name = resolve(u, pid, ip), .used = true};
	return c->name;
}
