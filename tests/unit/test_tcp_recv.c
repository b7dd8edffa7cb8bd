/* tcp-stream's receiver waits (--wait): the rule of auto, and the receive calls' tries on a
 * loopback connection, timed, counted and seen in this thread's voluntary context switches. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include "base/opts.h"
#include "base/util.h"
#include "measure/result.h"
#include "measure/side.h"
#include "transport/tcp.h"
#include "workload/tcp_stream.h"

/* auto tries again only with a CPU for every sender and receiver (two a connection), with
 * --recv recv or recvmsg and without --rcvlowat; block never; busy always. */
static void test_stream_spin_rule(void **state)
{
	(void)state;
	struct opts o;
	cpu_set_t set;

	opts_defaults(&o, NULL);
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	int cpus = CPU_COUNT(&set);

	o.wait = WAIT_AUTO;
	o.clients = 1;
	o.flows = 1;
	o.recv = RECV_RECV;
	assert_int_equal(stream_spin_ns(&o), cpus >= 2 ? STREAM_SPIN_NS : 0);
	assert_true(cpus < 2 || stream_spin_why(&o) == NULL);
	assert_true(stream_spin_by_cpus(&o)); /* here or on another host: its CPUs decide */
	o.recv = RECV_RECVMSG;
	assert_int_equal(stream_spin_ns(&o), cpus >= 2 ? STREAM_SPIN_NS : 0);
	o.flows = cpus; /* 2 x cpus threads */
	assert_int_equal(stream_spin_ns(&o), 0);
	assert_non_null(strstr(stream_wait_reason(&o), "than CPUs"));
	if (cpus >= 2) { /* two threads a connection, four with --bidir: exactly the CPUs, then
			  * twice as many */
		o.flows = 1;
		o.clients = cpus / 2;
		assert_int_equal(stream_spin_ns(&o), STREAM_SPIN_NS);
		o.clients = 1;
		o.flows = cpus / 2;
		assert_int_equal(stream_spin_ns(&o), STREAM_SPIN_NS);
		o.bidir = true;
		assert_int_equal(stream_spin_ns(&o), 0);
		o.bidir = false;
		o.flows = 1;
		o.clients = cpus;
		assert_int_equal(stream_spin_ns(&o), 0);
		o.clients = 1;
		o.cpus = strdup("client=0,server=0"); /* the sender and the receiver on one CPU */
		assert_int_equal(stream_spin_ns(&o), 0);
		assert_non_null(strstr(stream_wait_reason(&o), "--cpus or --pin"));
		free(o.cpus);
		o.cpus = strdup("client=0,server=1");
		assert_int_equal(stream_spin_ns(&o), STREAM_SPIN_NS);
		free(o.cpus);
		o.cpus = NULL;
	}
	o.flows = 1;
	for (int r = RECV_READ; r <= RECV_URING; r++) {
		o.recv = r;
		if (r == RECV_RECVMSG)
			continue;
		assert_int_equal(stream_spin_ns(&o), 0);
		assert_false(stream_spin_by_cpus(&o));
		assert_non_null(strstr(stream_wait_reason(&o), "recv and recvmsg"));
	}
	o.recv = RECV_RECV;
	o.rcvlowat = 65536;
	assert_int_equal(stream_spin_ns(&o), 0);
	assert_non_null(strstr(stream_wait_reason(&o), "--rcvlowat"));
	assert_false(stream_spin_by_cpus(&o));
	o.rcvlowat = 0;
	o.wait = WAIT_BLOCK;
	assert_int_equal(stream_spin_ns(&o), 0);
	assert_false(stream_spin_by_cpus(&o));
	assert_string_equal(stream_wait_reason(&o), "as --wait gave it");
	o.wait = WAIT_BUSY;
	assert_true(stream_spin_ns(&o) == TCP_NEVER_SLEEP);
	opts_free(&o);
}

/* A connected loopback pair: fd[0] sends, fd[1] receives. */
static void tcp_pair(int fd[2])
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
	fd[0] = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(fd[0], (struct sockaddr *)&a, sizeof(a)), 0);
	fd[1] = accept(l, NULL, NULL);
	assert_true(fd[1] >= 0);
	close(l);
}

