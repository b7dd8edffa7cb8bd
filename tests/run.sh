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
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${SOCKBENCH:?set SOCKBENCH to the binary under test}"
export SOCKBENCH
pass=0 fail=0 skip=0 failed=() ran=0
log=$(mktemp -d)
: >"$log/times"
trap 'rm -rf "$log"' EXIT

run_one() { # name, timeout, command...
	local name=$1 limit=$2 rc t0 secs
	shift 2
	[ -n "${T:-}" ] && ! printf '%s\n' "$name" | grep -qE -- "$T" && return 0
	ran=$((ran + 1))
	t0=$(date +%s.%N)
	timeout -k 5 "$limit" "$@" >"$log/out" 2>&1
	rc=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	printf '%.1f %s\n' "$secs" "$name" >>"$log/times"
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS %s (%.1f s)\n' "$name" "$secs" ;;
	77) skip=$((skip + 1)); printf 'SKIP %s (%.1f s): %s\n' "$name" "$secs" "$(tail -n 1 "$log/out")" ;;
	*) fail=$((fail + 1)); failed+=("$name"); printf 'FAIL %s (exit %d, %.1f s)\n' "$name" "$rc" "$secs"
	   sed 's/^/    /' "$log/out" | tail -n 40 ;;
	esac
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

for t in "$@"; do
	run_one "unit/$(basename "$t")" 120 "$t"
done
for t in "$here"/e2e/*.sh; do
	[ "$(basename "$t")" = lib.sh ] && continue
	name=$(basename "$t" .sh)
	case $HOST_NETNS in
	*" $name "*) run_one "e2e/$name" 300 bash "$t" ;;
	*) run_one "e2e/$name" 300 "${isolate[@]}" bash "$t" ;;
	esac
done
[ -n "${T:-}" ] && [ "$ran" -eq 0 ] && { echo "no test's name matches T='$T' (names: unit/test_hist, e2e/trace, ...)"; exit 2; }
echo "slowest: $(sort -rn "$log/times" | head -n 5 | awk '{printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1}')"
summary="$pass passed, $fail failed"
[ "$skip" -gt 0 ] && summary="$summary, $skip skipped"
echo "$summary"
[ "$fail" -eq 0 ]
