#!/bin/bash
# Bulk transfer against iperf3 and sockperf, alternating rounds on loopback.
#  TCP: sockbench tcp-stream against iperf3, one flow, 128 KiB writes: Gbit/s and CPU per
#       MB (both ends together; iperf3's own cpu_utilization_percent), each round's ratios.
#       As it comes (--wait auto: on loopback with a CPU for each end, the receiver tries
#       again for 50 us before it sleeps, which spends CPU for rate: its CPU per MB has no
#       target) and --wait block (a receiver that sleeps in recv, as iperf3's does: like for
#       like, both targets).
#  UDP: sockbench udp-stream, 100-byte datagrams, one flow at full speed: as it comes, with a
#       connected socket (iperf3's calls), with batching (--batch 32) and with GSO+GRO,
#       against iperf3 -u -b 0 -l 100 and sockperf throughput: packets received per second
#       (sockperf: sent, it reports no more).
#  Reverse: tcp-stream and udp-stream (connected) --reverse against iperf3 -R.
# Each round runs both, the one first that went second in the round before (drift cancels).
#   usage: bench/stream_vs_iperf3.sh [ROUNDS] [SECONDS]
. "$(dirname "$0")/lib.sh"
command -v iperf3 >/dev/null || { echo "iperf3 is not installed (apt-get install iperf3)"; exit 77; }
rounds=${1:-${ROUNDS:-5}}
secs=${2:-3}
port=$((30000 + RANDOM % 20000))

iperf3_round() { # extra client flags; prints the client's JSON
	iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	local srv=$!
	sleep 0.3
	iperf3 -c 127.0.0.1 -p "$port" -t "$secs" --omit 1 -J "$@" >"$tmp/iperf.json" || true
	wait "$srv" 2>/dev/null || true
	port=$((port + 1))
}

echo "TCP, one flow, 131072-byte writes, $secs s per round"
printf "%-6s %10s %10s %7s %12s %12s %7s %10s %10s %7s %7s\n" round sb-Gbit/s ip-Gbit/s ratio \
	sb-us/MB ip-us/MB ratio blk-Gbit/s blk-us/MB ratio ratio
sb_tcp() { # [--wait MODE] -> "Gbit/s CPU-us/MB"
	"$SB" tcp-stream --size 131072 --duration "$secs" --warmup 1 "$@" --json |
		jq -r '"\(.gbit_per_s) \(.service_demand_us_per_mb | .client + .server)"'
}
: >"$tmp/rows"
for r in $(seq "$rounds"); do
	# Who goes first flips each round, so a drift of the machine's speed cancels.
	[ $((r % 2)) = 0 ] && iperf3_round -l 128K
	read -r sb sbcpu < <(sb_tcp)
	read -r bl blcpu < <(sb_tcp --wait block)
	[ $((r % 2)) = 1 ] && iperf3_round -l 128K
	ip=$(jq '.end.sum_received.bits_per_second / 1e9' "$tmp/iperf.json")
	# iperf3: percent of one CPU over the test, each end; CPU us per MB received.
	ipcpu=$(jq '(.end.cpu_utilization_percent | .host_total + .remote_total) / 100 * .end.sum_received.seconds * 1e6 / (.end.sum_received.bytes / 1e6)' "$tmp/iperf.json")
	rg=$(ratio "$sb" "$ip")
	rc=$(ratio "$sbcpu" "$ipcpu")
	rbg=$(ratio "$bl" "$ip")
	rbc=$(ratio "$blcpu" "$ipcpu")
	printf "%-6s %10.2f %10.2f %7s %12.1f %12.1f %7s %10.2f %10.1f %7s %7s\n" "$r" "$sb" "$ip" \
		"$rg" "$sbcpu" "$ipcpu" "$rc" "$bl" "$blcpu" "$rbg" "$rbc"
	echo "$sb $ip $rg $sbcpu $ipcpu $rc $bl $blcpu $rbg $rbc" >>"$tmp/rows"
done
printf "median: sockbench %.2f Gbit/s at %.1f CPU us/MB, iperf3 %.2f Gbit/s at %.1f CPU us/MB; median ratios %.3f (Gbit/s), %.3f (CPU per MB, lower is better)\n" \
	"$(col 1)" "$(col 4)" "$(col 2)" "$(col 5)" "$(col 3)" "$(col 6)"
printf "median --wait block: %.2f Gbit/s at %.1f CPU us/MB; ratios %.3f (Gbit/s), %.3f (CPU/MB)\n\n" \
	"$(col 7)" "$(col 8)" "$(col 9)" "$(col 10)"
summary "tcp-stream 128 KiB writes" "iperf3" "$(col 3)" "$(col 6)" 1.0 - "$(vals 3)"
summary "tcp-stream 128 KiB writes --wait block" "iperf3" "$(col 9)" "$(col 10)" 1.0 1.0 \
	"$(vals 9)" "$(vals 10)"

echo "UDP, one flow, 100-byte datagrams at full speed, $secs s per round: packets received/s"
echo "(sb: our defaults, unconnected sendmsg; conn: --connected, the calls iperf3 makes; b32: and --batch 32;"
echo " busy: --connected --wait busy, the receiver spins where it would sleep (each wake-up is the sender's"
echo " CPU's work over loopback); gso: --connected --gso 32 --gro --batch 8; sockperf-tx: what sockperf sent)"
printf "%-6s %9s %9s %9s %9s %10s %9s %11s %8s %8s %8s %8s\n" round sb conn busy b32 gso iperf3 sockperf-tx \
	conn/ip busy/ip b32/ip gso/ip
