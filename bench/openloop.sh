#!/bin/bash
# sockbench udp-rr open loop (--clients 1 --rate R, 100 bytes) against sockperf under-load
# (--mps R, every message answered: --reply-every 1, round trips: --full-rtt) at three rates:
# a tenth of udp-rr's knee on this machine (p99 within 1 ms, found first with `knee`), the
# knee, and twice it. Prints p50 and p99 of each: ours from the scheduled send (the corrected
# figure) and from the actual send (service time, what sockperf times), and the rate each
# achieved. Past the knee the two ways of timing part: the corrected figure counts the queue
# the schedule builds, a time from the actual send does not.
#   usage: bench/openloop.sh [SECONDS] [RATE RATE RATE]
. "$(dirname "$0")/lib.sh"
need_sockperf
secs=${1:-3}
shift || true
port=$((30000 + RANDOM % 20000))

if [ $# -ge 3 ]; then
	rates="$1 $2 $3"
else
	knee=$("$SB" knee udp-rr --clients 1 --slo p99=1ms --min-rate 2000 --budget 30 --json 2>/dev/null | jq -r '.knee.rate')
	[ "$knee" != 0 ] || knee=20000
	rates="$((knee / 10)) $knee $((knee * 2))"
	echo "udp-rr --clients 1 knee (p99 <= 1 ms): $knee/s"
fi

sockperf_at() { # rate -> "p50 p99 achieved/s"
	sockperf sr -i 127.0.0.1 -p "$port" >/dev/null 2>&1 &
	local srv=$!
	sleep 0.3
	sockperf ul -i 127.0.0.1 -p "$port" -m 100 -t "$secs" --mps "$1" --reply-every 1 --full-rtt 2>&1 >"$tmp/sp" |
		cat >>"$tmp/sp"
	kill "$srv"; wait "$srv" 2>/dev/null || true
	awk '/percentile 50.000/ {p50 = $NF} /percentile 99.000/ {p99 = $NF}
	     /\[Valid Duration\]/ {for (i = 1; i <= NF; i++) {if ($i ~ /^RunTime=/) {split($i, a, "="); t = a[2]}
	                                                 if ($i ~ /^ReceivedMessages=/) {split($i, b, "="); n = b[2]}}}
	     END {printf "%s %s %.0f\n", p50, p99, t ? n / t : 0}' "$tmp/sp"
}
sb_at() { # rate -> "p50 p99 service_p50 service_p99 achieved/s holding"
	"$SB" udp-rr --clients 1 --rate "$1" --duration "$secs" --warmup 0.5 --json 2>/dev/null |
		jq -r '"\(.latency_us.p50) \(.latency_us.p99) \(.service_latency_us.p50) \(.service_latency_us.p99) \(.achieved_rate) \(.holding_load)"'
}

printf "%9s | %10s %10s %10s %10s %11s %7s | %10s %10s %11s\n" "rate/s" "p50 us" "p99 us" \
	"svc p50" "svc p99" "achieved/s" "holds" "sp p50" "sp p99" "achieved/s"
printf "%9s | %-63s | %-33s\n" "" "sockbench udp-rr (from the schedule; svc: from the send)" "sockperf under-load"
for r in $rates; do
	read -r p50 p99 s50 s99 ach holds < <(sb_at "$r")
	read -r q50 q99 qach < <(sockperf_at "$r")
	printf "%9s | %10s %10s %10s %10s %11.0f %7s | %10s %10s %11s\n" "$r" "$p50" "$p99" "$s50" "$s99" \
		"$ach" "$holds" "$q50" "$q99" "$qach"
done
