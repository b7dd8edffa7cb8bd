/* journal.h: the file that keeps the values --sysctl changed until they are put back (sysctl.c
 * uses it; nothing else should). It reads and writes a set as sysctl_set.h defines it, below
 * both, and never calls sysctl.c.
 *
 * Root carries out what it finds there at every start, so only root may have written it: the
 * journal is refused (nothing read, written or removed) unless every folder on its path is a
 * real folder (no symlink) owned by root and writable by nobody else (a sticky one such as /tmp
 * is fine above the journal's own folder), its own folder is owned by root and writable by root
 * only, and the journal is a regular file with one link, owned by root, writable by root only.
 * That holds for $SOCKBENCH_JOURNAL too: it can only point root at a file root controls.
 * Nothing here prints: messages go back to the caller.
 */
#ifndef SB_JOURNAL_H
#define SB_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "link/sysctl_set.h"

/* Apart from /run/sockbench, the RuntimeDirectory of the Debian agent's dynamic user. */
#define JOURNAL_DEFAULT "/run/sockbench-root/sysctl.journal"

/* The journal's path: $SOCKBENCH_JOURNAL, else JOURNAL_DEFAULT. */
const char *journal_path(void);

/* Check the journal's folders and open, check and lock the journal (create: make its own
 * folder, mode 0700, and the file, mode 0600, where missing). 0, or -errno with the reason in
 * err: -ENOENT there is none (!create), -EBUSY a live run holds it, -EPERM someone other than
 * root could have written it (err names what and how to fix it). */
int journal_open(struct journal *j, bool create, char *err, size_t errlen);

/* Read the whole journal into s (path and old value of each entry; key as --sysctl names it).
 * Every line must be one --sysctl could have written (journal_entry_check): a journal too long,
 * malformed or naming anything else is refused whole, -EINVAL with the line in err. */
int journal_load(struct journal *j, struct sysctl_set *s, char *err, size_t errlen);

/* A journal's PATH: is it a file --sysctl could have set (/proc/sys/net/..., or
 * /sys/class/net/IF/queues/rx-N/rps_cpus or rps_flow_cnt, resolving where it says)? 0 with
 * its key (as --sysctl names it) in key, -ENOENT it is gone (nothing to put back), or -EINVAL
 * with the reason in err. */
int journal_entry_check(const char *path, char *key, size_t keylen, char *err, size_t errlen);

/* Replace the journal's content with the paths and old values of s, on disk. 0 or -errno. */
int journal_store(struct journal *j, const struct sysctl_set *s);

/* Close the journal, removing it first if remove (async-signal-safe). */
void journal_close(struct journal *j, bool remove);

#endif
