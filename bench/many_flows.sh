#!/bin/bash
# The cost curve of tcp-rr as flows grow (1-byte request and answer, loopback, one client
# process, or as few as the open-file hard limit lets hold the flows, said in the row): at 1,
# 10, 100, 1,000, 10,000 and 100,000 flows, the rate, each side's CPU per
# transaction split user/system and each side's user-space memory per flow (VmHWM less the
# memory before the flows, over the flows), all measured in this run. A point the machine
# refuses (the open-file limit, ports) prints the tool's reason and the curve goes on. Last, the
# spread of each side's user CPU per transaction from 100 flows up (largest over smallest:
# flat within 20% is at most 1.20) and the largest memory per flow there (at most 2 KiB).
#   usage: [ROUNDS=3] bench/many_flows.sh [SECONDS] [FLOWS...]
# neper (tcp_rr) is the tool people measure this with; it is not in Debian and this machine has
# no network to build it, so its figures below are the ones a user measured on their
# machine (another session, another machine): a reference, not a ratio of this run.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || { echo "jq is not installed"; exit 77; }
secs=${1:-4}
shift || true
points=${*:-1 10 100 1000 10000 100000}
rounds=${ROUNDS:-3}

fmt="%8s %10s %8s %8s %8s %8s %10s %10s %8s %8s %7s %7s\n"
hard=$(ulimit -Hn)
prof=
usrsrc="getrusage's ticks"
[ "$(id -u)" = 0 ] && prof=--profile && usrsrc="profile samples, 2,999 Hz"
[ "$hard" = unlimited ] && hard=100000000
# One run at F flows: its row (flows rate usr sys usr sys B B MB MB) into $tmp/pt.
point() {
	local f=$1 warm c
	# The warm-up covers opening the connections; more flows, more of it.
	warm=$(awk -v f="$f" 'BEGIN {print (f >= 10000 ? 2 : 1)}')
	# Client processes: as few as hold f under the hard limit, f a multiple of them.
	c=$(((f + hard - 201) / (hard - 200)))
	while [ $((f % c)) != 0 ]; do c=$((c + 1)); done
	if ! "$SB" tcp-rr --clients $c --flows $((f / c)) --duration "$secs" --warmup "$warm" \
		$prof --json >"$tmp/p.json" 2>"$tmp/err"; then
		printf "%8s stopped: %s\n" "$f" "$(tail -1 "$tmp/err")"
		return 1
	fi
	[ $c -gt 1 ] && echo "         ($c client processes of $((f / c)) flows: one may hold $hard descriptors)"
	# User CPU per transaction: from the profile's samples where it ran (each side's user
	# share of them, at its rate, over the transactions), the rest of each side's CPU system.
	jq -r --arg f "$f" '.sides as $s | .transactions as $t | .profile as $p |
		def usr($side; $m): if ($p.available // false) and $p.samples > 0
			then $m / 100 * $p.samples / $p.hz / $t * 1e6 * 1000 | round / 1000
			else $s[$side].user_us_per_unit end;
		def sys($side; $u): $s[$side].user_us_per_unit + $s[$side].sys_us_per_unit - $u |
			. * 1000 | round / 1000;
		usr("client"; $p.modes.client_user) as $cu | usr("server"; $p.modes.server_user) as $su |
		[$f, (.transactions_per_s | floor), $cu, sys("client"; $cu), $su, sys("server"; $su),
		($s.client.memory_per_flow | floor), ($s.server.memory_per_flow | floor),
		($s.client.vm_hwm_kb / 1024 * 10 | floor / 10),
		($s.server.vm_hwm_kb / 1024 * 10 | floor / 10),
		($s.client.syscalls_per_transaction * 100 | floor / 100),
		($s.server.syscalls_per_transaction * 100 | floor / 100)] | @tsv' "$tmp/p.json" | tr '\t' ' ' >"$tmp/pt"
	[ "$(jq .errors "$tmp/p.json")" = 0 ] || echo "         (errors: $(jq -c .sides.client.errors_by_kind "$tmp/p.json"))"
}
# The user/system split of a process's CPU (getrusage) is the kernel's tick sampling: at 0.2 us
# of user time a transaction a 4 s run holds 30-40 ticks of it, 15-20% from run to run, as
# much as the flatness this curve is held to. So as root each point runs under sockbench's
# --profile (cpu-clock at 2,999 Hz on every CPU, 10 times the ticks) and a side's user CPU is
# its user share of those samples; elsewhere getrusage's, and the header says which. The
# profile costs each point alike (its samples' interrupts). And each point runs in every
# round (the points in turn, so drift reaches them all) and its row is the median. On a guest
# the user share also holds each system call's entry and exit (dd of 64-byte blocks: 0.3 us
# of user time a call), so it follows the system calls per transaction (sc/tr), printed.
for r in $(seq "$rounds"); do
	echo "round $r of $rounds: $points flows"
	for f in $points; do
		point "$f" >"$tmp/say" && cat "$tmp/pt" >>"$tmp/all"
		[ "$r" = 1 ] && cat "$tmp/say"
	done
done
echo
printf "$fmt" flows rate/s "cli usr" "cli sys" "srv usr" "srv sys" "cli B/flow" "srv B/flow" \
	"cli MB" "srv MB" "cli sc" "srv sc"
printf "$fmt" "(median)" "" "us/tr" "us/tr" "us/tr" "us/tr" "" "" "" "" "/tr" "/tr"
echo "(user CPU: $usrsrc)"
: >"$tmp/rows"
for f in $points; do
	awk -v f="$f" '$1 == f' "$tmp/all" 2>/dev/null >"$tmp/rows_f" || true
	[ -s "$tmp/rows_f" ] || continue
	row="$f"
	for i in 2 3 4 5 6 7 8 9 10 11 12; do row="$row $(cut -d' ' -f$i "$tmp/rows_f" | median)"; done
	# shellcheck disable=SC2086 # the row's fields
	printf "$fmt" $row
	[ "$f" -ge 100 ] && echo "$row" >>"$tmp/rows"
done
if [ -s "$tmp/rows" ]; then
	# From 100 flows up: each side's user CPU per transaction, largest over smallest; the
	# memory per flow at the most flows (below that the fixed part, threads and their
	# histograms, is spread over few flows).
	awk '{for (i = 3; i <= 5; i += 2) {if (!(i in lo) || $i < lo[i]) lo[i] = $i; if ($i > hi[i]) hi[i] = $i}
		m = ($7 > $8 ? $7 : $8); f = $1; if (NR == 1) {r0 = $2; f0 = $1}; r = $2}
		END {c = hi[3] / lo[3]; s = hi[5] / lo[5]
			printf "\nfrom %d flows up: user CPU per transaction spread client %.2f, server %.2f" \
			" (flat within 20%%: <= 1.20); at %d flows %d B of memory a flow (<= 2048)\n",
			f0, c, s, f, m
			printf "%.3f %.3f %d %d %d\n", r / r0, (c > s ? c : s), f0, f, m > "/dev/stderr"}' \
		"$tmp/rows" 2>"$tmp/sum"
	read -r rr spread f0 f1 mem <"$tmp/sum"
	summary "tcp-rr $f0 to $f1 flows: user CPU/tr" "its spread (most/least point, worse side)" \
		"$rr" "$spread" - 1.20
	[ "$mem" -le 2048 ] || echo "memory per flow $mem B at $f1 flows: over 2 KiB"
fi
cat <<'REF'

neper tcp_rr for reference (figures measured by a user on another machine and
session, one client process, 1-byte messages; not run here: not packaged, no network to build):
   flows   neper rate/s   neper client RSS
    1000         73,241              12 MB
   10000         68,126             103 MB
REF
