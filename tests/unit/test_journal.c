/* The kernel-settings journal (link/journal.c, link/sysctl.c): what --sysctl may name, what a
 * journal may name, a full journal read whole, a dead run's journal put back before a new run
 * writes over it, and a value the kernel keeps otherwise refused. Each test has a folder of its
 * own (mkdtemp: root's, mode 0700) as $SOCKBENCH_JOURNAL's. Writing settings needs root: those
 * tests skip otherwise. Every setting a test may change is put back in its teardown. */
#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "link/journal.h"
#include "link/sysctl.h"

#define FIN "/proc/sys/net/ipv4/tcp_fin_timeout"
#define RMEM "/proc/sys/net/ipv4/tcp_rmem"
#define RPS "/sys/class/net/lo/queues/rx-0/rps_cpus"

static char dir[64], jpath[128], fin0[64], rmem0[128], rps0[300];

static void get(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");

	out[0] = 0;
	if (f) {
		if (!fgets(out, (int)len, f))
			out[0] = 0;
		fclose(f);
	}
	out[strcspn(out, "\n")] = 0;
	for (char *t = strchr(out, '\t'); t; t = strchr(t, '\t'))
		*t = ' '; /* as sysctl(8) shows it, and a journal keeps it */
}

static void put(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

static void journal(const char *text)
{
	FILE *f = fopen(jpath, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A value of tcp_fin_timeout other than the one in force. */
static const char *fin_other(void)
{
	return atoi(fin0) == 59 ? "58" : "59";
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sb-journal-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(jpath, sizeof(jpath), "%s/sysctl.journal", dir);
	setenv("SOCKBENCH_JOURNAL", jpath, 1);
	unsetenv("SOCKBENCH_RECOVERED");
	get(FIN, fin0, sizeof(fin0));
	get(RMEM, rmem0, sizeof(rmem0));
	get(RPS, rps0, sizeof(rps0));
	return 0;
}

static int teardown(void **state)
{
	char now[300];

	(void)state;
	if (geteuid() == 0) {
		get(FIN, now, sizeof(now));
		if (strcmp(now, fin0))
			put(FIN, fin0);
		get(RMEM, now, sizeof(now));
		if (strcmp(now, rmem0))
			put(RMEM, rmem0);
		get(RPS, now, sizeof(now));
		if (rps0[0] && strcmp(now, rps0))
			put(RPS, rps0);
	}
	unlink(jpath);
	rmdir(dir);
	unsetenv("SOCKBENCH_JOURNAL");
	unsetenv("SOCKBENCH_RECOVERED");
	return 0;
}

static bool root(void)
{
	if (geteuid() == 0)
		return true;
	print_message("skipped: writing kernel settings needs root\n");
	return false;
}

static int recover(char *msg, size_t len)
{
	unsetenv("SOCKBENCH_RECOVERED");
	return sysctl_recover(msg, len);
}

/* --sysctl names network settings only: kernel.core_pattern would run a program as root. */
static void test_parse_net_only(void **state)
{
	static const char *bad[] = {"kernel.core_pattern=|/bin/sh",
				    "kernel/modprobe=/x",
				    "vm.swappiness=1",
				    "fs.file-max=100000",
				    "net=1",
				    "net.dev.lo/queues.rps_cpus=1"};
	struct sysctl_set s;
	char err[300];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(sysctl_parse(bad[i], &s, err, sizeof(err)), -EINVAL);
		assert_int_equal(s.n, 0);
	}
	assert_int_equal(sysctl_parse("kernel.core_pattern=core", &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "only network settings (net.*"));
	assert_int_equal(sysctl_parse("net.core.somaxconn=4096\nnet/ipv4/tcp_autocorking=0", &s,
				      err, sizeof(err)),
			 0);
	assert_int_equal(s.n, 2);
}

/* What a journal may name: what --sysctl could have put there, resolved where it leads. */
static void test_entry_names(void **state)
{
	static const char *bad[] = {
	    "/proc/sys/kernel/core_pattern",
	    "/proc/sys/vm/swappiness",
	    "/proc/sys/net/../kernel/core_pattern",
	    "/proc/sys/net/ipv4/./tcp_fin_timeout",
	    "/proc/sys//net/ipv4/tcp_fin_timeout",
	    "/sys/class/net/lo/flags",
	    "/sys/class/net/lo/mtu",
	    "/sys/class/net/lo/subsystem/lo/flags",
	    "/sys/class/net/eth0/device/driver/unbind",
	    "/sys/class/net/lo/queues/rx-0/../../flags",
	    "/sys/class/net/lo/queues/tx-0/xps_cpus",
	    "/sys/class/net/lo/queues/rx-/rps_cpus",
	    "/sys/devices/virtual/net/lo/queues/rx-0/rps_cpus",
	    "/etc/passwd",
	    "net.core.somaxconn",
	};
	char key[SYSCTL_KEY], err[300];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(journal_entry_check(bad[i], key, sizeof(key), err, sizeof(err)),
				 -EINVAL);
		assert_true(err[0]);
	}
	assert_int_equal(journal_entry_check(FIN, key, sizeof(key), err, sizeof(err)), 0);
	assert_string_equal(key, "net.ipv4.tcp_fin_timeout");
	if (access(RPS, F_OK) == 0) {
		assert_int_equal(journal_entry_check(RPS, key, sizeof(key), err, sizeof(err)), 0);
		assert_string_equal(key, "net.dev.lo.rps_cpus");
	}
	/* Gone (an interface deleted since): nothing to put back, not a refusal. */
	assert_int_equal(journal_entry_check("/proc/sys/net/ipv4/no_such_knob", key, sizeof(key),
					     err, sizeof(err)),
			 -ENOENT);
}

/* A journal naming anything --sysctl would refuse is refused whole: nothing written, nothing
 * removed. (The values are the ones in force: a wrong implementation changes nothing here but
 * removes the journal.) */
static void test_recover_refuses_names(void **state)
{
	char text[600], cur[300], msg[600];

	(void)state;
	if (!root())
		return;
	get("/proc/sys/kernel/core_pattern", cur, sizeof(cur));
	snprintf(text, sizeof(text), "%s\t%s\n/proc/sys/kernel/core_pattern\t%s\n", FIN,
		 fin_other(), cur);
	journal(text);
	assert_true(recover(msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "refused"));
	assert_non_null(strstr(msg, "core_pattern"));
	assert_int_equal(access(jpath, F_OK), 0);
	get(FIN, cur, sizeof(cur));
	assert_string_equal(cur, fin0);

	get("/sys/class/net/lo/flags", cur, sizeof(cur));
	snprintf(text, sizeof(text), "/sys/class/net/lo/flags\t%s\n", cur);
	journal(text);
	assert_true(recover(msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "lo/flags"));
	assert_int_equal(access(jpath, F_OK), 0);
}

/* A journal of 64 settings with long values (over 8 KB) is read whole: its last line too. */
static void test_recover_long(void **state)
{
	char *text = malloc(40000), pad[221], msg[4096], cur[300];
	size_t o = 0;

	(void)state;
	if (!root()) {
		free(text);
		return;
	}
	memset(pad, ' ', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = 0;
	/* The values in force, long with blanks the kernel skips; then one change, last. */
	for (int i = 0; i < 63; i++)
		o += (size_t)sprintf(text + o, "%s\t%s%s\n", RMEM, rmem0, pad);
	o += (size_t)sprintf(text + o, "%s\t%s\n", FIN, fin_other());
	assert_true(o > 8192);
	journal(text);
	assert_int_equal(recover(msg, sizeof(msg)), 64);
	get(FIN, cur, sizeof(cur));
	assert_string_equal(cur, fin_other());
	get(RMEM, cur, sizeof(cur));
	assert_string_equal(cur, rmem0);
	assert_int_equal(access(jpath, F_OK), -1);
	put(FIN, fin0);

	/* 65 lines, or a last line cut short: refused whole, the change in it not made. */
	o = (size_t)sprintf(text, "%s\t%s\n", FIN, fin_other());
	for (int i = 0; i < 64; i++)
		o += (size_t)sprintf(text + o, "%s\t%s\n", RMEM, rmem0);
	journal(text);
	assert_true(recover(msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "more than 64 lines"));
	sprintf(text, "%s\t%s\n%s\t%s", FIN, fin_other(), RMEM, rmem0);
	journal(text);
	assert_true(recover(msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "cut short"));
	get(FIN, cur, sizeof(cur));
	assert_string_equal(cur, fin0);
	assert_int_equal(access(jpath, F_OK), 0);
	free(text);
}

/* 64 long CPU masks (a host of 800 CPUs) are journaled and read back exactly. */
static void test_store_load_masks(void **state)
{
	struct sysctl_set *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct journal j;
	char err[300];

	(void)state;
	if (!root() || access(RPS, F_OK)) {
		free(a);
		free(b);
		return;
	}
	a->n = SYSCTL_MAX;
	for (int i = 0; i < a->n; i++) {
		size_t o = 0;

		snprintf(a->path[i], SYSCTL_PATH, "%s", RPS);
		for (int g = 0; g < 28; g++)
			o += (size_t)snprintf(a->old[i] + o, SYSCTL_VAL - o, "%s%08x", g ? "," : "",
					      (unsigned)(i * 2654435761u + (unsigned)g));
	}
	assert_int_equal(journal_open(&j, true, err, sizeof(err)), 0);
	assert_int_equal(journal_store(&j, a), 0);
	assert_int_equal(journal_load(&j, b, err, sizeof(err)), 0);
	journal_close(&j, true);
	assert_int_equal(b->n, SYSCTL_MAX);
	for (int i = 0; i < a->n; i++) {
		assert_string_equal(b->path[i], a->path[i]);
		assert_string_equal(b->old[i], a->old[i]);
		assert_string_equal(b->key[i], "net.dev.lo.rps_cpus");
	}
	free(a);
	free(b);
}

/* A journal a dead run left is put back before a new --sysctl run journals over it. */
static void test_apply_leftover(void **state)
{
	struct sysctl_set s;
	char text[300], err[400], cur[64];

	(void)state;
	if (!root())
		return;
	snprintf(text, sizeof(text), "%s\t%s\n", FIN, fin0);
	journal(text);
	put(FIN, fin_other());		       /* what the dead run had set */
	setenv("SOCKBENCH_RECOVERED", "1", 1); /* as in a local agent: the start did not look */
	snprintf(text, sizeof(text), "net.ipv4.tcp_rmem=%s", rmem0);
	assert_int_equal(sysctl_parse(text, &s, err, sizeof(err)), 0);
	assert_int_equal(sysctl_apply(&s, err, sizeof(err)), 0);
	get(FIN, cur, sizeof(cur));
	assert_string_equal(cur, fin0);
	assert_int_equal(sysctl_restore(&s, err, sizeof(err)), 0);
	get(FIN, cur, sizeof(cur));
	assert_string_equal(cur, fin0);
	assert_int_equal(access(jpath, F_OK), -1);
}

/* The read-back must be the value written, as the kernel prints it: "060" is octal to the
 * kernel (48) and refused with nothing changed; a mask's zero padding is the same mask. */
static void test_apply_readback(void **state)
{
	struct sysctl_set s;
	char err[400], cur[300];

	(void)state;
	if (!root())
		return;
	unsetenv("SOCKBENCH_RECOVERED");
	assert_int_equal(sysctl_parse("net.ipv4.tcp_fin_timeout=060", &s, err, sizeof(err)), 0);
	assert_int_equal(sysctl_apply(&s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "keeps it as 48"));
	assert_non_null(strstr(err, "nothing was changed"));
	get(FIN, cur, sizeof(cur));
	assert_string_equal(cur, fin0);
	assert_int_equal(access(jpath, F_OK), -1);
	if (access(RPS, W_OK))
		return;
	assert_int_equal(sysctl_parse("net.dev.lo.rps_cpus=00000001", &s, err, sizeof(err)), 0);
	assert_int_equal(sysctl_apply(&s, err, sizeof(err)), 0);
	get(RPS, cur, sizeof(cur));
	assert_string_equal(cur + strspn(cur, "0,"), "1");
	assert_int_equal(sysctl_restore(&s, err, sizeof(err)), 0);
	get(RPS, cur, sizeof(cur));
	assert_string_equal(cur, rps0);
}

/* A journal nobody holds is put back at the next start; a second look does nothing. */
static void test_recover(void **state)
{
	char text[200], msg[600], cur[64];

	(void)state;
	if (!root())
		return;
	snprintf(text, sizeof(text), "%s\t%s\n", FIN, fin_other());
	journal(text);
	assert_int_equal(recover(msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "net.ipv4.tcp_fin_timeout="));
	get(FIN, cur, sizeof(cur));
	assert_string_equal(cur, fin_other());
	assert_int_equal(access(jpath, F_OK), -1);
	journal(text);
	assert_int_equal(sysctl_recover(msg, sizeof(msg)), 0); /* once per command */
	assert_int_equal(access(jpath, F_OK), 0);
	unlink(jpath);
	assert_int_equal(recover(msg, sizeof(msg)), 0); /* none */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_net_only),
	    cmocka_unit_test_setup_teardown(test_entry_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_recover_refuses_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_recover_long, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_store_load_masks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_apply_leftover, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_apply_readback, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_recover, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
