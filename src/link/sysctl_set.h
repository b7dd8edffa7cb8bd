/* sysctl_set.h: what --sysctl names, below the journal (journal.c) and the settings' writer
 * (sysctl.c), which both use it and neither of which it calls: a set's sizes, the set itself
 * with the handle of the journal that holds it while it is in force (journal.h opens it), and
 * which keys and interface names --sysctl may name (sysctl_set.c). Nothing here prints.
 */
#ifndef SB_SYSCTL_SET_H
#define SB_SYSCTL_SET_H

#include <stdbool.h>
#include <stddef.h>

/* The characters of a key, and of a journal's path below /proc/sys. */
#define SYSCTL_KEY_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/"

/* The journal's handle (journal.h). */
struct journal {
	int dir_fd; /* its folder, checked */
	int fd;	    /* the journal, checked and held under an exclusive flock */
	char name[256];
};

#define SYSCTL_MAX 64 /* files: an interface's key is one per rx queue */
#define SYSCTL_KEY 128
#define SYSCTL_PATH 192
#define SYSCTL_VAL 256

struct sysctl_set {
	int n;
	char key[SYSCTL_MAX][SYSCTL_KEY];   /* as given: "net.ipv4.tcp_autocorking" */
	char path[SYSCTL_MAX][SYSCTL_PATH]; /* the file it is */
	char val[SYSCTL_MAX][SYSCTL_VAL];   /* the value wanted */
	char old[SYSCTL_MAX][SYSCTL_VAL];   /* the value before, once applied */
	bool applied;			    /* in force: j is open and held */
	struct journal j;
};

/* Is key a setting of /proc/sys that --sysctl may set (net.*, well-formed)? */
bool sysctl_key_ok(const char *key);
/* Is s (n characters) an interface's name as --sysctl takes it? */
bool sysctl_ifname_ok(const char *s, size_t n);

#endif
