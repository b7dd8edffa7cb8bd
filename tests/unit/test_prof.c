/* The profiler's pure parts: the symbolizer on a fixture kallsyms, attribution of fixture
 * callchains to sides, modes and syscalls, and the folded-stack format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <unistd.h>

#include "profile/prof.h"
#include "profile/usyms.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures/"
#endif
#define A(off) (0xffffffff81000000ULL + (off))

static struct ksyms *load(void)
{
	char err[200];
	struct ksyms *k = ksyms_load(FIXTURES "kallsyms", err, sizeof(err));

	if (!k)
		fail_msg("%s", err);
	return k;
}

static const char *at(struct ksyms *k, uint64_t a)
{
	return ksyms_name(k, ksyms_find(k, a));
}

static void test_symbolizer(void **state)
{
	(void)state;
	struct ksyms *k = load();

	assert_int_equal(ksyms_count(k), 15); /* text symbols only: some_data is left out */
	assert_string_equal(at(k, A(0x500)), "udp_sendmsg");	 /* exact */
	assert_string_equal(at(k, A(0x5ff)), "udp_sendmsg");	 /* last byte before the next */
	assert_string_equal(at(k, A(0x600)), "__x64_sys_poll"); /* edge */
	assert_string_equal(at(k, A(0x350)), "do_syscall_64");  /* a data symbol is no boundary */
	assert_string_equal(at(k, A(0xe10)), "weak_fn");	 /* W counts */
	assert_int_equal(ksyms_find(k, A(0) - 1), -1);		 /* before the first */
	assert_string_equal(at(k, A(0) - 1), "[unknown kernel]");
	assert_string_equal(at(k, A(0xe80) + 0x100), "default_idle"); /* just after the last */
	assert_int_equal(ksyms_find(k, A(0xe80) + 0x100000), -1);    /* far after the last */
	ksyms_free(k);

	char err[200];
	FILE *f = fopen("/tmp/sockbench-test-kallsyms-hidden", "w");

	fputs("0000000000000000 T _stext\n0000000000000000 T udp_sendmsg\n", f);
	fclose(f);
	assert_null(ksyms_load("/tmp/sockbench-test-kallsyms-hidden", err, sizeof(err)));
	assert_non_null(strstr(err, "kptr_restrict"));
	assert_null(ksyms_load("/nonexistent/kallsyms", err, sizeof(err)));
	remove("/tmp/sockbench-test-kallsyms-hidden");
}

/* A perf callchain: the context marker, then innermost first. */
static int chain(uint64_t *c, int n, ...)
{
	va_list ap;

	c[0] = (uint64_t)PERF_CONTEXT_KERNEL;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		c[i + 1] = va_arg(ap, uint64_t);
	va_end(ap);
	return n + 1;
}

static const cJSON *find_named(const cJSON *arr, const char *name)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, arr)
	{
		if (!strcmp(cJSON_GetObjectItem(e, "name")->valuestring, name))
			return e;
	}
	return NULL;
}

static double pct_of(const cJSON *arr, const char *name)
{
	const cJSON *e = find_named(arr, name);

	return e ? cJSON_GetObjectItem(e, "pct")->valuedouble : -1;
}

