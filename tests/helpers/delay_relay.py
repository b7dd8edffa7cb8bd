# A UDP relay that delays every datagram by its own uniform random time in [LO, HI] ms, for
# jitter.sh: what it receives on LISTEN it sends to DEST from its own SRC port, each after its
# delay; what comes back to SRC goes to the last sender seen. Bounded: it exits after SECONDS.
#   usage: delay_relay.py LISTEN_ADDR:PORT DEST_ADDR:PORT SRC_PORT LO_MS HI_MS SECONDS
import heapq, random, select, socket, sys, time

def addr(s):
    h, p = s.rsplit(":", 1)
    return h, int(p)

listen, dest = addr(sys.argv[1]), addr(sys.argv[2])
src_port, lo, hi, seconds = int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rx.bind(listen)
tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
tx.bind((listen[0], src_port))
for s in (rx, tx):
    s.setblocking(False)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
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
                data, back_to = rx.recvfrom(65536)
            except BlockingIOError:
                break
            n += 1
            heapq.heappush(queue, (now + random.uniform(lo, hi) / 1000.0, n, data))
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
        tx.sendto(heapq.heappop(queue)[2], dest)
