/* minimal: each default workload as the fewest calls its scenario needs, and nothing else,
 * the reference sockbench's overhead is measured against (bench/overhead.sh). No latency
 * clocks, no histograms, no error accounting: what is left is the kernel's work plus a loop.
 *
 *   minimal udp-rr SECS [BATCH [connected] [steered]]  2 client processes x 100 requests
 *          outstanding, 100-byte datagrams, one blocking server socket (scenario B). A client
 *          answers every reply with a new request, reading without waiting until nothing is
 *          there, then poll()s (the report's calls); BATCH > 1: recvmmsg/sendmmsg of up to BATCH.
 *          A request unanswered for 200 ms is sent again (sockbench's --timeout): a server's
 *          full receive buffer drops some, and a client that let them go would run the rest
 *          with fewer outstanding, a lighter load than the scenario's.
 *          steered: what an expert writes on a small machine: two server processes, each its
 *          own SO_REUSEPORT socket with SO_INCOMING_CPU, client i and server i on CPU i (the
 *          kernel from 6.1 picks the socket whose CPU is the one the datagram arrives on).
 *   minimal tcp-rr SECS        one connection, 1-byte request, 1-byte answer, blocking calls.
 *   minimal tcp-stream SECS    one connection, 131072-byte send() calls, recv() the same size,
 *          trying again for 50 us before it blocks (sockbench's --wait auto on 2 CPUs or more).
 *   minimal udp-stream SECS [connected]  one sender of 1472-byte datagrams, one receiver that
 *          tries again for 5 us before it blocks (sockbench's --wait auto on 2 CPUs or more).
 *   minimal tcp-crr CONNS      connect, recv() 2 x 10,000 bytes, close as soon as they are in;
 *          the server accepts, sends them and closes (1,000 connections of warm-up first).
 *
 * Every side is its own process and takes getrusage(RUSAGE_SELF) and its count at the edges
 * of the window, as sockbench's sides do. Prints one line:
 *   RATE CLIENT_CPU_US_PER_UNIT SERVER_CPU_US_PER_UNIT USER_SHARE TOTAL
 * USER_SHARE: user over user + sys, both sides; TOTAL: the units of the whole run to the
 * window's end, warm-up in (transactions, MB of 10^6 bytes, packets received, connections). */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { WARMUP, MEASURE, STOP };
#define NPROC 4
#define WINDOW 100
#define MAXB 64

struct mark {
	double cpu_s;  /* user + sys of the process */
	double user_s; /* user alone */
	uint64_t count;
};

struct shared {
	_Atomic int phase;
	double t0, t1;
	struct mark m[NPROC][2]; /* [process][0: window opens, 1: closes] */
	int client[NPROC];       /* 1: the process is a client side */
};

static struct shared *sh;
static struct sockaddr_in srv_addr = {.sin_family = AF_INET};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct mark mark_now(uint64_t count)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (struct mark){(double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
				     (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6,
			     (double)r.ru_utime.tv_sec + (double)r.ru_utime.tv_usec / 1e6, count};
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Take the window's marks as the phase passes; false once it is over. Called once per loop
 * turn: one load of a line no one writes while the loop runs. */
static int follow(int id, int *seen, uint64_t count)
{
	int ph = atomic_load_explicit(&sh->phase, memory_order_relaxed);

	if (ph == *seen)
		return 1;
	if (*seen == WARMUP)
		sh->m[id][0] = mark_now(count);
	if (ph == STOP)
		sh->m[id][1] = mark_now(count);
	*seen = ph;
	return ph != STOP;
}

static int udp_sock(int connected)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || (connected && connect(fd, (struct sockaddr *)&srv_addr, sizeof(srv_addr))))
		die("udp socket");
	return fd;
}

