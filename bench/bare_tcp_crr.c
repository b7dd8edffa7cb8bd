/* bare_tcp_crr: the calls of `sockbench tcp-crr` and nothing else, as the reference for its
 * overhead: a forked server accepts, sends 2 x 10,000 bytes and closes; the client connects,
 * recv()s every byte, reads the FIN and closes, N times. Prints: connections/s, then user and
 * sys microseconds per connection of the client and of the server. */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSG 10000

static double tv(struct timeval t)
{
	return (double)t.tv_sec * 1e6 + (double)t.tv_usec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	static char buf[MSG];
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(sa);
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0);

	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1024) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &alen))
		return 1;
	pid_t pid = fork();

	if (pid == 0) {
		for (long i = 0; i < n; i++) {
			int fd = accept(lfd, NULL, NULL);

			send(fd, buf, MSG, 0);
			send(fd, buf, MSG, 0);
			close(fd);
		}
		_exit(0);
	}
	struct rusage r0, r1, rc;
	struct timespec t0, t1;

	getrusage(RUSAGE_SELF, &r0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		long got = 0, r;

		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return 1;
		while ((r = recv(fd, buf, MSG, 0)) > 0)
			got += r; /* to the FIN: the server closes first */
		close(fd);
		if (got != 2 * MSG)
			return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &r1);
	waitpid(pid, NULL, 0);
	getrusage(RUSAGE_CHILDREN, &rc);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	printf("%.0f %.2f %.2f %.2f %.2f\n", (double)n / secs, (tv(r1.ru_utime) - tv(r0.ru_utime)) / (double)n,
	       (tv(r1.ru_stime) - tv(r0.ru_stime)) / (double)n, tv(rc.ru_utime) / (double)n,
	       tv(rc.ru_stime) / (double)n);
	return 0;
}
