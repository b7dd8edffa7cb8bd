/* io.h: the datagram I/O back ends, behind one ops table (wrk's struct sock; docs/style.md).
 *
 * A back end moves batches of datagrams over a set of sockets: recvmsg/sendmsg one at a time
 * ("msg"), recvmmsg/sendmmsg ("mmsg"), or io_uring with multishot receive ("uring"). How a
 * side waits when nothing has arrived is the --wait strategy (poll, epoll, busy, block),
 * which the syscall back ends share; io_uring waits in io_uring_enter. Workloads reach a back
 * end only through these ops. Adding one: a file io_foo.c exporting io_foo_ops, a line in
 * io.c's registry. Every system call a back end makes is counted in io_ctx.syscalls.
 * A back end touches only the sockets it is given and counts each system call it makes.
 */
#ifndef SB_IO_H
#define SB_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "base/opts.h"

struct io_msg {
	void *buf;   /* payload (the caller's memory) */
	size_t len;  /* send: bytes to send; recv: bytes received */
	size_t cap;  /* recv: room in buf */
	int sock;    /* index of the socket it goes out on, or came in on */
	bool trunc;  /* recv: the datagram was larger than cap */
	struct sockaddr_storage addr; /* send: destination (unless connected); recv: source */
	socklen_t addrlen;
};

enum io_wait { IO_WAIT_POLL, IO_WAIT_EPOLL, IO_WAIT_BUSY, IO_WAIT_BLOCK };

struct io_ctx {
	const struct opts *o;
	int nsock;
	int *fds;	   /* open and bound (and connected, if connected) by the caller */
	bool connected;	   /* send without a destination */
	enum io_wait wait; /* how wait() sleeps; IO_WAIT_BLOCK: recv() sleeps instead */
	/* IO_WAIT_BLOCK: before a receive that would sleep, try again without sleeping for up to
	 * this long (0: sleep at once); io_spin_ns says when. */
	uint32_t spin_ns;
	int batch;	   /* the most messages one call moves */
	int depth;	   /* the most sends in flight (client: its window) */
	size_t cap;	   /* the largest datagram expected */
	uint64_t syscalls; /* every system call made, for syscalls per transaction */
	uint64_t send_failed; /* sends a back end took, then learnt had failed (io_uring) */
	int next;	   /* the socket to read first next time (fairness) */
	/* Above IO_READY_ABOVE sockets waiting in epoll: the sockets its last wait found ready,
	 * the only ones a receive visits (never every socket per receive). */
	bool ready_only;
	int ready[64], rhead, nready;
	void *priv;	   /* the back end's */
	void *waiter;	   /* the wait strategy's */
};

struct io_ops {
	const char *name;
	/* Why this back end cannot run with these options, or NULL. */
	const char *(*not_applicable)(const struct opts *o);
	/* Set up for c's sockets. 0 or -errno (with a reason in err). */
	int (*open)(struct io_ctx *c, char *err, size_t errlen);
	/* Take up to n datagrams that have arrived, from any socket, without waiting (but with
	 * IO_WAIT_BLOCK, wait for the first). >= 0 received (fewer than n: nothing more is
	 * waiting), or -errno. */
	int (*recv)(struct io_ctx *c, struct io_msg *m, int n);
	/* Send n datagrams. The number sent (the rest failed with a transient error), or -errno. */
	int (*send)(struct io_ctx *c, struct io_msg *m, int n);
	/* Sleep until a datagram may have arrived or timeout_ms passed. 0 or -errno. */
	int (*wait)(struct io_ctx *c, int timeout_ms);
	/* The same to the nanosecond (an open-loop client sleeps until its next send is due);
	 * NULL: not supported, wait() it is. */
	int (*wait_ns)(struct io_ctx *c, uint64_t timeout_ns);
	void (*close)(struct io_ctx *c);
};

extern const struct io_ops io_msg_ops, io_mmsg_ops;
#ifdef HAVE_LIBURING
extern const struct io_ops io_uring_ops;
#endif

/* NULL-terminated table of every back end built in. */
extern const struct io_ops *const io_registry[];
/* The back end named by o->io ("auto": mmsg when --batch > 1, else msg), or NULL. */
const struct io_ops *io_find(const struct opts *o);
/* The --wait strategy for one side ("auto": the client polls, the server blocks). */
enum io_wait io_wait_of(const struct opts *o, bool server);

/* Sockets up to which a receive visits each in turn (an empty one costs a call); above, with
 * epoll, only the ones epoll_wait found ready. A client's --wait auto is epoll above it. */
#define IO_READY_ABOVE 64
/* The --wait strategy of a client of nsock sockets. */
enum io_wait io_client_wait(const struct opts *o, int nsock);
/* Its name ("poll", "epoll", "busy", "block"), and why a client of nsock sockets waits so. */
const char *io_wait_name(enum io_wait w);
const char *io_client_wait_reason(const struct opts *o, int nsock);
/* How long a receiver that only receives (a stream's) tries again before it sleeps, with
 * --wait auto: IO_SPIN_NS where every busy thread of the test has a CPU of its own and the
 * sender is not paced, else 0; and why, in words. */
#define IO_SPIN_NS 5000
uint32_t io_spin_ns(const struct opts *o);
/* With o, whether it retries is for the receiver's host's CPUs to decide. */
bool io_spin_by_cpus(const struct opts *o);
const char *io_spin_reason(const struct opts *o);
/* A receive of the syscall back ends through their pass(c, m, n, flags), one pass over the
 * sockets. With IO_WAIT_BLOCK and spin_ns, first passes with MSG_DONTWAIT until one takes
 * something, fails, or spin_ns passed since the first came back empty; then (nothing taken)
 * or else at once, pass(c, m, n, 0), which may sleep. What it took, or -errno. */
int io_recv_passes(struct io_ctx *c, struct io_msg *m, int n,
		   int (*pass)(struct io_ctx *c, struct io_msg *m, int n, int flags));
/* ready_only: the socket to receive from next (-1: none ready), and that it is empty now. */
static inline int io_ready_peek(const struct io_ctx *c)
{
	return c->rhead < c->nready ? c->ready[c->rhead] : -1;
}
static inline void io_ready_drop(struct io_ctx *c)
{
	c->rhead++;
}

/* Shared by the syscall back ends: make sockets fit the wait strategy (blocking with a receive
 * timeout of block_ms for IO_WAIT_BLOCK, else non-blocking) and set up the waiter. */
int io_waiter_open(struct io_ctx *c, int block_ms);
int io_waiter_wait(struct io_ctx *c, int timeout_ms);
/* The same to the nanosecond: ppoll() for poll, epoll_pwait2() for a many-socket epoll (where
 * the kernel has it); else epoll_wait(), whole ms, rounded down. */
int io_waiter_wait_ns(struct io_ctx *c, uint64_t timeout_ns);
void io_waiter_close(struct io_ctx *c);

#endif