/* ---- udp-rr ---- */
static void udp_rr_server(int id, int fd, int batch)
{
	static char buf[MAXB][100];
	struct sockaddr_in from[MAXB];
	struct iovec iov[MAXB];
	struct mmsghdr mm[MAXB];
	int seen = WARMUP;
	uint64_t n = 0;

	for (int i = 0; i < MAXB; i++) {
		iov[i] = (struct iovec){buf[i], sizeof(buf[i])};
		mm[i].msg_hdr = (struct msghdr){.msg_name = &from[i], .msg_iov = &iov[i], .msg_iovlen = 1};
	}
	while (follow(id, &seen, n)) {
		if (batch > 1) {
			for (int i = 0; i < batch; i++)
				mm[i].msg_hdr.msg_namelen = sizeof(from[i]);
			int got = recvmmsg(fd, mm, (unsigned)batch, MSG_WAITFORONE, NULL);

			for (int i = 0; i < got; i++)
				iov[i].iov_len = mm[i].msg_len;
			if (got > 0)
				n += (uint64_t)sendmmsg(fd, mm, (unsigned)got, 0);
			for (int i = 0; i < got; i++)
				iov[i].iov_len = sizeof(buf[i]);
			continue;
		}
		mm[0].msg_hdr.msg_namelen = sizeof(from[0]);
		ssize_t got = recvmsg(fd, &mm[0].msg_hdr, 0);

		if (got > 0) {
			iov[0].iov_len = (size_t)got;
			n += sendmsg(fd, &mm[0].msg_hdr, 0) > 0;
			iov[0].iov_len = sizeof(buf[0]);
		}
	}
}

/* The requests outstanding: each datagram's first byte is its slot, echoed back; a slot's
 * request unanswered for LOST_S is sent again. The clock is read once a receive call. */
#define LOST_S 0.2
static double slot_sent[WINDOW];

static void send_slot(int fd, struct msghdr *m, int slot, double t)
{
	((char *)m->msg_iov[0].iov_base)[0] = (char)slot;
	if (sendmsg(fd, m, 0) < 0)
		die("sendmsg");
	slot_sent[slot] = t;
}

/* Send again what waited LOST_S (every 1,024 answers, and whenever nothing is there). */
static void resend_lost(int fd, struct msghdr *m, double t)
{
	for (int i = 0; i < WINDOW; i++)
		if (t - slot_sent[i] >= LOST_S)
			send_slot(fd, m, i, t);
}

static void udp_rr_client(int id, int batch, int connected)
{
	static char buf[MAXB][100];
	struct iovec iov[MAXB];
	struct mmsghdr rx[MAXB], tx[MAXB];
	int fd = udp_sock(connected), seen = WARMUP;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	uint64_t n = 0, swept = 0;

	for (int i = 0; i < MAXB; i++) {
		iov[i] = (struct iovec){buf[i], sizeof(buf[i])};
		rx[i].msg_hdr = (struct msghdr){.msg_iov = &iov[i], .msg_iovlen = 1};
		tx[i].msg_hdr = rx[i].msg_hdr;
		if (!connected) {
			tx[i].msg_hdr.msg_name = &srv_addr;
			tx[i].msg_hdr.msg_namelen = sizeof(srv_addr);
		}
	}
	for (int i = 0; i < WINDOW; i++)
		send_slot(fd, &tx[0].msg_hdr, i, now());
	while (follow(id, &seen, n)) {
		int got;

		if (batch > 1) {
			got = recvmmsg(fd, rx, (unsigned)batch, MSG_DONTWAIT, NULL);
			if (got > 0)
				sendmmsg(fd, tx, (unsigned)got, 0);
		} else {
			got = recvmsg(fd, &rx[0].msg_hdr, MSG_DONTWAIT) > 0;
			if (got)
				sendmsg(fd, &tx[0].msg_hdr, 0);
		}
		double t = now();

		for (int i = 0; i < got; i++) /* the answers' slots, sent again just now */
			slot_sent[(unsigned char)buf[i][0] % WINDOW] = t;
		if (got > 0)
			n += (uint64_t)got;
		else
			poll(&p, 1, 100);
		if (got <= 0 || n - swept >= 1024) {
			resend_lost(fd, &tx[0].msg_hdr, t);
			swept = n;
		}
	}
}

/* ---- tcp-rr, tcp-stream ---- */
static int tcp_listen(void)
{
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);
	socklen_t len = sizeof(srv_addr);

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&srv_addr, sizeof(srv_addr)) || listen(fd, 1024) ||
	    getsockname(fd, (struct sockaddr *)&srv_addr, &len))
		die("listen");
	return fd;
}

static int tcp_connect(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&srv_addr, sizeof(srv_addr)))
		die("connect");
	return fd;
}