static long vcsw(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

struct later {
	int fd;
	uint64_t after_ns;
};

static void *send_later(void *arg)
{
	struct later *l = arg;
	struct timespec ts = {(time_t)(l->after_ns / 1000000000), (long)(l->after_ns % 1000000000)};

	nanosleep(&ts, NULL);
	assert_int_equal(send(l->fd, "0123456789", 10, 0), 10);
	return NULL;
}

/* One receive of io's call on fd[1] while fd[0] sends 10 bytes after send_after_ns (0: before
 * it); the bytes it returned, its calls, its time and this thread's sleeps through *calls,
 * *ns and *slept. */
static ssize_t one_receive(struct tcp_io *io, int fd[2], uint64_t send_after_ns,
			   uint64_t *calls, uint64_t *ns, long *slept)
{
	struct later l = {fd[0], send_after_ns};
	char buf[64];
	pthread_t th;

	if (!send_after_ns) { /* and in: loopback's delivery may wait for ksoftirqd */
		struct pollfd in = {.fd = fd[1], .events = POLLIN};

		assert_int_equal(send(fd[0], "0123456789", 10, 0), 10);
		assert_int_equal(poll(&in, 1, 10000), 1);
	} else
		assert_int_equal(pthread_create(&th, NULL, send_later, &l), 0);
	io->syscalls = 0;
	long v0 = vcsw();
	uint64_t t0 = now_ns();
	ssize_t got = io->rx->recv(io, fd[1], buf, sizeof(buf));

	*ns = now_ns() - t0;
	*slept = vcsw() - v0;
	*calls = io->syscalls;
	if (send_after_ns)
		pthread_join(th, NULL);
	if (got > 0) /* what a test's earlier receive left: none */
		assert_int_equal(got, 10);
	return got;
}

static void test_stream_receive_tries(void **state)
{
	(void)state;
	int kinds[] = {RECV_RECV, RECV_RECVMSG};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct tcp_io io = {.rx = tcp_recv_of(kinds[k]), .spin_ns = 2000000000ULL};
		uint64_t calls, ns;
		long slept;
		int fd[2];

		tcp_pair(fd);
		assert_int_equal(tcp_timeouts(fd[1], 10000000000ULL), 0);
		/* Data waiting: one call, no try. */
		assert_int_equal(one_receive(&io, fd, 0, &calls, &ns, &slept), 10);
		assert_int_equal(calls, 1);
		/* Data 20 ms into a 2 s spin: taken by a try, the thread never slept. */
		assert_int_equal(one_receive(&io, fd, 20000000, &calls, &ns, &slept), 10);
		assert_true(calls >= 2);
		assert_int_equal(slept, 0);
		assert_true(ns >= 20000000 && ns < io.spin_ns);
		/* Data 300 ms in, past a 20 ms spin: the tries, then the call that sleeps. */
		io.spin_ns = 20000000;
		assert_int_equal(one_receive(&io, fd, 300000000, &calls, &ns, &slept), 10);
		assert_true(calls >= 3);
		assert_true(slept >= 1);
		assert_true(ns >= 300000000);
		/* Nothing comes: 20 ms of tries, then the call's own timeout (30 ms, in jiffies: at
		 * HZ 100 it may end up to 10 ms early), not longer than the two by more than a
		 * loaded machine's half second. */
		assert_int_equal(tcp_timeouts(fd[1], 30000000), 0);
		io.syscalls = 0;
		uint64_t t1 = now_ns();
		char none[16];

		assert_int_equal(io.rx->recv(&io, fd[1], none, sizeof(none)), -EAGAIN);
		t1 = now_ns() - t1;
		assert_true(io.syscalls >= 3);
		assert_true(t1 >= 40000000 && t1 < 550000000);
		assert_int_equal(tcp_timeouts(fd[1], 10000000000ULL), 0);
		/* Never sleeping: nothing there is -EAGAIN at once, one call (its timeout is 10 s). */
		io.spin_ns = TCP_NEVER_SLEEP;
		char buf[16];

		io.syscalls = 0;
		uint64_t t0 = now_ns();

		assert_int_equal(io.rx->recv(&io, fd[1], buf, sizeof(buf)), -EAGAIN);
		assert_int_equal(io.syscalls, 1);
		assert_true(now_ns() - t0 < 5000000000ULL);
		/* No spin: the call sleeps at once, one call. */
		io.spin_ns = 0;
		assert_int_equal(one_receive(&io, fd, 50000000, &calls, &ns, &slept), 10);
		assert_int_equal(calls, 1);
		assert_true(slept >= 1);
		close(fd[0]);
		close(fd[1]);
	}
}

/* What the receiving sides told of their wait: only sides that receive and told it count (an
 * agent from before sends neither counter, and its result still parses). */
static void test_recv_spin_told(void **state)
{
	(void)state;
	struct opts o;
	struct result r = {.cfg = &o};
	struct side_counters back;

	opts_defaults(&o, NULL);
	r.server.present = r.client.present = true;
	r.server.c.recv_spin_ns = 50000;
	assert_int_equal(result_recv_spin_ns(&r), -1); /* not told */
	r.server.c.recv_spin_told = 1;
	assert_int_equal(result_recv_spin_ns(&r), 50000);
	o.reverse = true; /* the client receives: it told nothing */
	assert_int_equal(result_recv_spin_ns(&r), -1);
	r.client.c.recv_spin_told = 2;
	assert_int_equal(result_recv_spin_ns(&r), 0);
	o.reverse = false;
	o.bidir = true; /* both receive: the largest */
	assert_int_equal(result_recv_spin_ns(&r), 50000);
	r.server.present = false;
	assert_int_equal(result_recv_spin_ns(&r), 0);
	cJSON *j = side_counters_to_json(&r.server.c);

	cJSON_DeleteItemFromObject(j, "recv_spin_ns");
	cJSON_DeleteItemFromObject(j, "recv_spin_told");
	assert_int_equal(side_counters_from_json(j, &back), 0);
	assert_int_equal(back.recv_spin_told, 0);
	assert_int_equal(back.recv_spin_ns, 0);
	cJSON_Delete(j);
	opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_spin_rule),
		cmocka_unit_test(test_stream_receive_tries),
		cmocka_unit_test(test_recv_spin_told),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
