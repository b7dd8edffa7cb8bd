/* Every back end in the registry (so a new one is covered at once): datagrams go through
 * intact and to the right peer, and the system calls are counted as made. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <sched.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "transport/io.h"
#include "base/opts.h"
#include "base/util.h"

#define N 16

static int udp_socket(struct sockaddr_in *a)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	socklen_t len = sizeof(*a);

	*a = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)a, sizeof(*a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)a, &len), 0);
	return fd;
}

static void round_trip(const struct io_ops *ops, int batch, enum io_wait wait)
{
	struct opts o;
	struct sockaddr_in sa, ra;
	int sfd = udp_socket(&sa), rfd = udp_socket(&ra);
	char err[200] = "", bufs[N][64], rbufs[N][64];
	struct io_msg m[N], r[N];
	struct io_ctx tx = {.nsock = 1, .fds = &sfd, .wait = wait, .batch = batch, .depth = N, .cap = 64};
	struct io_ctx rx = {.nsock = 1, .fds = &rfd, .wait = wait, .batch = batch, .depth = N, .cap = 64};

	opts_defaults(&o, NULL);
	tx.o = rx.o = &o;
	if (ops->open(&tx, err, sizeof(err)) || ops->open(&rx, err, sizeof(err)))
		fail_msg("%s open: %s", ops->name, err);
	for (int i = 0; i < N; i++) {
		snprintf(bufs[i], sizeof(bufs[i]), "datagram %d", i);
		m[i] = (struct io_msg){.buf = bufs[i], .len = strlen(bufs[i]) + 1, .sock = 0,
				       .addrlen = sizeof(ra)};
		memcpy(&m[i].addr, &ra, sizeof(ra));
		r[i] = (struct io_msg){.buf = rbufs[i], .cap = sizeof(rbufs[i])};
	}
	uint64_t before = tx.syscalls;

	assert_int_equal(ops->send(&tx, m, N), N);
	uint64_t send_calls = tx.syscalls - before;

	/* One sendmsg per datagram; one sendmmsg (or io_uring_enter) per batch. */
	if (!strcmp(ops->name, "msg"))
		assert_int_equal(send_calls, N);
	else
		assert_true(send_calls >= 1 && send_calls <= (uint64_t)(N + batch - 1) / (uint64_t)batch);
	int got = 0;

	for (int tries = 0; got < N && tries < 100; tries++) {
		int n = ops->recv(&rx, r + got, N - got);

		assert_true(n >= 0);
		got += n;
		if (got < N)
			ops->wait(&rx, 10);
	}
	assert_int_equal(got, N);
	for (int i = 0; i < N; i++) {
		assert_string_equal(r[i].buf, bufs[i]);
		assert_int_equal(r[i].len, m[i].len);
		assert_int_equal(((struct sockaddr_in *)&r[i].addr)->sin_port, sa.sin_port);
	}
	/* The receive side's count holds a call per datagram with recvmsg, one per batch at the
	 * most with recvmmsg, and is bounded by the calls the loop above could have led to. */
	if (!strcmp(ops->name, "msg"))
		assert_true(rx.syscalls >= (uint64_t)N);
	else if (!strcmp(ops->name, "mmsg"))
		assert_true(rx.syscalls >= (uint64_t)(N + batch - 1) / (uint64_t)batch);
	else
		assert_true(rx.syscalls >= 1);
	assert_true(rx.syscalls <= (uint64_t)(4 * N + 200));
	ops->close(&tx);
	ops->close(&rx);
	close(sfd);
	close(rfd);
	opts_free(&o);
}

static void test_every_back_end(void **state)
{
	(void)state;
	int n = 0;

	for (int i = 0; io_registry[i]; i++, n++) {
		round_trip(io_registry[i], 1, IO_WAIT_POLL);
		round_trip(io_registry[i], 8, IO_WAIT_POLL);
		round_trip(io_registry[i], 8, IO_WAIT_EPOLL);
	}
	assert_true(n >= 2);
}

/* recvmsg counting on an empty socket: one failed call, counted; the poll counted too. */
static void test_counts_failed_calls(void **state)
{
	(void)state;
	struct opts o;
	struct sockaddr_in a;
	int fd = udp_socket(&a);
	char err[100], buf[8];
	struct io_msg r = {.buf = buf, .cap = sizeof(buf)};
	struct io_ctx c = {.nsock = 1, .fds = &fd, .wait = IO_WAIT_POLL, .batch = 1, .cap = 8};

	opts_defaults(&o, NULL);
	c.o = &o;
	assert_int_equal(io_msg_ops.open(&c, err, sizeof(err)), 0);
	assert_int_equal(io_msg_ops.recv(&c, &r, 1), 0);
	assert_int_equal(c.syscalls, 1);
	io_msg_ops.wait(&c, 1);
	assert_int_equal(c.syscalls, 2);
	io_msg_ops.close(&c);
	close(fd);
	opts_free(&o);
}

