/* sysctl.h: kernel settings (/proc/sys) set for one test and put back after it (--sysctl),
 * and an interface's receive steering, which the kernel keeps per queue in /sys:
 * net.dev.IF.rps_cpus and net.dev.IF.rps_flow_cnt stand for that file of every rx queue of
 * IF (RPS and RFS; RFS also wants the sysctl net.core.rps_sock_flow_entries).
 *
 * What must be put back is written to a journal before anything changes (journal.h: in a
 * folder only root can write), held under an flock while the settings are in force. A journal
 * nobody holds is what a sockbench that died (kill -9, a crash, a power cut) left behind: every
 * start of sockbench as root puts those values back first, and so does a --sysctl run before it
 * journals its own. Only net.* settings and an interface's rps files can be set, and a journal
 * naming anything else is refused whole: root carries out what a journal says.
 * Nothing here prints: messages go back to the caller.
 */
#ifndef SB_SYSCTL_H
#define SB_SYSCTL_H

#include <stdbool.h>
#include <stddef.h>

#include "link/journal.h"
#include "link/sysctl_set.h"

/* Parse a --sysctl list (lines of KEY=VALUE, as opts keeps it; NULL: none) and check every key
 * names a setting of this kernel that a socket benchmark may set: net.* (kernel.*, vm.*, fs.*
 * are refused: kernel.core_pattern alone would run any program as root), or
 * net.dev.IF.rps_cpus / rps_flow_cnt. 0, or -EINVAL with the reason in err. */
int sysctl_parse(const char *list, struct sysctl_set *s, char *err, size_t errlen);

/* Is every key of s in allowed (a comma-separated list, NULL: none)? If not, false with the
 * first key that is not in err. */
bool sysctl_allowed(const struct sysctl_set *s, const char *allowed, char *err, size_t errlen);

/* Put back what a journal nobody holds says (a dead run's), journal the old values, then write
 * the new ones and read each back: it must read as written (as the kernel prints it: blanks
 * squashed, a CPU mask's zero padding). On any failure what was written is put back and the
 * journal removed once it is: nothing stays changed, and no original is lost.
 * 0 (nothing to do when s has none), or -errno with the reason in err: -EACCES not root,
 * -EINVAL a value the kernel refused or keeps otherwise, -EBUSY another sockbench holds
 * settings now, -EPERM a journal or folder root alone does not control (nothing done). */
int sysctl_apply(struct sysctl_set *s, char *err, size_t errlen);

/* Put the old values back, each read back, and remove the journal (nothing if s is not
 * applied); async-signal-safe with err NULL. A failure keeps the journal (the next start tries
 * again) and is described in err (which may be NULL); 0 or -errno. */
int sysctl_restore(struct sysctl_set *s, char *err, size_t errlen);

/* At start, as root: put back what a journal nobody holds says. 0 when there was none (or a
 * live sockbench holds it, or not root), the number of settings restored (msg names them), or
 * -errno (msg says why and how to fix it; a refused journal is left as it is). */
int sysctl_recover(char *msg, size_t len);

#endif
