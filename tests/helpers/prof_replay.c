/* prof_replay: the profiler's attribution (prof_add_sample, usyms) run over the samples `perf
 * record -g` took, so that e2e/profile.sh can set its booking beside perf_syscalls.awk's on the
 * very same samples. Two samplers of one window never take the same samples (a software clock
 * in a guest drops ticks, and each event drops its own), so only a replay tests the rules.
 *
 *   perf script -F pid,tid,ip,sym,symoff | prof_replay HZ SERVER_PID CLIENT_PID...
 *
 * prints prof_json's report. A sample's user-space caller reaches the fallback as it would
 * live: perf's symbol for the first user frame is looked up in this process (the same libc),
 * and its address here, plus perf's offset, is what usyms resolves back to a syscall through
 * the maps of a stand-in process: each side's recorded pid is replayed as a child forked from
 * this one (the same maps), alive until the end.
 */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile/prof.h"
#include "profile/usyms.h"

#define MAX_FRAMES 512

/* The address in this process's libc of "sym+0xoff" as perf names a user frame; 0 when
 * unknown. libc's own (a sanitizer's interceptor of the same name is not where the syscall
 * instruction was). */
static uint64_t here(void *libc, const char *symoff)
{
	char name[256];
	const char *plus = strrchr(symoff, '+');
	size_t len = plus ? (size_t)(plus - symoff) : strlen(symoff);
	unsigned long off = plus ? strtoul(plus + 1, NULL, 16) : 0;
	void *a;

	if (len >= sizeof(name))
		return 0;
	memcpy(name, symoff, len);
	name[len] = '\0';
	/* perf reads libc's full symbol table ("__libc_sendmsg"); this process sees the exported
	 * names: the same function under the name the syscall goes by. */
	a = dlsym(libc, name);
	if (!a) {
		const char *s = usyms_name_syscall(name);

		a = s ? dlsym(libc, s) : NULL;
	}
	return a ? (uint64_t)(uintptr_t)a + off : 0;
}

int main(int argc, char **argv)
{
	char err[256], line[1024];
	uint64_t chain[MAX_FRAMES], uip = 0;
	int nr = 0, nclients = argc - 3;
	uint32_t pid = 0;
	bool in_sample = false, user_seen = false;

	if (argc < 4) {
		fprintf(stderr, "usage: perf script -F pid,tid,ip,sym,symoff | %s HZ SERVER CLIENT...\n", argv[0]);
		return 2;
	}
	struct ksyms *k = ksyms_load(NULL, err, sizeof(err));
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

	if (!k || !libc) {
		fprintf(stderr, "prof_replay: %s\n", k ? "libc.so.6 is not loaded" : err);
		return 1;
	}
	struct prof *p = prof_create(k, atoi(argv[1]), false);
	pid_t *cl = calloc((size_t)nclients, sizeof(pid_t));

	pid_t *stand = calloc((size_t)nclients + 1, sizeof(pid_t)); /* [0] the server's */

	for (int i = 0; i <= nclients; i++) {
		stand[i] = fork();
		if (stand[i] == 0) {
			pause();
			_exit(0);
		}
		if (stand[i] < 0) {
			perror("prof_replay: fork");
			return 1;
		}
		if (i)
			cl[i - 1] = stand[i];
	}
	prof_set_pids(p, cl, nclients, stand[0]);
	for (;;) {
		char *got = fgets(line, sizeof(line), stdin);
		char *s = line + strspn(line, " \t");

		if (!got || *s == '\n') { /* a sample ends */
			if (in_sample && nr > 0)
				prof_add_sample(p, pid, chain[0], chain, nr, uip);
			in_sample = false;
			if (!got)
				break;
			continue;
		}
		if (!in_sample) { /* "pid/tid" */
			pid = (uint32_t)strtoul(s, NULL, 10);
			for (int i = 0; i <= nclients; i++)
				if (pid == strtoul(argv[2 + i], NULL, 10)) {
					pid = (uint32_t)stand[i];
					break;
				}
			in_sample = true;
			nr = 0;
			uip = 0;
			user_seen = false;
			continue;
		}
		char *end;
		uint64_t addr = strtoull(s, &end, 16);

		end += strspn(end, " ");
		end[strcspn(end, "\n")] = '\0';
		if (addr >= 0xffff800000000000ULL) {
			if (nr < MAX_FRAMES)
				chain[nr++] = addr;
		} else if (!user_seen) {
			user_seen = true;
			if (nr == 0) /* a sample in user space: its ip is the user frame */
				chain[nr++] = addr;
			else
				uip = here(libc, end);
		}
	}
	cJSON *j = prof_json(p, 10);
	char *out = cJSON_PrintUnformatted(j);

	puts(out);
	free(out);
	cJSON_Delete(j);
	prof_destroy(p);
	ksyms_free(k);
	for (int i = 0; i <= nclients; i++) {
		kill(stand[i], SIGKILL);
		waitpid(stand[i], NULL, 0);
	}
	free(cl);
	free(stand);
	return 0;
}
