/* flow_plan.h: the plan of a run with many flows, as pure arithmetic (unit tested without
 * sockets): how many threads drive them, how many loopback source addresses they need for
 * enough ephemeral ports, how many connects may be in flight at once, and which flows a thread
 * or an address gets. */
#ifndef SB_FLOW_PLAN_H
#define SB_FLOW_PLAN_H

/* Above this many flows in one process, flows run on a few epoll threads; at or below it, a
 * thread each (as small runs always measured). */
#define FLOW_PLAN_THREADED_MAX 64

/* Connects in flight at once per client process, at most (a listen backlog's worth is shared
 * by every client). */
#define FLOW_PLAN_CONNECT_BURST 512

/* Threads to drive n flows in one process: one per CPU (ncpu), never more than flows. */
int flow_plan_threads(long flows, int ncpu);
/* Loopback source addresses (127.0.0.1 up) for total connections to one server address when
 * one address has ports ephemeral ports: 1 while they fit in a quarter of the range, else as
 * many as that takes. A quarter, because connect()'s port search slows as the range fills,
 * with our connections and with the TIME_WAIT sockets earlier runs left (measured here, with
 * 68,000 in TIME_WAIT: 17,000 connects from one address did not finish in 10 s, 19,000 from
 * four took 4.7 s of system time). */
int flow_plan_src_addrs(long total, long ports);
/* The ephemeral ports of net.ipv4.ip_local_port_range's lo and hi (the count, at least 1). */
long flow_plan_ports(long lo, long hi);
/* This host's: read from /proc/sys/net/ipv4/ip_local_port_range (28,232, Linux's default
 * range, when it cannot be read). */
long flow_plan_local_ports(void);
/* Connects a client process keeps in flight: its share of the server's backlog (clients
 * processes connect at once), at least 1, at most FLOW_PLAN_CONNECT_BURST and its flows. */
int flow_plan_connect_inflight(long backlog, long clients, long flows);
/* The listen backlog for total connections opened at once by the clients: their bursts in
 * flight with room to spare, at least 128. */
long flow_plan_backlog(long total, long clients);

#endif
