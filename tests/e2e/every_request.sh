# Every request counts (a stalled server): the serve agent stopped (SIGSTOP, tests/helpers/
# pause.py, which says how long the stop really was) for 50 ms, 300 ms and 1 s.
# 1. Open loop, udp-rr, tcp-rr and tcp-crr: requests are due every 1/R s whatever the server
#    does, so those due in the pause wait for its end: the i-th due in it waits P - i/R. Of the
#    window's N requests, p99 is the k-th slowest (k = N - ceil(0.99 N) + 1): P - (k - 0.5)/R
#    (the phase of the first one in the pause is within 1/R), plus a request's own time (the
#    run's p50). The run's p99 must be that within 5%, and the run holds its load (the server,
#    not the generator, was late). R and the window are chosen so that the pause fits in the
#    window, its requests in the server's receive buffer (no drop), and 1/R stays under 2% of
#    the truth; tcp-crr runs more connections in flight than the pause holds arrivals, so no
#    thread of the generator waits on one.
# 2. The same with more requests in the pause than the buffer holds: every one the kernel
#    dropped (RcvbufErrors) is one we count lost, and p99 (their share is over 1%) is a lower
#    bound, at least the timeout.
# 3. Closed loop, the pause across the window's end: the drain after the window counts what was
#    in flight. udp-rr: two generations of every slot time out (one in the pause, their
#    replacements after the window: before, those vanished), each in the latencies at 200 ms or
#    more; tcp-rr and tcp-crr: the request or connection caught by the stop is timed to its
#    answer: max is the pause within 5%.
. "$(dirname "$0")/lib.sh"
need jq
need python3
PAUSE=$(dirname "$0")/../helpers/pause.py
start_agent
srv=127.0.0.1:$AGENT_PORT

# paused NAME DELAY PAUSE ARGS...: the run's JSON in $TMP/NAME.json; the agent is stopped for
# PAUSE s from DELAY s after the window's first second; the stop as it was, in $TMP/NAME.p.
paused() {
	local name=$1 delay=$2 p=$3 run
	shift 3
	SOCKBENCH_PROGRESS=1 "$SB" "$@" --server "$srv" --json >"$TMP/$name.json" 2>"$TMP/$name.err" &
	run=$!
	PIDS+=("$run")
	wait_window "$run" "$TMP/$name.err"
	python3 "$PAUSE" "$AGENT_PID" "$delay" "$p" >"$TMP/$name.p" || fail "$name: pause.py"
	wait "$run" || fail "$name: exit $?: $(cat "$TMP/$name.err")"
}

# 1. Open loop: RATE, DURATION and the flags of each pause.
truth() { # name rate
	jq --argjson P "$(cat "$TMP/$1.p")" --argjson R "$2" '.latency_us as $l | $l.count as $n |
		($n - ($n * 0.99 | ceil) + 1) as $k | ($P * 1e6 - ($k - 0.5) / $R * 1e6 + $l.p50) as $t |
		{p99: $l.p99, truth: ($t | round), off_pct: (($l.p99 / $t - 1) * 1000 | round / 10),
		 ok: ((($l.p99 - $t) | fabs) <= 0.05 * $t)}' "$TMP/$1.json"
}
for w in udp-rr tcp-rr tcp-crr; do
	for case in "0.05 2000 2 128" "0.3 500 2 200" "1 200 3 256"; do
		set -- $case
		p=$1 r=$2 d=$3 c=$4 name=$w-$1
		extra=()
		[ $w = tcp-crr ] && extra=(--concurrency "$c")
		paused "$name" 0.1 "$p" $w --rate "$r" --duration "$d" --warmup 0.3 "${extra[@]}"
		jassert "$TMP/$name.json" '.holding_load and .partial == false and .lost == 0 and .latency_us.unanswered == 0' '{partial_reason, holding_load_reason, lost}'
		got=$(truth "$name" "$r")
		echo "$name: stopped $(cat "$TMP/$name.p") s at $r/s: $(echo "$got" | jq -c 'del(.ok)')"
		echo "$got" | jq -e .ok >/dev/null || fail "$name: p99 is not the pause's truth: $got"
	done
done
# Without the pause, each workload's own p99 here is far under these truths (a pause that did
# not happen would fail above): the 1 s one's truth is 970 ms.

# 2. 300 ms at 4,000/s: 1,200 requests into a buffer of a few hundred.
paused drops 0.1 0.3 udp-rr --rate 4000 --duration 2 --warmup 0.3
jassert "$TMP/drops.json" '.kernel.RcvbufErrors > 0 and .lost == .kernel.RcvbufErrors' '{lost, late, kernel}'
jassert "$TMP/drops.json" '.latency_us | .unanswered_share > 0.01 and (.at_least | index("p99")) != null and .p99 >= .at_least_from_us and .at_least_from_us >= 1e3 * 2000' '.latency_us | del(.cdf)'
jassert "$TMP/drops.json" '.latency_us.count == .transactions + .lost and .loss_pct > 1' '{transactions, lost, loss_pct}'
echo "drops: $(jq -c '{lost, RcvbufErrors: .kernel.RcvbufErrors, p99: .latency_us.p99, at_least: .latency_us.at_least}' "$TMP/drops.json")"

# 3. Closed loop, the agent stopped for 1 s from about 1.6 s of a 2 s window.
paused end-udp 0.6 1 udp-rr --duration 2 --warmup 0.3
jassert "$TMP/end-udp.json" '.drain_s >= 0.19 and .lost >= 2 * .config.clients * .config.window and .latency_us.count == .transactions + .lost' '{drain_s, lost, transactions, latency_us: (.latency_us | del(.cdf))}'
jassert "$TMP/end-udp.json" '.latency_us | (.at_least | index("max")) != null and .at_least_from_us >= 200000' '.latency_us | del(.cdf)'
echo "end-udp: $(jq -c '{drain_s, lost, unanswered: .latency_us.unanswered, at_least: .latency_us.at_least}' "$TMP/end-udp.json")"
for w in tcp-rr tcp-crr; do
	paused end-$w 0.6 1 $w --duration 2 --warmup 0.3
	P=$(cat "$TMP/end-$w.p")
	jassert "$TMP/end-$w.json" '.drain_s > 0.2 and .latency_us.unanswered == 0 and ((.latency_us.max / 1e6 / '"$P"' - 1) | fabs) < 0.05' '{drain_s, latency_us: (.latency_us | del(.cdf))}'
	echo "end-$w: stopped $P s: $(jq -c '{drain_s, max_us: .latency_us.max}' "$TMP/end-$w.json")"
done
echo ok
