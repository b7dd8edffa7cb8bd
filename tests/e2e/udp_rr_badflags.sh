# Every bad input: exit 2 and a one-line message that says what is wrong.
. "$(dirname "$0")/lib.sh"
expect_usage "--size 0 is out of range: use 1 to 65507" udp-rr --size 0
expect_usage "--size 65508 is out of range" udp-rr --size 65508
expect_usage "--window 0 is out of range" udp-rr --window 0
expect_usage "--clients 0 is out of range" udp-rr --clients 0
expect_usage "unknown option '--frobnicate'" udp-rr --frobnicate
expect_usage "needs a value" udp-rr --size
expect_usage "is not a whole number" udp-rr --window many
expect_usage "fewer than --clients" udp-rr --clients 4 --peers 2
expect_usage "--wait spin is not one of auto|poll|epoll|busy|block" udp-rr --wait spin
expect_usage "--wait block is not applicable with --peers 8" udp-rr --wait block --peers 8
expect_usage "unknown command 'udp-rrr'" udp-rrr
expect_usage "--port 65536 is out of range" serve --port 65536

# A busy data port: hold it with a first run, the second gets a clear error.
port=$(free_port)
"$SB" udp-rr --port $port --duration 20 --warmup 0 --clients 1 --window 1 >/dev/null 2>&1 &
PIDS+=("$!")
for _ in $(seq 50); do ss -Hlun "sport = :$port" | grep -q . && break; sleep 0.1; done
ss -Hlun "sport = :$port" | grep -q . || fail "first run never bound port $port"
expect_usage "UDP port $port is busy" udp-rr --port $port --duration 1
kill -INT "${PIDS[-1]}"
echo ok
