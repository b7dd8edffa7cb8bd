/* usyms.h: which syscall a sampled thread was in, from its user-space caller. A sample taken
 * inside a syscall normally shows the handler (__x64_sys_recvmsg) under the dispatcher; on some
 * guests (paravirtual irq-enable at entry, entry trampolines) the sample lands before any
 * handler frame, and the only witness left is where user space made the call: the libc (or
 * liburing) wrapper that holds the user instruction pointer. That address is resolved in the
 * sampled process's own mappings (/proc/PID/maps: file and offset) and then through the same
 * file mapped in this process (dladdr), so no ELF parser is needed: the sampled processes are
 * sockbench's own and use the libraries it uses. A file this process has not mapped gives no
 * name, and the caller books the sample as unattributed rather than guessing.
 * Not for use outside profile/.
 */
#ifndef SB_USYMS_H
#define SB_USYMS_H

#include <stdint.h>

struct usyms;

struct usyms *usyms_create(void);
void usyms_free(struct usyms *u);
/* The syscall that the user-space caller at ip (in process pid) makes: "recvmsg" for an ip in
 * libc's recvmsg wrapper, "io_uring_enter" inside liburing; NULL when it cannot be told (the
 * process is gone, the file is not mapped here, the generic syscall(2)). The name stays valid
 * while this process runs. */
const char *usyms_syscall(struct usyms *u, uint32_t pid, uint64_t ip);
/* The same for a wrapper's symbol name as dladdr gives it (exposed for tests). */
const char *usyms_name_syscall(const char *sym);

#endif