/* The msg back end, connected (send/recvfrom) and not (sendmsg/recvmsg): a datagram larger than
 * the receive buffer is told cut (len the buffer's, trunc set), a whole one not, the sender's
 * address comes back either way, and each call is counted. */
static void test_msg_connected_trunc(void **state)
{
	(void)state;
	for (int connected = 0; connected <= 1; connected++) {
		struct opts o;
		struct sockaddr_in sa, ra;
		int sfd = udp_socket(&sa), rfd = udp_socket(&ra);
		char err[100], big[100], buf[64];
		struct io_msg m = {.buf = big, .len = sizeof(big), .addrlen = sizeof(ra)};
		struct io_msg r = {.buf = buf, .cap = sizeof(buf)};
		struct io_ctx tx = {.nsock = 1, .fds = &sfd, .wait = IO_WAIT_POLL, .batch = 1,
				    .cap = sizeof(big), .connected = connected};
		struct io_ctx rx = tx;

		rx.fds = &rfd;
		rx.cap = sizeof(buf);
		memset(big, 'x', sizeof(big));
		memcpy(&m.addr, &ra, sizeof(ra));
		if (connected) {
			assert_int_equal(connect(sfd, (struct sockaddr *)&ra, sizeof(ra)), 0);
			assert_int_equal(connect(rfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
			memset(&m.addr, 0, sizeof(m.addr)); /* a connected send needs none */
		}
		opts_defaults(&o, NULL);
		tx.o = rx.o = &o;
		assert_int_equal(io_msg_ops.open(&tx, err, sizeof(err)), 0);
		assert_int_equal(io_msg_ops.open(&rx, err, sizeof(err)), 0);
		assert_int_equal(io_msg_ops.send(&tx, &m, 1), 1);
		m.len = 10;
		assert_int_equal(io_msg_ops.send(&tx, &m, 1), 1);
		assert_int_equal(tx.syscalls, 2);
		for (int k = 0; k < 2; k++) {
			int n = 0;

			for (int tries = 0; !n && tries < 100; tries++)
				if (!(n = io_msg_ops.recv(&rx, &r, 1)))
					io_msg_ops.wait(&rx, 10);
			assert_int_equal(n, 1);
			assert_int_equal(r.len, k ? 10 : sizeof(buf));
			assert_int_equal(r.trunc, !k);
			assert_int_equal(((struct sockaddr_in *)&r.addr)->sin_port, sa.sin_port);
		}
		io_msg_ops.close(&tx);
		io_msg_ops.close(&rx);
		close(sfd);
		close(rfd);
		opts_free(&o);
	}
}

/* Payload buffers: zeroed; a page or more starts on a page (the kernel's copy into one 16 bytes
 * past a page ran at half speed), smaller ones as malloc gives them. */
static void test_malloc_io(void **state)
{
	static const size_t sizes[] = {1, 100, 4095, 4096, 4097, 131072, 65507};

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned char *p = xmalloc_io(sizes[k]);

		if (sizes[k] >= IO_ALIGN)
			assert_int_equal((uintptr_t)p % IO_ALIGN, 0);
		for (size_t i = 0; i < sizes[k]; i++)
			assert_int_equal(p[i], 0);
		free(p);
	}
}

/* transport/udp.h's tag functions (its udp_socket is another than this file's) */
void put_tag(uint8_t *buf, size_t size, uint64_t tag);
int udp_rr_tag(const uint8_t *buf, size_t len, size_t size, uint32_t window, uint32_t *slot,
	       uint32_t *gen);
uint64_t udp_rr_tag_make(size_t size, uint32_t window, uint32_t slot, uint32_t gen);

/* udp-rr's request tag at every size: slot and generation come back as written, and an answer
 * to the previous request of a slot (a late one, after its re-send) is told from the answer to
 * the current one also below 8 bytes, where the tag used to carry the slot alone. */
static void test_udp_rr_tag(void **state)
{
	static const struct {
		size_t size;
		uint32_t window;
	} cases[] = {{1, 2}, {1, 100}, {1, 128}, {2, 100}, {3, 1000}, {7, 100000}, {8, 100}, {100, 100}};
	uint8_t buf[128];

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		size_t size = cases[k].size;
		uint32_t window = cases[k].window, slot, gen, late_gen;

		for (uint32_t i = 0; i < window; i += window / 7 + 1) {
			for (uint32_t g = 1; g < 70; g += 3) {
				memset(buf, 0xee, sizeof(buf));
				put_tag(buf, size, udp_rr_tag_make(size, window, i, g));
				assert_int_equal(udp_rr_tag(buf, size, size, window, &slot, &gen), 0);
				assert_int_equal(slot, i);
				put_tag(buf, size, udp_rr_tag_make(size, window, i, g - 1));
				assert_int_equal(udp_rr_tag(buf, size, size, window, &slot, &late_gen), 0);
				assert_int_equal(slot, i);
				assert_int_not_equal(gen, late_gen); /* the late answer is not the current */
			}
		}
		assert_int_equal(udp_rr_tag(buf, size + 1, size, window, &slot, &gen), -1);
	}
}

