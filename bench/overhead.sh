#!/bin/bash
# sockbench against the minimal program of each default workload's calls (bench/minimal.c),
# in alternating rounds (the order flips every round, so drift cancels): the median of the
# per-round ratios of the rate and of the CPU per unit (both sides' user + sys over the
# window). Targets: rate >= 0.97, CPU per unit <= 1.03. The user columns give each one's
# user-space share of its CPU: what sockbench's own code can cost at most is the difference.
#   usage: [ROWS=REGEX] bench/overhead.sh [ROUNDS] [SECONDS] [TCP_CRR_CONNECTIONS]
# (ROWS: only the rows whose name matches, e.g. ROWS='scenario B')
. "$(dirname "$0")/lib.sh"
rounds=${1:-${ROUNDS:-5}}
secs=${2:-3}
conns=${3:-50000}
cc -O2 -std=c11 -o "$tmp/minimal" bench/minimal.c

sb() { # -> "rate cpu_per_unit"
	"$SB" "$@" --json | jq -r '.sides as $s | "\(.rate) \($s.client.cpu_us_per_unit + $s.server.cpu_us_per_unit)
		\(($s.client.user_s + $s.server.user_s) / ($s.client.user_s + $s.server.user_s + $s.client.sys_s + $s.server.sys_s))"' |
		tr '\n' ' '
	echo
}
mini() { ${on_one:+taskset -c "$one"} "$tmp/minimal" "$@" | awk '{print $1, $2 + $3, $4}'; }
# The first CPU this script may use: the one-CPU rows put both ends of both programs there.
one=$(first_cpu)

# row NAME UNIT "SOCKBENCH ARGS" "MINIMAL ARGS" [one]
# one: both programs with every process or thread on one CPU (sockbench --cpus client=C,server=C,
# the minimal program under taskset -c C): no wake-up crosses CPUs, the rate is what one CPU
# does, and their ratio is the two programs' cost per unit, free of where the scheduler put the
# two ends (which moves a ping-pong's rate by 10-30% run to run on a guest).
row() {
	local name=$1 unit=$2 on_one=${5:-} a b r
	[[ -z ${ROWS:-} || $name =~ $ROWS ]] || return 0
	read -ra a <<<"$3"
	read -ra b <<<"$4"
	[ -z "$on_one" ] || a+=(--cpus "client=$one,server=$one")
	echo "$name: sockbench ${a[*]} | minimal ${b[*]}"
	printf "  %-6s %11s %9s %7s %12s %9s %7s %7s %7s\n" round "sb $unit/s" sb-cpu/u sb-user \
		"min $unit/s" min-cpu/u min-usr rate cpu
	: >"$tmp/rows"
	for r in $(seq "$rounds"); do
		if [ $((r % 2)) -eq 1 ]; then
			read -r sr sc su < <(sb "${a[@]}")
			read -r mr mc mu < <(mini "${b[@]}")
		else
			read -r mr mc mu < <(mini "${b[@]}")
			read -r sr sc su < <(sb "${a[@]}")
		fi
		printf "  %-6s %11.0f %9.3f %7.3f %12.0f %9.3f %7.3f %7s %7s\n" "$r" "$sr" "$sc" "$su" "$mr" "$mc" \
			"$mu" "$(ratio "$sr" "$mr")" "$(ratio "$sc" "$mc")"
		echo "$sr $sc $mr $mc $(ratio "$sr" "$mr") $(ratio "$sc" "$mc") $su $mu" >>"$tmp/rows"
	done
	printf "  %-6s %11.0f %9.3f %7.3f %12.0f %9.3f %7.3f %7.3f %7.3f\n\n" median "$(col 1)" "$(col 2)" "$(col 7)" \
		"$(col 3)" "$(col 4)" "$(col 8)" "$(col 5)" "$(col 6)"
	summary "$name" "minimal program" "$(col 5)" "$(col 6)" 0.97 1.03 "$(vals 5)" "$(vals 6)"
}

row "udp-rr (scenario B)" tr "udp-rr -l $secs" "udp-rr $secs"
row "udp-rr --batch 64 --connected" tr "udp-rr -l $secs --batch 64 --connected" "udp-rr $secs 64 connected"
row "tcp-crr (scenario A)" conn "tcp-crr -n $conns" "tcp-crr $conns"
row "tcp-rr" tr "tcp-rr -l $secs" "tcp-rr $secs"
row "tcp-stream" MB "tcp-stream -l $secs" "tcp-stream $secs"
row "udp-stream" pkt "udp-stream -l $secs" "udp-stream $secs"
row "udp-stream --connected" pkt "udp-stream -l $secs --connected" "udp-stream $secs 1 connected"
# Both ends on one CPU (not the streams: the minimal program's receiver tries again before it
# sleeps, sockbench's does not where both ends share a CPU).
row "udp-rr (scenario B), one CPU" tr "udp-rr -l $secs" "udp-rr $secs" one
row "tcp-crr (scenario A), one CPU" conn "tcp-crr -n $conns" "tcp-crr $conns" one
row "tcp-rr, one CPU" tr "tcp-rr -l $secs" "tcp-rr $secs" one
