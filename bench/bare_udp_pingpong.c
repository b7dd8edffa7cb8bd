/* bare_udp_pingpong: the same syscalls as `sockbench udp-rr --clients 1 --window 1` and
 * nothing else (client: poll + recvmsg + sendmsg on an unconnected socket; server: blocking
 * recvmsg + sendmsg), to measure what share of CPU this machine bills as user time for the
 * syscall loop alone. Prints: transactions/s user_s sys_s user_share (both processes). */
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	char buf[100] = {0};
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(sa);
	int srv = socket(AF_INET, SOCK_DGRAM, 0), cli = socket(AF_INET, SOCK_DGRAM, 0);

	if (srv < 0 || cli < 0 || bind(srv, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(srv, (struct sockaddr *)&sa, &alen))
		return 1;
	pid_t pid = fork();

	if (pid == 0) {
		struct sockaddr_in from;
		struct iovec v = {buf, sizeof(buf)};
		struct msghdr m = {.msg_name = &from, .msg_iov = &v, .msg_iovlen = 1};

		for (;;) {
			m.msg_namelen = sizeof(from);
			ssize_t n = recvmsg(srv, &m, 0);

			if (n == 1)
				_exit(0); /* the stop packet */
			if (n > 0)
				sendmsg(srv, &m, 0);
		}
	}
	struct iovec v = {buf, sizeof(buf)};
	struct msghdr tx = {.msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &v, .msg_iovlen = 1};
	struct msghdr rx = {.msg_iov = &v, .msg_iovlen = 1};
	struct pollfd p = {.fd = cli, .events = POLLIN};
	struct rusage r0, r1;
	long n = 0;

	getrusage(RUSAGE_SELF, &r0);
	double t0 = now(), t1;

	sendmsg(cli, &tx, 0);
	while ((t1 = now()) - t0 < secs) {
		poll(&p, 1, 100);
		if (recvmsg(cli, &rx, MSG_DONTWAIT) > 0) {
			n++;
			sendmsg(cli, &tx, 0);
		}
	}
	getrusage(RUSAGE_SELF, &r1);
	v.iov_len = 1;
	sendmsg(cli, &tx, 0);
	waitpid(pid, NULL, 0);
	struct rusage rc;

	getrusage(RUSAGE_CHILDREN, &rc); /* the server: its whole life, about the same window */
	double u = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
		   (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 +
		   (double)rc.ru_utime.tv_sec + (double)rc.ru_utime.tv_usec / 1e6;
	double s = (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
		   (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6 +
		   (double)rc.ru_stime.tv_sec + (double)rc.ru_stime.tv_usec / 1e6;

	printf("%.0f %.4f %.4f %.4f\n", (double)n / (t1 - t0), u, s, u / (u + s));
	return 0;
}
