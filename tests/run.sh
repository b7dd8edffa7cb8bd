#!/bin/bash
# Test runner: unit binaries given as arguments, then every tests/e2e/*.sh.
# Exit codes of a test: 0 pass, 77 skip, anything else fail. Ends with "N passed, N failed".
# Each e2e test runs in a fresh network namespace of its own (unshare --net, lo up, its settings
# a new namespace's defaults): the kernel's counters (/proc/net/snmp, netstat) are per
# namespace, so what the tests compare ours with counts no other traffic on this host
# (isolation.sh proves it beside a loopback flood). Where no namespace can be made (not root,
# no unshare or ip), the tests run in this one, as before, and that is said once.
# SOCKBENCH_TEST_NETNS=0 asks for that.
# T=PATTERN runs only the tests whose name (unit/test_hist, e2e/trace) matches the extended
# regular expression PATTERN (`make test T=trace`, `make test T='e2e/(csv|outputs)'`). Each
# test's seconds are printed beside its verdict, and the slowest five at the end.
# J=N runs N e2e tests side by side (`make test J=2`), those marked "# solo:" alone after.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${SOCKBENCH:?set SOCKBENCH to the binary under test}"
export SOCKBENCH
pass=0 fail=0 skip=0 failed=()
log=$(mktemp -d)
began=$(date +%s)
: >"$log/times"
trap 'rm -rf "$log"' EXIT

# A test runs in the background (start_one) with its output, exit code and seconds in $log;
# finish_one prints its verdict and counts it, in the order the tests finish.
start_one() { # name, timeout, command...
	local name=$1 limit=$2 key
	shift 2
	key=${name//\//_}
	(
		t0=$(date +%s.%N)
		timeout -k 5 "$limit" "$@" >"$log/$key.out" 2>&1 </dev/null
		rc=$?
		awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' >"$log/$key.secs"
		times >"$log/$key.times" # the test's processes' CPU (user, system), second line
		echo "$rc" >"$log/$key.rc.tmp" && mv "$log/$key.rc.tmp" "$log/$key.rc"
	) &
	running+=("$name")
}

finish_one() { # name: its verdict, once its exit code is there
	local name=$1 key rc secs cpu
	key=${name//\//_}
	rc=$(cat "$log/$key.rc") secs=$(cat "$log/$key.secs")
	cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] }
		printf "%.1f", s }' "$log/$key.times")
	printf '%s %s\n' "$secs" "$name" >>"$log/times"
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS %s (%s s, CPU %s s)\n' "$name" "$secs" "$cpu" ;;
	77) skip=$((skip + 1)); printf 'SKIP %s (%s s): %s\n' "$name" "$secs" "$(tail -n 1 "$log/$key.out")" ;;
	*) fail=$((fail + 1)); failed+=("$name"); printf 'FAIL %s (exit %d, %s s)\n' "$name" "$rc" "$secs"
	   sed 's/^/    /' "$log/$key.out" | tail -n 40 ;;
	esac
}