/* IO_WAIT_BLOCK with spin_ns, msg and mmsg: on an empty socket the receive first tries
 * again without sleeping for at least spin_ns (more than one call, each counted), then sleeps
 * in one blocking call until the socket's receive timeout; without spin_ns that one call is
 * all. A datagram already there comes back from the first try. Elapsed times are only
 * bounded from below (a loaded machine makes them longer, never shorter). */
static void test_block_retries(void **state)
{
	(void)state;
	const struct io_ops *ops[] = {&io_msg_ops, &io_mmsg_ops};
	struct opts o;

	opts_defaults(&o, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		for (uint32_t spin = 0; spin <= 20000000; spin += 20000000) {
			struct sockaddr_in a;
			int fd = udp_socket(&a);
			char err[100], buf[8];
			struct io_msg r = {.buf = buf, .cap = sizeof(buf)};
			struct io_ctx c = {.o = &o, .nsock = 1, .fds = &fd, .wait = IO_WAIT_BLOCK,
					   .batch = 1, .cap = 8, .spin_ns = spin};

			assert_int_equal(ops[i]->open(&c, err, sizeof(err)), 0);
			uint64_t t0 = now_ns();

			assert_int_equal(ops[i]->recv(&c, &r, 1), 0);
			/* The tries, then the blocking call to its receive timeout (50 ms). */
			assert_true(now_ns() - t0 >= spin + 50000000ULL);
			/* Without tries, the blocking call alone. */
			if (spin)
				assert_true(c.syscalls >= 3);
			else
				assert_int_equal(c.syscalls, 1);
			assert_int_equal(sendto(fd, "x", 1, 0, (struct sockaddr *)&a, sizeof(a)), 1);
			c.syscalls = 0;
			assert_int_equal(ops[i]->recv(&c, &r, 1), 1);
			assert_int_equal(r.len, 1);
			assert_int_equal(c.syscalls, 1);
			ops[i]->close(&c);
			close(fd);
		}
	opts_free(&o);
}

/* --wait auto's retries: only where every busy thread (clients, a --bidir client's two
 * halves, server threads) has a CPU this process may use, and never for a paced sender or
 * another --wait. */
static void test_spin_rule(void **state)
{
	(void)state;
	struct opts o;
	cpu_set_t set;

	opts_defaults(&o, NULL);
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	int cpus = CPU_COUNT(&set);

	o.wait = WAIT_AUTO;
	o.clients = 1;
	o.server_threads = 1;
	assert_int_equal(io_spin_ns(&o), cpus >= 2 ? IO_SPIN_NS : 0);
	o.clients = cpus;
	assert_int_equal(io_spin_ns(&o), 0);
	o.clients = 1;
	o.bidir = true; /* one socket sends and receives: poll() waits, never a retry */
	assert_int_equal(io_spin_ns(&o), 0);
	assert_non_null(strstr(io_spin_reason(&o), "--bidir"));
	o.bidir = false;
	o.rate = 1000;
	assert_int_equal(io_spin_ns(&o), 0);
	assert_non_null(strstr(io_spin_reason(&o), "paced"));
	o.rate = 0;
	o.wait = WAIT_BLOCK;
	assert_int_equal(io_spin_ns(&o), 0);
	opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: io_uring's task work, left by the rings the others close, can cut a
		 * blocking call short with EINTR in this thread later (seen: 2-4 calls where
		 * one was due), and that test counts calls. */
		cmocka_unit_test(test_block_retries),
		cmocka_unit_test(test_every_back_end),
		cmocka_unit_test(test_counts_failed_calls),
		cmocka_unit_test(test_msg_connected_trunc),
		cmocka_unit_test(test_malloc_io),
		cmocka_unit_test(test_udp_rr_tag),
		cmocka_unit_test(test_spin_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
