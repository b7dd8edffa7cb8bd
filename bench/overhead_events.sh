#!/bin/bash
# What the kernel does per unit for sockbench and for the minimal program (bench/minimal.c),
# counted, not timed: `perf stat` of tracepoints on the one CPU both ends of both programs run
# on (sockbench --cpus client=C,server=C, the minimal program under taskset -c C). Each count is
# the difference between a long and a short run of the same program over the difference of
# their units, so set-up and teardown cancel. Counts do not move with the host's noise, which
# swings a round's rate by 10-30% here: two programs that make the same calls, switches, wakes,
# timer arms and packets per unit differ only in what each event costs them, and a change that
# adds a call or a timer per unit shows here at once.
#   usage: bench/overhead_events.sh [SHORT_SECONDS] [TCP_CRR_CONNECTIONS]   (root, perf)
# The long runs are three times the short ones.
. "$(dirname "$0")/lib.sh"
short=${1:-1}
conns=${2:-10000}
command -v perf >/dev/null || { echo "perf is not installed (apt-get install linux-perf)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "tracepoints on a CPU need root"; exit 77; }
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
	{ echo "no tracefs (mount -t tracefs nodev /sys/kernel/tracing)"; exit 77; }
cc -O2 -std=c11 -o "$tmp/minimal" bench/minimal.c
one=$(first_cpu)
names=(sys_enter sched_switch sched_wakeup timer_start hrtimer_start softirq_entry net_dev_xmit)
ev=raw_syscalls:sys_enter,sched:sched_switch,sched:sched_wakeup,timer:timer_start
ev+=,timer:hrtimer_start,irq:softirq_entry,net:net_dev_xmit
perf stat -x, -C "$one" -e "$ev" -o /dev/null true 2>/dev/null ||
	{ echo "perf cannot count tracepoints here"; exit 77; }

# counted OUT CMD... -> the events of CMD on CPU $one, one per line in $ev's order, into OUT
counted() {
	local out=$1
	shift
	perf stat -x, -C "$one" -e "$ev" -o "$out.stat" -- "$@" >"$out.stdout" 2>/dev/null
	grep -v '^#' "$out.stat" | grep . | cut -d, -f1 >"$out"
}
# units OUT sb|min -> the units of that run: sockbench's window (no warm-up: --warmup 0), the
# minimal program's whole run (its warm-up runs the same loop; its fifth field)
units() {
	if [ "$2" = sb ]; then
		jq -r '.transactions // .connections' "$1.stdout"
	else
		awk '{print $5}' "$1.stdout"
	fi
}
# row NAME UNIT LENGTH_SHORT LENGTH_LONG: sockbench and the minimal program, per unit
row() {
	local name=$1 unit=$2 a=$3 b=$4
	printf "%s, both ends on CPU %s: events per %s (long run less short run)\n" "$name" "$one" "$unit"
	printf "  %-16s %12s %12s\n" event sockbench minimal
	for who in sb min; do
		for len in "$a" "$b"; do
			if [ "$who" = sb ]; then
				case $name in
				tcp-crr) counted "$tmp/$who$len" "$SB" tcp-crr -n "$len" --warmup-conns 0 \
					--cpus "client=$one,server=$one" --json ;;
				*) counted "$tmp/$who$len" "$SB" "$name" -l "$len" --warmup 0 \
					--cpus "client=$one,server=$one" --json ;;
				esac
				units "$tmp/$who$len" sb >"$tmp/$who$len.n"
			else
				counted "$tmp/$who$len" taskset -c "$one" "$tmp/minimal" "$name" "$len"
				units "$tmp/$who$len" min >"$tmp/$who$len.n"
			fi
		done
	done
	for i in "${!names[@]}"; do
		printf "  %-16s" "${names[$i]}"
		for who in sb min; do
			awk -v i=$((i + 1)) -v na="$(cat "$tmp/$who$a.n")" -v nb="$(cat "$tmp/$who$b.n")" '
				FNR == i {v[FILENAME == ARGV[1]] = $1}
				END {printf " %12.3f", (v[0] - v[1]) / (nb - na)}' "$tmp/$who$a" "$tmp/$who$b"
		done
		echo
	done
	echo
}
row udp-rr transaction "$short" $((short * 3))
row tcp-rr transaction "$short" $((short * 3))
row tcp-crr connection "$conns" $((conns * 3))
