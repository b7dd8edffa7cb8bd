#!/bin/bash
# Where sockbench's CPU per unit differs from the minimal program's (bench/minimal.c), from
# the profile: each side of each pair runs under `perf record` (the software cpu-clock
# event, every process of the run), and each category's share of the samples is turned into
# microseconds per unit with the CPU per unit that run measured itself. The difference column
# is what overhead.sh's CPU ratio is made of, category by category.
# Each pair runs ROUNDS times, alternating which goes first; each figure is the median over
# the rounds (single profiles of the kernel part vary by 10-30% on a shared machine).
#   usage: bench/overhead_profile.sh [ROUNDS] [SECONDS] [TCP_CRR_CONNECTIONS]   (root)
# Categories (self time of the sampled function):
#   own code         the program's own functions (sockbench's loops, counters, histograms,
#                    tags; the minimal program's main loops)
#   libc + vdso      the system call wrappers and clock_gettime
#   clock reads      clock_gettime through the vDSO (inside libc + vdso, shown apart)
#   thread model     what threads sharing one process cost the kernel and libc: the file
#                    reference taken on every call (fput: the fd table is shared) and glibc's
#                    cancellation-point switching around blocking calls
#   timers           the kernel's timer wheel: a receive timeout (SO_RCVTIMEO) arms and
#                    disarms a timer on every sleep; TCP's own timers are in both
#   other kernel     everything else the kernel did for the calls (the same calls in both)
. "$(dirname "$0")/lib.sh"
rounds=${1:-3}
secs=${2:-3}
conns=${3:-40000}
command -v perf >/dev/null || { echo "perf is not installed (apt-get install linux-perf)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "perf record of every process needs root"; exit 77; }
cc -O2 -std=c11 -o "$tmp/minimal" bench/minimal.c

# categories PERF_DATA -> "own libc clock threads timers kernel" (percent of samples; clock
# is part of libc)
categories() {
	perf report -i "$1" --no-children -g none --sort dso,sym -t $'\t' 2>/dev/null |
		awk -F'\t' '!/^#/ && NF >= 3 {
			p = $1; sub(/%.*/, "", p); d = $2; s = $3; gsub(/ +$/, "", d); sub(/^\[[.k]\] /, "", s)
			if (s ~ /clock_gettime/) c["clock"] += p
			if (s ~ /^fput$|asynccancel/) c["threads"] += p
			else if (d == "[kernel.kallsyms]" && s ~ /^(__mod_timer|add_timer|mod_timer|timer_delete_sync|del_timer_sync|lock_timer_base|timer_init_key|schedule_timeout|detach_if_pending|enqueue_timer|calc_wheel_index|internal_add_timer|__try_to_del_timer_sync|process_timeout)$/) c["timers"] += p
			else if (d == "[kernel.kallsyms]") c["kernel"] += p
			else if (d ~ /^(libc|\[vdso\])/) c["libc"] += p
			else c["own"] += p
		} END { printf "%.2f %.2f %.2f %.2f %.2f %.2f\n", c["own"], c["libc"], c["clock"], c["threads"], c["timers"], c["kernel"] }'
}

# One profiled run -> "cpu_per_unit own libc clock threads timers kernel" in microseconds per
# unit (each category's share of the samples times the run's own CPU per unit).
profiled() { # sb|min ARGS...
	local who=$1 cpu
	shift
	if [ "$who" = sb ]; then
		cpu=$(perf record -q -F 5000 -o "$tmp/p.data" -- "$SB" "$@" --json 2>/dev/null |
			jq '.sides.client.cpu_us_per_unit + .sides.server.cpu_us_per_unit')
	else
		cpu=$(perf record -q -F 5000 -o "$tmp/p.data" -- "$tmp/minimal" "$@" 2>/dev/null |
			awk '{print $2 + $3}')
	fi
	categories "$tmp/p.data" | awk -v c="$cpu" '{ printf "%s", c; for (i = 1; i <= NF; i++) printf " %.4f", $i / 100 * c; print "" }'
}

# pair NAME "SOCKBENCH ARGS" "MINIMAL ARGS"
pair() {
	local name=$1 a b r i
	read -ra a <<<"$2"
	read -ra b <<<"$3"
	: >"$tmp/sb.rows"
	: >"$tmp/min.rows"
	for r in $(seq "$rounds"); do
		if [ $((r % 2)) -eq 1 ]; then
			profiled sb "${a[@]}" >>"$tmp/sb.rows"
			profiled min "${b[@]}" >>"$tmp/min.rows"
		else
			profiled min "${b[@]}" >>"$tmp/min.rows"
			profiled sb "${a[@]}" >>"$tmp/sb.rows"
		fi
	done
	echo "$name: sockbench ${a[*]} | minimal ${b[*]} ($rounds rounds, medians)"
	printf "  %-16s %10s %10s %10s %9s\n" category "sb us/u" "min us/u" difference "of min"
	local names=("all" "own code" "libc + vdso" "  clock reads" "thread model" "timers" "other kernel")
	for i in 0 1 2 3 4 5 6; do
		local sv mv
		sv=$(cut -d' ' -f$((i + 1)) "$tmp/sb.rows" | median)
		mv=$(cut -d' ' -f$((i + 1)) "$tmp/min.rows" | median)
		[ "$i" = 0 ] && mall=$mv
		awk -v n="${names[$i]}" -v s="$sv" -v m="$mv" -v all="$mall" 'BEGIN {
			printf "  %-16s %10.3f %10.3f %+10.3f %+8.1f%%\n", n, s, m, s - m, (s - m) / all * 100 }'
	done
	echo
}

pair "udp-rr (scenario B)" "udp-rr -l $secs" "udp-rr $secs"
pair "udp-rr --batch 64 --connected" "udp-rr -l $secs --batch 64 --connected" "udp-rr $secs 64 connected"
pair "tcp-crr (scenario A)" "tcp-crr -n $conns" "tcp-crr $conns"
pair "tcp-rr" "tcp-rr -l $secs" "tcp-rr $secs"
pair "tcp-stream" "tcp-stream -l $secs" "tcp-stream $secs"
pair "udp-stream" "udp-stream -l $secs" "udp-stream $secs"
pair "udp-stream --connected" "udp-stream -l $secs --connected" "udp-stream $secs 1 connected"
