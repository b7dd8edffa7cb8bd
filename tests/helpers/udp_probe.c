/* udp_probe SRC_ADDR DST_ADDR PORT SIZE [HEX]: send one datagram of SIZE bytes from SRC_ADDR
 * to DST_ADDR:PORT (starting with the bytes HEX spells, zeros after) and wait 500 ms for an
 * answer. Exit 0 if one came (printing its size), 1 if none, 2 on a setup error. For tests
 * of what the agent answers, and to whom. */
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in src = {.sin_family = AF_INET}, dst = {.sin_family = AF_INET};
	static char buf[65536];
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (argc < 5 || argc > 6 || fd < 0 || !inet_pton(AF_INET, argv[1], &src.sin_addr) ||
	    !inet_pton(AF_INET, argv[2], &dst.sin_addr)) {
		fprintf(stderr, "usage: udp_probe SRC_ADDR DST_ADDR PORT SIZE [HEX]\n");
		return 2;
	}
	dst.sin_port = htons((unsigned short)atoi(argv[3]));
	size_t size = (size_t)atol(argv[4]);

	for (size_t i = 0; argc == 6 && argv[5][2 * i] && argv[5][2 * i + 1] && i < sizeof(buf); i++)
		sscanf(argv[5] + 2 * i, "%2hhx", (unsigned char *)&buf[i]);

	if (size > sizeof(buf) || bind(fd, (struct sockaddr *)&src, sizeof(src)) ||
	    sendto(fd, buf, size, 0, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
		perror("udp_probe");
		return 2;
	}
	struct pollfd p = {.fd = fd, .events = POLLIN};

	if (poll(&p, 1, 500) <= 0)
		return 1;
	printf("%zd\n", recv(fd, buf, sizeof(buf), 0));
	return 0;
}