static void test_attribution(void **state)
{
	(void)state;
	struct ksyms *k = load();
	struct prof *p = prof_create(k, 1000, true);
	pid_t clients[] = {100, 101};
	uint64_t c[16];
	int n;

	prof_set_pids(p, clients, 2, 200);
	/* client 100, 3x in udp_sendmsg under __sys_sendmsg */
	n = chain(c, 4, A(0x510), A(0x410), A(0x210), A(0x110));
	for (int i = 0; i < 3; i++)
		prof_add_sample(p, 100, A(0x510), c, n, 0);
	/* client 101, in poll via __x64_sys_poll -> do_sys_poll */
	n = chain(c, 4, A(0x710), A(0x610), A(0x210), A(0x110));
	prof_add_sample(p, 101, A(0x710), c, n, 0);
	/* server: recvmsg, and a softirq inside sendmsg ending in an irq-enable symbol */
	n = chain(c, 4, A(0xc10), A(0xb10), A(0x210), A(0x110));
	prof_add_sample(p, 200, A(0xc10), c, n, 0);
	n = chain(c, 6, A(0xa10), A(0x910), A(0x810), A(0x510), A(0x410), A(0x210));
	prof_add_sample(p, 200, A(0xa10), c, n, 0);
	/* user mode, idle, and a softirq on an idle CPU */
	prof_add_sample(p, 100, 0x401000, c, 0, 0);
	n = chain(c, 1, A(0xe90));
	prof_add_sample(p, 0, A(0xe90), c, n, 0);
	n = chain(c, 2, A(0x910), A(0x810));
	prof_add_sample(p, 0, A(0x910), c, n, 0);
	/* a stranger (another process) */
	n = chain(c, 1, A(0x510));
	prof_add_sample(p, 999, A(0x510), c, n, 0);

	cJSON *j = prof_json(p, 5);
	const cJSON *m = cJSON_GetObjectItem(j, "modes");
	const cJSON *sys = cJSON_GetObjectItem(j, "syscalls");

	assert_int_equal((int)cJSON_GetObjectItem(j, "samples")->valuedouble, 10);
	/* client: 4 kernel + 1 user of 10 samples */
	assert_true(cJSON_GetObjectItem(m, "client_kernel")->valuedouble == 40.0);
	assert_true(cJSON_GetObjectItem(m, "client_user")->valuedouble == 10.0);
	assert_true(cJSON_GetObjectItem(m, "server_kernel")->valuedouble == 20.0);
	assert_true(cJSON_GetObjectItem(m, "idle")->valuedouble == 10.0); /* softirq on idle is work */
	assert_true(cJSON_GetObjectItem(m, "softirq_and_other")->valuedouble == 20.0);
	/* per syscall, in percent of the side's samples: 3 of 5 client samples in sendmsg */
	const cJSON *cs = cJSON_GetObjectItem(sys, "client"), *ss = cJSON_GetObjectItem(sys, "server");

	assert_true(pct_of(cs, "sendmsg") == 60.0);
	assert_true(pct_of(cs, "poll") == 20.0);
	assert_true(pct_of(cs, "(user space)") == 20.0);
	assert_true(pct_of(ss, "recvmsg") == 50.0);
	assert_true(pct_of(ss, "sendmsg") == 50.0); /* softirq work inside sendmsg is sendmsg's */
	/* top functions: udp_sendmsg first (3 client + 1 other of 9 non-idle) */
	const cJSON *fn = cJSON_GetObjectItem(j, "functions");
	const cJSON *first = cJSON_GetArrayItem(fn, 0);

	assert_string_equal(cJSON_GetObjectItem(first, "name")->valuestring, "udp_sendmsg");
	assert_true(fabs(cJSON_GetObjectItem(first, "pct")->valuedouble - 100.0 * 4 / 9) < 1e-9);
	assert_true(fabs(cJSON_GetObjectItem(first, "client")->valuedouble - 100.0 * 3 / 9) < 1e-9);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(find_named(fn, "_raw_spin_unlock_irqrestore"),
						      "irq_enable")));
	assert_true(fabs(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "irq_enable"), "pct")->valuedouble -
			 100.0 / 9) < 1e-9);
	cJSON_Delete(j);

	/* Folded stacks: "side;outer;...;leaf count", counts adding up to the samples. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(prof_write_folded(p, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "client;entry_SYSCALL_64;do_syscall_64;__sys_sendmsg;udp_sendmsg 3\n"));
	assert_non_null(strstr(buf, "client;[user] sockbench 1\n"));
	assert_non_null(strstr(buf, "idle;default_idle 1\n"));
	long total = 0;

	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *sp = strrchr(line, ' ');

		assert_non_null(sp);
		assert_null(strchr(line, '\t'));
		total += atol(sp + 1);
	}
	assert_int_equal(total, 10);
	free(buf);
	prof_destroy(p);
	ksyms_free(k);
}

/* Two kinds of guest, recorded: a plain KVM guest (do_syscall_64 -> x64_sys_call -> the
 * handler, a mitigation thunk between) and a paravirtual one whose entry re-enables interrupts
 * before the handler runs, so a sample lands in __raw_callee_save_pvm_irq_enable right under
 * do_syscall_64. The second is booked by its user-space caller (here: libc's wrappers in this
 * very process), and to "(syscall entry, unattributed)" where no caller is known; it is never
 * listed as a syscall of its own, and the folded stacks keep the real frames. */
