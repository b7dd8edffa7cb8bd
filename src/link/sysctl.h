/* sysctl.h: kernel settings (/proc/sys) set for one test and put back after it (--sysctl),
 * and an interface's receive steering, which the kernel keeps per queue in /sys:
 * net.dev.IF.rps_cpus and net.dev.IF.rps_flow_cnt stand for that file of every rx queue of
 * IF (RPS and RFS; RFS also wants the sysctl net.core.rps_sock_flow_entries).
 *
 * What must be put back is written to a journal before anything changes
 * (/run/sockbench/sysctl.journal, or $SOCKBENCH_JOURNAL), held under an flock while the
 * settings are in force. A journal nobody holds is what a sockbench that died (kill -9, a
 * crash, a power cut) left behind: every start of sockbench puts those values back first.
 * Nothing here prints: messages go back to the caller.
 */
#ifndef SB_SYSCTL_H
#define SB_SYSCTL_H

#include <stdbool.h>
#include <stddef.h>

#define SYSCTL_MAX 64 /* files: an interface's key is one per rx queue */
#define SYSCTL_KEY 128
#define SYSCTL_PATH 192
#define SYSCTL_VAL 256

struct sysctl_set {
	int n;
	char key[SYSCTL_MAX][SYSCTL_KEY];   /* as given: "net.ipv4.tcp_autocorking" */
	char path[SYSCTL_MAX][SYSCTL_PATH]; /* the file it is */
	char val[SYSCTL_MAX][SYSCTL_VAL]; /* the value wanted */
	char old[SYSCTL_MAX][SYSCTL_VAL]; /* the value before, once applied */
	bool applied;			  /* in force: lock_fd holds the journal */
	int lock_fd;
};

/* The journal's path. */
const char *sysctl_journal_path(void);

/* Parse a --sysctl list (lines of KEY=VALUE, as opts keeps it; NULL: none) and check every key
 * names a setting of this kernel. 0, or -EINVAL with the reason in err. */
int sysctl_parse(const char *list, struct sysctl_set *s, char *err, size_t errlen);

/* Is every key of s in allowed (a comma-separated list, NULL: none)? If not, false with the
 * first key that is not in err. */
bool sysctl_allowed(const struct sysctl_set *s, const char *allowed, char *err, size_t errlen);

/* Journal the old values, then write the new ones and read them back. On any failure the
 * values already written are put back and the journal removed: nothing stays changed.
 * 0 (nothing to do when s has none), or -errno with the reason in err: -EACCES not root,
 * -EINVAL a value the kernel refused, -EBUSY another sockbench holds settings now. */
int sysctl_apply(struct sysctl_set *s, char *err, size_t errlen);

/* Put the old values back and remove the journal (nothing if s is not applied). Failures
 * are described in err (which may be NULL); 0 or -errno. */
int sysctl_restore(struct sysctl_set *s, char *err, size_t errlen);

/* At start: put back what a journal nobody holds says. 0 when there was none (or a live
 * sockbench holds it), the number of settings restored (msg names them), or -errno (msg says
 * why, and how to fix it). */
int sysctl_recover(char *msg, size_t len);

#endif
