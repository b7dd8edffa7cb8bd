/* flood: what a hostile neighbour sends an agent's data port, for the tests.
 *
 *   flood tcp ADDR PORT COUNT RATE [--send HEX] [--hold MS] [--rcvbuf BYTES]
 *   flood udp ADDR PORT COUNT RATE --send HEX [--size BYTES]
 *
 * tcp: COUNT connections at RATE per second, each sending the bytes HEX spells (if given);
 * closed at once, or with --hold kept open (reading nothing, with --rcvbuf a small receive
 * buffer) until MS after the last. udp: COUNT datagrams of --size bytes (default: the bytes
 * HEX spells), starting with those bytes. Prints "established N failed M" or "sent N". Exit 0,
 * or 2 on a usage error. IPv4 only. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static unsigned char payload[65536];
static size_t plen;

static int unhex(const char *h)
{
	size_t n = strlen(h);

	if (n % 2 || n / 2 > sizeof(payload))
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(h + 2 * i, "%2x", &v) != 1)
			return -1;
		payload[i] = (unsigned char)v;
	}
	plen = n / 2;
	return 0;
}

static void pace(const struct timespec *t0, long i, double rate)
{
	struct timespec now, d;
	double due = (double)i / rate, at;

	clock_gettime(CLOCK_MONOTONIC, &now);
	at = (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
	if (due <= at)
		return;
	d.tv_sec = (time_t)(due - at);
	d.tv_nsec = (long)((due - at - (double)d.tv_sec) * 1e9);
	nanosleep(&d, NULL);
}

int main(int argc, char **argv)
{
	struct sockaddr_in dst = {.sin_family = AF_INET};
	long count, hold = -1, rcvbuf = 0, size = -1;
	double rate;
	struct rlimit rl;
	struct timespec t0;

	if (argc < 6 || (strcmp(argv[1], "tcp") && strcmp(argv[1], "udp")) ||
	    !inet_pton(AF_INET, argv[2], &dst.sin_addr)) {
		fprintf(stderr, "usage: flood tcp|udp ADDR PORT COUNT RATE [--send HEX] [--hold MS] "
				"[--rcvbuf BYTES] [--size BYTES]\n");
		return 2;
	}
	dst.sin_port = htons((unsigned short)atoi(argv[3]));
	count = atol(argv[4]);
	rate = atof(argv[5]);
	for (int i = 6; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--send") && unhex(argv[i + 1]) == 0)
			continue;
		else if (!strcmp(argv[i], "--hold"))
			hold = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--rcvbuf"))
			rcvbuf = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--size"))
			size = atol(argv[i + 1]);
		else {
			fprintf(stderr, "flood: bad option %s\n", argv[i]);
			return 2;
		}
	}
	if (rate <= 0 || count < 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!strcmp(argv[1], "udp")) {
		int fd = socket(AF_INET, SOCK_DGRAM, 0);
		long sent = 0;
		size_t len = size > 0 && (size_t)size <= sizeof(payload) ? (size_t)size : plen;

		for (long i = 0; i < count && fd >= 0; i++) {
			pace(&t0, i, rate);
			sent += sendto(fd, payload, len, 0, (struct sockaddr *)&dst, sizeof(dst)) > 0;
		}
		printf("sent %ld\n", sent);
		return 0;
	}
	/* Room for every connection held open. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	int *fds = calloc((size_t)count + 1, sizeof(int));
	long ok = 0, failed = 0;

	for (long i = 0; i < count; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0), v = (int)rcvbuf;

		pace(&t0, i, rate);
		if (fd >= 0 && rcvbuf)
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
		if (fd < 0 || connect(fd, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
			failed++;
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (plen)
			send(fd, payload, plen, MSG_NOSIGNAL);
		ok++;
		if (hold < 0)
			close(fd);
		else
			fds[ok - 1] = fd;
	}
	printf("established %ld failed %ld\n", ok, failed);
	fflush(stdout);
	if (hold >= 0) {
		usleep((useconds_t)hold * 1000);
		for (long i = 0; i < ok; i++)
			close(fds[i]);
	}
	free(fds);
	return 0;
}