static void tcp_rr(int id, int fd)
{
	char b = 0;
	int seen = WARMUP;
	uint64_t n = 0;

	if (id == 0 && send(fd, &b, 1, 0) != 1)
		die("send");
	while (follow(id, &seen, n) && recv(fd, &b, 1, 0) == 1 && send(fd, &b, 1, 0) == 1)
		n++;
	follow(id, &seen, n);
}

/* The receiver sockbench's --wait auto runs where every side has a CPU of its own (io.h's
 * io_spin_ns, tcp_stream.h's stream_spin_ns): non-blocking tries of call(fd, arg, flags) for
 * up to spin seconds, then a blocking one. */
static ssize_t retrying(ssize_t (*call)(int fd, void *arg, int flags), int fd, void *arg,
			double spin)
{
	ssize_t r = call(fd, arg, MSG_DONTWAIT);
	double t0 = 0;

	while (r < 0 && errno == EAGAIN) {
		double t = now();

		if (!t0)
			t0 = t;
		else if (t - t0 >= spin)
			return call(fd, arg, 0);
		r = call(fd, arg, MSG_DONTWAIT);
	}
	return r;
}

static char stream_buf[131072];

static ssize_t stream_recv(int fd, void *arg, int flags)
{
	(void)arg;
	return recv(fd, stream_buf, sizeof(stream_buf), flags);
}

static void tcp_stream(int id, int fd)
{
	int seen = WARMUP;
	uint64_t n = 0;
	ssize_t r;

	while (follow(id, &seen, n)) {
		r = id ? retrying(stream_recv, fd, NULL, 50e-6)
		       : send(fd, stream_buf, sizeof(stream_buf), 0);
		if (r <= 0)
			break;
		n += (uint64_t)r;
	}
	follow(id, &seen, n);
}

/* ---- udp-stream ---- */
static ssize_t dgram_recv(int fd, void *m, int flags)
{
	return recvmsg(fd, m, flags);
}

static void udp_stream(int id, int fd, int connected)
{
	static char buf[1472];
	struct iovec v = {buf, sizeof(buf)};
	struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};
	int seen = WARMUP;
	uint64_t n = 0;

	if (id == 0 && !connected) {
		m.msg_name = &srv_addr;
		m.msg_namelen = sizeof(srv_addr);
	}
	while (follow(id, &seen, n))
		n += (id ? retrying(dgram_recv, fd, &m, 5e-6) : sendmsg(fd, &m, 0)) > 0;
}

/* ---- tcp-crr ---- */
static void tcp_crr(int id, int lfd, long conns)
{
	static char buf[10000];
	long total = conns + 1000;
	int seen = WARMUP;

	for (long i = 0; i < total; i++) {
		if (i == 1000 && id == 0) {
			sh->t0 = now();
			atomic_store(&sh->phase, MEASURE);
		}
		follow(id, &seen, (uint64_t)i);
		if (id) {
			int fd = accept(lfd, NULL, NULL);

			if (fd < 0 || send(fd, buf, sizeof(buf), 0) != sizeof(buf) ||
			    send(fd, buf, sizeof(buf), 0) != sizeof(buf))
				die("server");
			close(fd);
			continue;
		}
		int fd = tcp_connect();
		ssize_t got = 0, r;

		while (got < 2 * (ssize_t)sizeof(buf) && (r = recv(fd, buf, sizeof(buf), 0)) > 0)
			got += r;
		if (got != 2 * (ssize_t)sizeof(buf))
			die("client: short");
		close(fd);
	}
	if (id == 0)
		sh->t1 = now();
	sh->m[id][1] = mark_now((uint64_t)total);
}

/* Run this process on CPU cpu alone (steered: each side of a pair on the CPU of its pair). */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity (steered needs CPUs 0 and 1)");
}