: >"$tmp/rows"
udp() { "$SB" udp-stream --size 100 --duration "$secs" --warmup 1 --json "$@" | jq '.packets_per_s'; }
peers_udp() { # iperf3 -u, then sockperf tp where it is installed: $ip and $sp
	iperf3_round -u -b 0 -l 100
	ip=$(jq '.end.sum | (.packets - .lost_packets) / .seconds' "$tmp/iperf.json")
	sp=0
	if command -v sockperf >/dev/null; then
		sockperf sr -i 127.0.0.1 -p "$port" >/dev/null 2>&1 &
		srv=$!
		sleep 0.3
		sp=$(sockperf tp -i 127.0.0.1 -p "$port" -m 100 -t "$secs" 2>&1 |
			sed -n 's/.*Message Rate is \([0-9]*\) \[msg\/sec\].*/\1/p' | tail -1)
		kill "$srv"; wait "$srv" 2>/dev/null || true
		port=$((port + 1))
	fi
}
for r in $(seq "$rounds"); do
	[ $((r % 2)) = 0 ] && peers_udp # the peers first every other round: drift cancels
	a=$(udp)
	c=$(udp --connected)
	w=$(udp --connected --wait busy)
	b=$(udp --connected --batch 32)
	g=$(udp --connected --gso 32 --gro --batch 8)
	[ $((r % 2)) = 1 ] && peers_udp
	rc=$(ratio "$c" "$ip")
	rw=$(ratio "$w" "$ip")
	rb=$(ratio "$b" "$ip")
	rg=$(ratio "$g" "$ip")
	printf "%-6s %9.0f %9.0f %9.0f %9.0f %10.0f %9.0f %11.0f %8s %8s %8s %8s\n" "$r" "$a" "$c" "$w" "$b" \
		"$g" "$ip" "${sp:-0}" "$rc" "$rw" "$rb" "$rg"
	echo "$a $c $b $g $ip ${sp:-0} $rc $rb $rg $w $rw" >>"$tmp/rows"
done
printf "median packets received/s: sockbench %.0f, connected %.0f, connected + busy wait %.0f, connected + batch 32 %.0f, connected + GSO/GRO %.0f; iperf3 %.0f; sockperf sent %.0f\n" \
	"$(col 1)" "$(col 2)" "$(col 10)" "$(col 3)" "$(col 4)" "$(col 5)" "$(col 6)"
printf "median ratios to iperf3: connected %.3f, connected + busy wait %.3f, batch 32 %.3f, GSO+GRO %.3f\n" \
	"$(col 7)" "$(col 11)" "$(col 8)" "$(col 9)"
summary "udp-stream 100 B --connected" "iperf3 -u -b 0 -l 100" "$(col 7)" - 1.0 - "$(vals 7)"
summary "udp-stream 100 B --connected --wait busy" "iperf3 -u -b 0 -l 100" "$(col 11)" - 1.0 - \
	"$(vals 11)"

echo
echo "Reverse (the server sends: iperf3 -R), $secs s per round: TCP Gbit/s, UDP 100-byte packets received/s (connected)"
printf "%-6s %10s %10s %7s %10s %10s %7s\n" round sb-Gbit/s ip-Gbit/s ratio sb-udp ip-udp ratio
: >"$tmp/rows"
for r in $(seq "$rounds"); do
	[ $((r % 2)) = 0 ] && iperf3_round -l 128K -R && cp "$tmp/iperf.json" "$tmp/iperf_t.json"
	t=$("$SB" tcp-stream --reverse --size 131072 --duration "$secs" --warmup 1 --json | jq '.gbit_per_s')
	[ $((r % 2)) = 1 ] && iperf3_round -l 128K -R && cp "$tmp/iperf.json" "$tmp/iperf_t.json"
	ti=$(jq '.end.sum_received.bits_per_second / 1e9' "$tmp/iperf_t.json")
	[ $((r % 2)) = 0 ] && iperf3_round -u -b 0 -l 100 -R
	u=$(udp --reverse --connected)
	[ $((r % 2)) = 1 ] && iperf3_round -u -b 0 -l 100 -R
	ui=$(jq '.end.sum | (.packets - .lost_packets) / .seconds' "$tmp/iperf.json")
	rt=$(ratio "$t" "$ti")
	ru=$(ratio "$u" "$ui")
	printf "%-6s %10.2f %10.2f %7s %10.0f %10.0f %7s\n" "$r" "$t" "$ti" "$rt" "$u" "$ui" "$ru"
	echo "$t $ti $rt $u $ui $ru" >>"$tmp/rows"
done
printf "median: TCP sockbench %.2f vs iperf3 %.2f Gbit/s (ratio %.3f); UDP sockbench %.0f vs iperf3 %.0f packets/s (ratio %.3f)\n" \
	"$(col 1)" "$(col 2)" "$(col 3)" "$(col 4)" "$(col 5)" "$(col 6)"
summary "tcp-stream --reverse" "iperf3 -R" "$(col 3)" - 1.0 - "$(vals 3)"
summary "udp-stream 100 B --connected --reverse" "iperf3 -u -R" "$(col 6)" - 1.0 - "$(vals 6)"