static void test_pv_guest(void **state)
{
	(void)state;
	char err[200];
	struct ksyms *k = ksyms_load(FIXTURES "kallsyms_pv", err, sizeof(err));
	struct prof *p = prof_create(k, 1000, true);
	pid_t me = getpid();
	/* libc's own wrappers (under ASan the default lookup finds its interceptors instead) */
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	uint64_t c[16], recv_ip = (uint64_t)(uintptr_t)dlsym(libc, "recvmsg") + 1,
			send_ip = (uint64_t)(uintptr_t)dlsym(libc, "sendmsg") + 1;
	int n;

	assert_non_null(k);
	assert_non_null(libc);
	assert_true(recv_ip > 1 && send_ip > 1);
	prof_set_pids(p, &me, 1, 200);
	/* KVM: 4 samples in recvmsg through x64_sys_call, one with a thunk first */
	n = chain(c, 5, A(0x710), A(0x610), A(0x510), A(0x310), A(0x210));
	for (int i = 0; i < 3; i++)
		prof_add_sample(p, (uint32_t)me, A(0x710), c, n, 0);
	n = chain(c, 5, A(0x710), A(0x510), A(0x810), A(0x310), A(0x210));
	prof_add_sample(p, (uint32_t)me, A(0x710), c, n, 0);
	/* paravirtual: irq-enable under the dispatcher, 2 from recvmsg, 1 from sendmsg, 1 with no
	 * user ip, 1 from a caller that is not an exported wrapper (this test's own code) */
	n = chain(c, 3, A(0x410), A(0x210), A(0x110));
	prof_add_sample(p, (uint32_t)me, A(0x410), c, n, recv_ip);
	prof_add_sample(p, (uint32_t)me, A(0x410), c, n, recv_ip + 2);
	prof_add_sample(p, (uint32_t)me, A(0x410), c, n, send_ip);
	prof_add_sample(p, (uint32_t)me, A(0x410), c, n, 0);
	prof_add_sample(p, (uint32_t)me, A(0x410), c, n, (uint64_t)(uintptr_t)&test_pv_guest);
	/* the server side is another process: no user ip resolves there, and nothing is guessed */
	prof_add_sample(p, 200, A(0x410), c, n, recv_ip);

	cJSON *j = prof_json(p, 5);
	const cJSON *sys = cJSON_GetObjectItem(j, "syscalls");
	const cJSON *cs = cJSON_GetObjectItem(sys, "client"), *ss = cJSON_GetObjectItem(sys, "server");

	assert_true(fabs(pct_of(cs, "recvmsg") - 100.0 * 6 / 9) < 1e-9); /* 4 + 2 of 9 */
	assert_true(fabs(pct_of(cs, "sendmsg") - 100.0 / 9) < 1e-9);
	assert_true(fabs(pct_of(cs, "(syscall entry, unattributed)") - 100.0 * 2 / 9) < 1e-9);
	assert_int_equal(cJSON_GetArraySize(cs), 3);
	assert_null(find_named(cs, "__raw_callee_save_pvm_irq_enable"));
	assert_null(find_named(cs, "pvm_irq_enable"));
	assert_null(find_named(cs, "srso_return_thunk"));
	assert_true(pct_of(ss, "(syscall entry, unattributed)") == 100.0);
	cJSON_Delete(j);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(prof_write_folded(p, f), 0);
	fclose(f);
	assert_non_null(
		strstr(buf, "client;entry_SYSCALL_64;do_syscall_64;__raw_callee_save_pvm_irq_enable 5\n"));
	free(buf);
	prof_destroy(p);
	ksyms_free(k);
	dlclose(libc);
}

/* A wrapper's symbol as dladdr names it, to the syscall it makes. */
static void test_wrapper_names(void **state)
{
	(void)state;
	assert_string_equal(usyms_name_syscall("__libc_recvmsg"), "recvmsg");
	assert_string_equal(usyms_name_syscall("__poll"), "poll");
	assert_string_equal(usyms_name_syscall("sendmmsg"), "sendmmsg");
	assert_string_equal(usyms_name_syscall("io_uring_submit_and_wait"), "io_uring_enter");
	assert_string_equal(usyms_name_syscall("__io_uring_get_cqe"), "io_uring_enter");
	assert_null(usyms_name_syscall("syscall"));
	assert_null(usyms_name_syscall(""));
	assert_null(usyms_name_syscall(NULL));
	assert_string_equal(usyms_name_syscall("__"), "__"); /* nothing left to strip to */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbolizer),
		cmocka_unit_test(test_attribution),
		cmocka_unit_test(test_pv_guest),
		cmocka_unit_test(test_wrapper_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
