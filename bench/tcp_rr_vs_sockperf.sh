#!/bin/bash
# sockbench tcp-rr (1 flow, 1 outstanding, 100-byte request and answer) against sockperf
# ping-pong --tcp (100-byte messages), alternating rounds on loopback; prints the median
# transactions/s of each and the median ratio.
#   usage: bench/tcp_rr_vs_sockperf.sh [ROUNDS] [SECONDS]
. "$(dirname "$0")/lib.sh"
need_sockperf
rounds=${1:-${ROUNDS:-7}}
secs=${2:-2}
port=$((30000 + RANDOM % 20000))

sockperf_round() {
	sockperf sr --tcp -i 127.0.0.1 -p "$port" >/dev/null 2>&1 &
	local srv=$!
	sleep 0.3
	sockperf pp --tcp -i 127.0.0.1 -p "$port" -m 100 -t "$secs" 2>&1 |
		sed -n 's/.*\[Valid Duration\] RunTime=\([0-9.]*\) sec.*ReceivedMessages=\([0-9]*\).*/\2 \1/p' |
		awk '{printf "%.0f\n", $1 / $2}'
	kill "$srv"; wait "$srv" 2>/dev/null || true
	port=$((port + 1))
}

printf "%-6s %14s %14s %8s\n" round sockbench/s sockperf/s ratio
for r in $(seq "$rounds"); do
	[ $((r % 2)) = 0 ] && sp=$(sockperf_round) # sockperf first every other round: drift cancels
	sb=$("$SB" tcp-rr --request 100 --response 100 --duration "$secs" --warmup 0.5 --json |
		jq '.transactions_per_s')
	[ $((r % 2)) = 1 ] && sp=$(sockperf_round)
	ratio=$(ratio "$sb" "$sp")
	printf "%-6s %14.0f %14.0f %8s\n" "$r" "$sb" "$sp" "$ratio"
	echo "$sb $sp $ratio" >>"$tmp/rows"
done
echo
printf "median transactions/s: sockbench %.0f, sockperf %.0f; median ratio %.3f\n" "$(col 1)" "$(col 2)" "$(col 3)"
summary "tcp-rr 100 B request and answer" "sockperf ping-pong --tcp" "$(col 3)" - 1.0 - "$(vals 3)"