reap() { # until fewer than $1 tests run: wait for one, report those that ended
	local n keep name
	while [ "${#running[@]}" -ge "$1" ] && [ "${#running[@]}" -gt 0 ]; do
		wait -n 2>/dev/null
		keep=()
		for name in "${running[@]}"; do
			if [ -e "$log/${name//\//_}.rc" ]; then finish_one "$name"; else keep+=("$name"); fi
		done
		running=("${keep[@]}")
		aside_step
		n=${#running[@]}
		[ "$n" -gt 0 ] && [ "$n" -ge "$1" ] && sleep 0.05
	done
}

picked() { [ -z "${T:-}" ] || printf '%s\n' "$1" | grep -qE -- "$T"; } # name: T matches it

run_one() { # name, timeout, slots, command...: start it when fewer than slots run (0: now, aside)
	local name=$1 limit=$2 slots=$3
	shift 3
	picked "$name" || return 0
	if [ "$slots" = 0 ]; then
		start_one "$name" "$limit" "$@"
		unset 'running[${#running[@]}-1]'
		aside+=("$name")
		return 0
	fi
	reap "$slots"
	start_one "$name" "$limit" "$@"
	reap "$slots"
}

# The aside lane: one test at a time, the next when it ends (aside_q holds the files to come).
aside_step() {
	if [ "${#aside[@]}" -gt 0 ] && [ -e "$log/${aside[0]//\//_}.rc" ]; then
		finish_one "${aside[0]}"
		aside=()
	fi
	while [ "${#aside[@]}" -eq 0 ] && [ "${#aside_q[@]}" -gt 0 ]; do
		run_e2e "${aside_q[0]}" 0 # (one T does not match starts nothing: the next)
		aside_q=("${aside_q[@]:1}")
	done
}

finish_aside() { # the aside lane, to its end
	aside_step
	while [ "${#aside[@]}" -gt 0 ]; do
		wait -n 2>/dev/null || sleep 0.1
		aside_step
	done
}

# The tests that need this host's namespace: the settings only the first (the host's) namespace
# has (net.core.busy_read, busy_poll, netdev_budget, rps_sock_flow_entries, bpf_jit_enable,
# tcp_mem, udp_mem: a new namespace has no such files), which sysctl.sh sets. It compares no
# kernel counters, so other traffic does not disturb it.
HOST_NETNS=" sysctl "
# A test's namespaces: network, and mount (its mounts its own: /run/netns of the namespaces it
# adds, which go with it). lo up; /sys mounted anew, as `ip netns exec` does, so /sys/class/net
# is this namespace's (its lo, its veths; a write to lo's rps_cpus is not the host's), the
# cgroup mounts under /sys kept.
NETNS_SETUP='ip link set lo up || exit 1
cg=
if mountpoint -q /sys/fs/cgroup 2>/dev/null; then
	cg=$(mktemp -d) && mount --rbind /sys/fs/cgroup "$cg" || exit 1
fi
mount -t sysfs sysfs /sys || exit 1
if [ -n "$cg" ]; then
	mount --rbind "$cg" /sys/fs/cgroup && umount -l "$cg" && rmdir "$cg" || exit 1
fi
exec "$@"'
isolate=()
if [ "${SOCKBENCH_TEST_NETNS:-1}" = 0 ]; then
	echo "note: SOCKBENCH_TEST_NETNS=0: the e2e tests are not isolated (they share this host's network namespace and its other traffic)"
elif unshare --net --mount sh -c "$NETNS_SETUP" sh true 2>/dev/null; then
	isolate=(unshare --net --mount sh -c "$NETNS_SETUP" sh)
	export SOCKBENCH_TEST_NETNS_ON=1 # isolation.sh checks that it got one
else
	echo "note: cannot make a network namespace here (root, unshare and ip are needed): the e2e tests are not isolated (they share this host's network namespace and its other traffic)"
fi

# J tests side by side (J=1, the default: one after another). Every test holds beside another
# (its bounds come from what its runs measured, and a run the machine could not carry says so);
# one whose file holds a line "# solo: REASON" runs alone, after the others: it changes what its
# neighbours would read (the host's sysctls), or is a heavy neighbour itself (a flood). One
# whose file holds "# aside: REASON" mostly waits (a run held long on purpose, a second of CPU
# in forty): with J > 1 those run one at a time in a lane of their own beside the J others,
# from the start, and end before the solo tests start.
J=${J:-1}
case $J in ''|*[!0-9]*|0) echo "J=$J: give the number of tests to run side by side (J=2)"; exit 2 ;; esac
running=() solo=() aside=() aside_q=() # (reap steps the aside lane from the first unit test on)
# How many verdicts must come: a runner that skipped some (its own error) fails, not passes.
due=0
for t in "$@" "$here"/e2e/*.sh; do
	case $t in */lib.sh) continue ;; *.sh) n=e2e/$(basename "$t" .sh) ;; *) n=unit/$(basename "$t") ;; esac
	picked "$n" && due=$((due + 1))
done
[ "$due" -eq 0 ] && { echo "no test's name matches T='${T:-}' (names: unit/test_hist, e2e/trace, ...)"; exit 2; }
for t in "$@"; do # the unit tests first, J at a time too (they time nothing)
	run_one "unit/$(basename "$t")" 120 "$J" "$t"
done
run_e2e() { # file, slots
	local name
	name=$(basename "$1" .sh)
	case $HOST_NETNS in
	*" $name "*) run_one "e2e/$name" 300 "$2" bash "$1" ;;
	*) run_one "e2e/$name" 300 "$2" "${isolate[@]}" bash "$1" ;;
	esac
}
if [ "$J" -gt 1 ]; then
	aside_q=($(grep -l '^# aside: ' "$here"/e2e/*.sh))
	aside_step
fi
for t in "$here"/e2e/*.sh; do
	[ "$(basename "$t")" = lib.sh ] && continue
	if [ "$J" -gt 1 ] && grep -q '^# \(solo\|aside\): ' "$t"; then
		grep -q '^# solo: ' "$t" && solo+=("$t")
		continue
	fi
	run_e2e "$t" "$J"
done
reap 1
finish_aside
# The solo tests marked "# last: REASON" after the other solo ones: the kernel tears down what
# they made (a namespace of 100,000 sockets) for seconds after they end, on the CPUs the next
# test would time itself on (tcp_stream's rate series and tcp_info's RTTs failed in CI right
# after them).
for t in "${solo[@]}"; do grep -q '^# last: ' "$t" || run_e2e "$t" 1; done
for t in "${solo[@]}"; do grep -q '^# last: ' "$t" && run_e2e "$t" 1; done
reap 1
echo "slowest: $(sort -rn "$log/times" | head -n 5 | awk '{printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1}')"
echo "all in $(($(date +%s) - began)) s"
summary="$pass passed, $fail failed"
[ "$skip" -gt 0 ] && summary="$summary, $skip skipped"
if [ $((pass + fail + skip)) -ne "$due" ]; then
	summary="$summary; $((due - pass - fail - skip)) of the $due tests gave no verdict (the runner's own error, above)"
	fail=$((fail + 1))
fi
echo "$summary"
[ "$fail" -eq 0 ]
