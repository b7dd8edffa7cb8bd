#!/bin/bash
# sockbench udp-rr (1 client, 1 outstanding, 100 bytes) against sockperf ping-pong (UDP, 100
# bytes), in alternating rounds on loopback; prints the median transactions/s of each, the
# median of the per-round ratios, and the user-CPU share of sockbench's processes beside that
# of a bare loop of the same syscalls. This machine is noisy: only the medians mean anything.
# Two sockbench shapes run: the default (the client poll()s before reading, as scenario B's
# program did: poll + recvmsg + sendmsg) and --wait block (recvmsg + sendmsg, the calls
# sockperf makes), so the ratio compares like with like.
#   usage: bench/udp_rr_vs_sockperf.sh [ROUNDS] [SECONDS]
. "$(dirname "$0")/lib.sh"
need_sockperf
rounds=${1:-${ROUNDS:-7}}
secs=${2:-2}
cc -O2 -o "$tmp/bare" bench/bare_udp_pingpong.c
port=$((30000 + RANDOM % 20000))


sockperf_round() { # prints transactions/s over sockperf's valid window
	sockperf sr -i 127.0.0.1 -p "$port" >/dev/null 2>&1 &
	local srv=$!
	sleep 0.3
	sockperf pp -i 127.0.0.1 -p "$port" -m 100 -t "$secs" 2>&1 |
		sed -n 's/.*\[Valid Duration\] RunTime=\([0-9.]*\) sec.*ReceivedMessages=\([0-9]*\).*/\2 \1/p' |
		awk '{printf "%.0f\n", $1 / $2}'
	kill "$srv"; wait "$srv" 2>/dev/null || true
}

printf "%-6s %12s %12s %12s %10s %10s %11s %11s\n" round poll/s block/s sockperf/s poll/sp block/sp user_share bare_share
sb_run() { # wait mode -> "transactions/s user_share"
	"$SB" udp-rr --clients 1 --window 1 --size 100 --wait "$1" --duration "$secs" --warmup 0.5 --json |
		jq -r '.sides as $s | "\(.transactions_per_s) \(($s.client.user_s + $s.server.user_s) /
			($s.client.user_s + $s.server.user_s + $s.client.sys_s + $s.server.sys_s))"'
}
for r in $(seq "$rounds"); do
	read -r pl share < <(sb_run poll)
	read -r bl _ < <(sb_run block)
	sp=$(sockperf_round)
	bare=$("$tmp/bare" "$secs" | awk '{print $4}')
	r1=$(ratio "$pl" "$sp")
	r2=$(ratio "$bl" "$sp")
	printf "%-6s %12.0f %12.0f %12.0f %10s %10s %11.3f %11.3f\n" "$r" "$pl" "$bl" "$sp" "$r1" "$r2" "$share" "$bare"
	echo "$pl $bl $sp $r1 $r2 $share $bare" >>"$tmp/rows"
done
echo
printf "median transactions/s: sockbench (poll) %.0f, sockbench (--wait block) %.0f, sockperf %.0f\n" "$(col 1)" "$(col 2)" "$(col 3)"
printf "median ratio to sockperf: poll %.3f, block %.3f\n" "$(col 4)" "$(col 5)"
printf "median user-CPU share: sockbench (poll) %.3f, bare loop of the same syscalls %.3f\n" "$(col 6)" "$(col 7)"
summary "udp-rr 1 client x 1, 100 B, --wait block" "sockperf ping-pong" "$(col 5)" - 1.0 - \
	"$(vals 5)"
