#!/bin/bash
# tcp-crr, scenario A's shape, against a bare C loop of the same calls (bench/bare_tcp_crr.c:
# netperf's TCP_CRR and neper are not in Debian main), in alternating rounds. Prints
# connections/s and per-side user/sys microseconds per connection of each, the median ratio
# of rates, and sockbench's client user share (target: under 10% of the client's CPU).
#   usage: bench/tcp_crr_vs_peer.sh [ROUNDS] [CONNECTIONS]
. "$(dirname "$0")/lib.sh"
rounds=${1:-${ROUNDS:-5}}
conns=${2:-100000}
cc -O2 -o "$tmp/bare" bench/bare_tcp_crr.c

printf "%-5s | %9s %7s %7s %7s %7s | %9s %7s %7s %7s %7s | %6s %10s\n" round sb_conn/s c_usr c_sys s_usr s_sys \
	bare/s c_usr c_sys s_usr s_sys ratio c_usr_share
for r in $(seq "$rounds"); do
	"$SB" tcp-crr --conns "$conns" --json >"$tmp/sb.json"
	read -r sb cu cs su ss share < <(jq -r '.sides as $s | "\(.connections_per_s) \($s.client.user_us_per_connection)
		\($s.client.sys_us_per_connection) \($s.server.user_us_per_connection) \($s.server.sys_us_per_connection)
		\($s.client.user_s / ($s.client.user_s + $s.client.sys_s))"' "$tmp/sb.json" | tr '\n' ' '; echo)
	read -r b bcu bcs bsu bss < <("$tmp/bare" "$conns")
	ratio=$(ratio "$sb" "$b")
	printf "%-5s | %9.0f %7.2f %7.2f %7.2f %7.2f | %9.0f %7.2f %7.2f %7.2f %7.2f | %6s %10.3f\n" \
		"$r" "$sb" "$cu" "$cs" "$su" "$ss" "$b" "$bcu" "$bcs" "$bsu" "$bss" "$ratio" "$share"
	echo "$sb $b $ratio $share $cu $cs $bcu $bcs" >>"$tmp/rows"
done
echo
printf "median connections/s: sockbench %.0f, bare loop %.0f, ratio %.3f\n" "$(col 1)" "$(col 2)" "$(col 3)"
printf "median client us/connection: sockbench user %.2f sys %.2f, bare loop user %.2f sys %.2f\n" \
	"$(col 5)" "$(col 6)" "$(col 7)" "$(col 8)"
printf "median client user share (user / (user + sys)): %.3f\n" "$(col 4)"
summary "tcp-crr (scenario A)" "bare loop that reads the FIN" "$(col 3)" - 0.97 - "$(vals 3)"
