/* sysctl_set.c: see sysctl_set.h. */
#include "link/sysctl_set.h"

#include <string.h>

/* A key of /proc/sys that --sysctl may set: net.* only. A socket benchmark tunes the network
 * stack; every setting sockbench itself sets (explore --kernel) or records (the environment)
 * is there. Anything else (kernel.core_pattern runs a program as root, kernel.modprobe,
 * vm.*, fs.*) has no place in a socket benchmark's A/B, nor in a journal root carries out. */
bool sysctl_key_ok(const char *key)
{
	size_t n = strlen(key);

	return n > 4 && n < SYSCTL_KEY && (!strncmp(key, "net.", 4) || !strncmp(key, "net/", 4)) &&
	       strspn(key, SYSCTL_KEY_CHARS) == n && !strstr(key, "..") && !strstr(key, "//") &&
	       !strstr(key, "./") && !strstr(key, "/.") && key[n - 1] != '.' && key[n - 1] != '/';
}

/* An interface's name as the kernel allows it (dev_valid_name), of the characters of a key. */
bool sysctl_ifname_ok(const char *s, size_t n)
{
	return n && n < 16 && !memchr(s, '/', n) && strncmp(s, ".", n) && strncmp(s, "..", n) &&
	       strspn(s, SYSCTL_KEY_CHARS) >= n;
}
