#!/bin/bash
# sockbench udp-rr (1 client, 1 outstanding, 100 bytes) against sockperf ping-pong (UDP, 100
# bytes), in alternating rounds on loopback; prints the median transactions/s of each, the
# median of the per-round ratios, and the user-CPU share of sockbench's processes beside that
# of a bare loop of the same syscalls. This machine is noisy: only the medians mean anything.
# Two sockbench shapes run: the default (--wait auto, which picks a blocking receive for one
# request in flight: recvmsg + sendmsg, the calls sockperf makes; the table says what it
# picked) and --wait poll (the client poll()s before reading, as scenario B's program did).
# The order flips every round (sockperf first in even ones), so drift cancels.
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

printf "%-6s %12s %12s %12s %10s %10s %11s %11s\n" round default/s poll/s sockperf/s default/sp \
	poll/sp user_share bare_share
sb_run() { # [--wait MODE] -> "transactions/s user_share client_wait"
	"$SB" udp-rr --clients 1 --window 1 --size 100 "$@" --duration "$secs" --warmup 0.5 --json |
		jq -r '.sides as $s | "\(.transactions_per_s) \(($s.client.user_s + $s.server.user_s) /
			($s.client.user_s + $s.server.user_s + $s.client.sys_s + $s.server.sys_s))
			\(.config.wait_client)"' | tr '\n' ' '
	echo
}
for r in $(seq "$rounds"); do
	# sockperf first every other round: drift cancels
	[ $((r % 2)) = 0 ] && sp=$(sockperf_round)
	read -r dl share dw < <(sb_run)
	read -r pl _ _ < <(sb_run --wait poll)
	[ $((r % 2)) = 1 ] && sp=$(sockperf_round)
	bare=$("$tmp/bare" "$secs" | awk '{print $4}')
	r1=$(ratio "$dl" "$sp")
	r2=$(ratio "$pl" "$sp")
	printf "%-6s %12.0f %12.0f %12.0f %10s %10s %11.3f %11.3f\n" "$r" "$dl" "$pl" "$sp" "$r1" \
		"$r2" "$share" "$bare"
	echo "$dl $pl $sp $r1 $r2 $share $bare $dw" >>"$tmp/rows"
done
echo
waits=$(cut -d' ' -f8 "$tmp/rows" | sort -u | paste -sd/ -)
printf "median transactions/s: sockbench (default: the client's wait %s) %.0f, " "$waits" "$(col 1)"
printf -- "--wait poll %.0f, sockperf %.0f\n" "$(col 2)" "$(col 3)"
printf "median ratio to sockperf: default %.3f, poll %.3f\n" "$(col 4)" "$(col 5)"
printf "median user-CPU share: sockbench (default) %.3f, bare loop of the same syscalls %.3f\n" \
	"$(col 6)" "$(col 7)"
summary "udp-rr 1 client x 1, 100 B, default wait ($waits)" "sockperf ping-pong" "$(col 4)" - \
	1.0 - "$(vals 4)"
