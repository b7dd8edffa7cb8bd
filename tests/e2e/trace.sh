# --trace: each packet followed through the kernel, stage by stage (src/trace/).
# 1. Ping-pong udp-rr and tcp-rr (one request in flight): the stages' medians, the request's,
#    the server's user space between its read and its answer, and the answer's, add up to the
#    measured median round trip within 10% (what is outside them: the client's own time
#    stamps around its calls; a sum of medians is not the median of sums); every request and
#    answer of the window is followed (the packets seen equal the transactions within 0.5%).
# 2. The local run's server stopped for 50 ms (SIGSTOP, tests/helpers/pause.py) in the window:
#    the request then sent waits in the server's socket queue: that stage's max is at least
#    the stop and at most the slowest round trip (bucket's 12.5% either way); every other
#    stage's max is under half the stop.
# 3. An unprivileged user is refused in one line naming root, exit 1.
. "$(dirname "$0")/lib.sh"
need jq
need python3
[ "$(id -u)" -eq 0 ] || skip "needs root"
"$SB" udp-rr --duration 0.2 --warmup 0 --trace --json >"$TMP/probe.json" 2>"$TMP/probe.err" || {
	grep -qE "built without libbpf|tracefs|refused its BPF" "$TMP/probe.err" &&
		skip "$(cat "$TMP/probe.err")"
	fail "udp-rr --trace: $(cat "$TMP/probe.err")"
}
PAUSE=$(dirname "$0")/../helpers/pause.py

# The stages' p50 sum against the measured p50, and the packets followed.
ADDS='.trace.directions as $d | ([$d.request, $d.answer | .send, .device, .softirq, .socket, .wakeup, .receive | .p50_us // 0] | add + ($d.answer.user.p50_us // 0)) as $s |
	{sum: $s, p50: .latency_us.p50, off: ($s / .latency_us.p50 - 1), packets: .trace.packets, transactions}'
for w in udp-rr tcp-rr; do
	extra=()
	[ $w = udp-rr ] && extra=(--window 1 --clients 1)
	"$SB" $w "${extra[@]}" --duration 1.5 --warmup 0.3 --trace --json >"$TMP/$w.json" || fail "$w --trace"
	jassert "$TMP/$w.json" ".partial == false and ($ADDS | (.off | fabs) <= 0.10)" "$ADDS"
	jassert "$TMP/$w.json" '.trace.packets as $p | .transactions as $n | [$p.sent_by_clients, $p.read_by_server, $p.sent_by_server, $p.read_by_clients] | all(. >= $n * 0.995 and . <= $n * 1.005 + 2) and $p.unfollowed == 0' '{transactions, p: .trace.packets}'
	echo "$w: $(jq -c "$ADDS | {sum, p50, off}" "$TMP/$w.json")"
done

# 2. The server stopped 50 ms. A ping-pong server waits for its next request nearly all the
# time, so the stop lands there: in the socket stage of the request sent meanwhile. Rarely it
# lands between a read and its answer (seen once in 6 here): in the server's user space, as
# truly; that run goes again (3 tries).
BIG='[.trace.directions | to_entries[] | .key as $d | .value | to_entries[] | select((.value.max_us_at_most // 0) >= $P * 1e6 / 2) | "\($d).\(.key)"]'
for try in 1 2 3; do
	SOCKBENCH_PROGRESS=1 "$SB" udp-rr --window 1 --clients 1 --duration 2 --warmup 0.3 --trace --json \
		>"$TMP/stop.json" 2>"$TMP/stop.err" &
	run=$!
	PIDS+=("$run")
	wait_window "$run" "$TMP/stop.err"
	agent=$(pgrep -P "$run" -f "serve" | head -n 1)
	[ -n "$agent" ] || fail "no local serve agent under the run"
	python3 "$PAUSE" "$agent" 0.2 0.05 >"$TMP/stop.p" || fail "pause.py"
	wait "$run" || fail "the stopped run: exit $?: $(cat "$TMP/stop.err")"
	P=$(cat "$TMP/stop.p")
	big=$(jq -c --argjson P "$P" "$BIG" "$TMP/stop.json")
	echo "try $try: stopped $P s: stages holding it: $big"
	[ "$big" = '["answer.user"]' ] || break
done
[ "$big" = '["request.socket"]' ] || fail "the 50 ms stop is not in the request's socket stage alone: $big: $(jq -c '.trace.directions | map_values(map_values(.max_us_at_most))' "$TMP/stop.json")"
# At least the stop, at most the slowest round trip measured (the wait is inside it), each
# within the bucket's 12.5%.
jassert "$TMP/stop.json" ".trace.directions.request.socket.max_us_at_most >= $P * 1e6 and .trace.directions.request.socket.max_us_at_most <= .latency_us.max * 1.125" '{socket: .trace.directions.request.socket, max: .latency_us.max}'

# 3. Not root.
if setpriv --reuid 65534 --regid 65534 --clear-groups "$SB" version >/dev/null 2>&1; then
	setpriv --reuid 65534 --regid 65534 --clear-groups "$SB" udp-rr --duration 0.2 --trace >"$TMP/u.out" 2>"$TMP/u.err"
	rc=$?
	[ $rc -eq 1 ] || fail "--trace as user nobody: exit $rc, not 1: $(cat "$TMP/u.err")"
	grep -q -- "--trace needs root" "$TMP/u.err" || fail "--trace as nobody: $(cat "$TMP/u.err")"
	[ "$(wc -l <"$TMP/u.err")" -eq 1 ] || fail "not one line: $(cat "$TMP/u.err")"
else
	echo "trace: user nobody cannot run $SB here: the unprivileged case not run"
fi
