# Every bad input: exit 2 and a one-line message that says what is wrong.
. "$(dirname "$0")/lib.sh"
expect_usage "--size 0 is out of range: use 1 to 65,507 bytes" udp-rr --size 0
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
expect_usage "--server 127.0.0.1:99999: the port must be 1-65535" udp-rr --server 127.0.0.1:99999
expect_usage "--clients-on 198.18.0.9:0: the port must be 1-65535" udp-rr --server 198.18.0.1 --clients-on 198.18.0.9:0
# Output paths are checked before any work: exit 2 at once, nothing run, no file left.
expect_usage "--profile-folded writes the stacks --profile samples: add --profile" udp-rr --profile-folded "$TMP/f"
expect_usage "--profile-folded $TMP/no/f: No such file or directory" udp-rr --profile --profile-folded "$TMP/no/f"
t0=$(date +%s%N)
expect_usage "sweep: --plot $TMP/no/x.svg: No such file or directory" sweep udp-rr --size 100,200 --duration 2 --plot "$TMP/no/x.svg"
expect_usage "sweep: --csv $TMP/no/x.csv: No such file or directory" sweep udp-rr --size 100,200 --duration 2 --csv "$TMP/no/x.csv"
[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 2000 ] || fail "a bad output path was found after the sweep ran"
# A writable path passes the check and is not left behind when a later check stops the sweep.
expect_usage "--size 0 is out of range" sweep udp-rr --size 100,0 --duration 2 --csv "$TMP/new.csv"
[ -e "$TMP/new.csv" ] && fail "the output path check left a file behind"
# `sockbench help COMMAND` is that command's --help; the refusal names the unknown one.
"$SB" help udp-rr | grep -q -- "--peers" || fail "help udp-rr does not show udp-rr's options"
"$SB" help serve | grep -q -- "--allow-sysctl" || fail "help serve does not show serve's options"
expect_usage "help: unknown command 'udp-rrr'" help udp-rrr

# A busy data port: hold it with a first run, the second gets a clear error.
port=$(free_port)
"$SB" udp-rr --port $port --duration 20 --warmup 0 --clients 1 --window 1 >/dev/null 2>&1 &
PIDS+=("$!")
for _ in $(seq 50); do ss -Hlun "sport = :$port" | grep -q . && break; sleep 0.1; done
ss -Hlun "sport = :$port" | grep -q . || fail "first run never bound port $port"
expect_usage "UDP port $port is busy" udp-rr --port $port --duration 1
kill -INT "${PIDS[-1]}"
echo ok
