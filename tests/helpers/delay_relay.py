# A UDP relay that delays every datagram by its own uniform random time in [LO, HI] ms, for
# jitter.sh: what it receives on LISTEN it sends to DEST from its own SRC port, each after its
# delay; what comes back to SRC goes to the last sender seen. Bounded: it exits after SECONDS.
#   usage: delay_relay.py LISTEN_ADDR:PORT DEST_ADDR:PORT SRC_PORT LO_MS HI_MS SECONDS [STATS]
# With STATS, a file it rewrites twice a second: "DATAGRAMS MEAN_ABS_D_MS", the mean difference
# between the holds it actually gave consecutive datagrams it sent (each hold as it was, the
# machine's lateness included: from the kernel's receive timestamp, SO_TIMESTAMPNS, to after
# the send, so a relay that woke late to a datagram counts the wait too): the jitter a
# receiver should measure through it.
import heapq, os, random, select, socket, struct, sys, time

def addr(s):
    h, p = s.rsplit(":", 1)
    return h, int(p)

listen, dest = addr(sys.argv[1]), addr(sys.argv[2])
stats = sys.argv[7] if len(sys.argv) > 7 else None
last_hold, sum_abs, sent, next_stats = None, 0.0, 0, 0.0
src_port, lo, hi, seconds = int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rx.bind(listen)
tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
tx.bind((listen[0], src_port))
for s in (rx, tx):
    s.setblocking(False)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
rx.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)

def arrival(anc, now):
    """The kernel's receive time (CLOCK_REALTIME) on our monotonic clock; now when absent."""
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
            sec, nsec = struct.unpack("qq", data[:16])
            return now - max(0.0, time.time() - (sec + nsec / 1e9))
    return now
print("ready", flush=True)
queue, n, back_to, end = [], 0, None, time.monotonic() + seconds
while time.monotonic() < end:
    now = time.monotonic()
    wait = min(0.05, max(0.0, queue[0][0] - now)) if queue else 0.05
    ready, _, _ = select.select([rx, tx], [], [], wait)
    now = time.monotonic()
    if rx in ready:
        while True:
            try:
                data, anc, _, back_to = rx.recvmsg(65536, socket.CMSG_SPACE(16))
            except BlockingIOError:
                break
            n += 1
            t_rx = arrival(anc, time.monotonic())
            heapq.heappush(queue, (t_rx + random.uniform(lo, hi) / 1000.0, n, data, t_rx))
    if tx in ready:
        while True:
            try:
                data = tx.recv(65536)
            except BlockingIOError:
                break
            if back_to:
                rx.sendto(data, back_to)
    now = time.monotonic()
    while queue and queue[0][0] <= now:
        _, _, data, t_rx = heapq.heappop(queue)
        tx.sendto(data, dest)
        hold = time.monotonic() - t_rx
        if last_hold is not None:
            sum_abs += abs(hold - last_hold)
            sent += 1
        last_hold = hold
    if stats and now >= next_stats and sent:
        with open(stats + ".tmp", "w") as f:
            f.write(f"{sent} {1000 * sum_abs / sent:.6f}\n")
        os.replace(stats + ".tmp", stats)
        next_stats = now + 0.5