static void usage(void)
{
	fprintf(stderr, "usage: minimal udp-rr SECS [BATCH [connected] [steered]] | tcp-rr SECS | "
			"tcp-stream SECS | udp-stream SECS [connected] | tcp-crr CONNS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		usage();
	const char *w = argv[1];
	double arg = atof(argv[2]);
	int batch = argc > 3 ? atoi(argv[3]) : 1, connected = 0, steered = 0, nclient = 1, lfd = -1;
	int sfd[2] = {-1, -1}, one = 1;
	struct timeval rcvto = {0, 50000};
	socklen_t len = sizeof(srv_addr);

	for (int i = 3; i < argc; i++)
	{
		connected |= !strcmp(argv[i], "connected");
		steered |= !strcmp(argv[i], "steered");
	}
	if (batch < 1 || batch > MAXB || arg <= 0 || (steered && strcmp(w, "udp-rr")))
		usage();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	srv_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!strcmp(w, "udp-rr") || !strcmp(w, "udp-stream")) {
		for (int i = 0; i <= steered; i++) {
			sfd[i] = udp_sock(0);
			if ((steered && setsockopt(sfd[i], SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one))) ||
			    bind(sfd[i], (struct sockaddr *)&srv_addr, sizeof(srv_addr)) ||
			    getsockname(sfd[i], (struct sockaddr *)&srv_addr, &len))
				die("bind");
			/* So a blocked receive sees the window close when the senders stop. */
			setsockopt(sfd[i], SOL_SOCKET, SO_RCVTIMEO, &rcvto, sizeof(rcvto));
		}
		nclient = !strcmp(w, "udp-rr") ? 2 : 1;
	} else if (!strcmp(w, "tcp-rr") || !strcmp(w, "tcp-stream") || !strcmp(w, "tcp-crr")) {
		lfd = tcp_listen();
	} else {
		usage();
	}
	/* Processes 0..nclient-1 are clients, the last one (steered: two) the server. */
	int nproc = nclient + 1 + steered;
	pid_t pid[NPROC];

	for (int id = 0; id < nproc; id++) {
		int server = id >= nclient;

		sh->client[id] = !server;
		pid[id] = fork();
		if (pid[id] < 0)
			die("fork");
		if (pid[id])
			continue;
		if (!strcmp(w, "udp-rr")) {
			int cpu = server ? id - nclient : id;

			if (steered) {
				pin(cpu);
				if (server && setsockopt(sfd[cpu], SOL_SOCKET, SO_INCOMING_CPU, &cpu,
							 sizeof(cpu)))
					die("SO_INCOMING_CPU");
			}
			if (server)
				udp_rr_server(id, sfd[steered ? cpu : 0], batch);
			else
				udp_rr_client(id, batch, connected);
		} else if (!strcmp(w, "udp-stream")) {
			udp_stream(server, server ? sfd[0] : udp_sock(connected), connected);
		} else if (!strcmp(w, "tcp-crr")) {
			tcp_crr(server, lfd, (long)arg);
		} else {
			int fd = server ? accept(lfd, NULL, NULL) : tcp_connect();

			if (fd < 0)
				die("accept");
			if (!strcmp(w, "tcp-rr"))
				tcp_rr(server, fd);
			else
				tcp_stream(server, fd);
		}
		_exit(0);
	}
	if (strcmp(w, "tcp-crr")) {
		usleep(1000000); /* warm-up: 1 s, as sockbench's default */
		sh->t0 = now();
		atomic_store(&sh->phase, MEASURE);
		usleep((useconds_t)(arg * 1e6));
		sh->t1 = now();
		atomic_store(&sh->phase, STOP);
	}
	for (int id = 0; id < nproc; id++) {
		int st;

		if (waitpid(pid[id], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	}
	/* The units: what the clients counted, or for the streams what the receiver got. */
	int counter = !strcmp(w, "tcp-stream") || !strcmp(w, "udp-stream") ? nproc - 1 : -1;
	double units = 0, total = 0, ccpu = 0, scpu = 0, user = 0;

	for (int id = 0; id < nproc; id++) {
		double d = (double)(sh->m[id][1].count - sh->m[id][0].count);
		double cpu = sh->m[id][1].cpu_s - sh->m[id][0].cpu_s;

		if (counter < 0 ? sh->client[id] : id == counter) {
			units += d;
			total += (double)sh->m[id][1].count;
		}
		*(sh->client[id] ? &ccpu : &scpu) += cpu;
		user += sh->m[id][1].user_s - sh->m[id][0].user_s;
	}
	double scale = !strcmp(w, "tcp-stream") ? 1e6 : 1; /* tcp-stream counts megabytes */

	units /= scale;
	total /= scale;
	if (units <= 0)
		return 1;
	printf("%.3f %.3f %.3f %.4f %.0f\n", units / (sh->t1 - sh->t0), ccpu * 1e6 / units,
	       scpu * 1e6 / units, user / (ccpu + scpu), total);
	return 0;
}
