# The environment block (issue 16): every key there, each checked against the kernel's own
# tools (uname, nproc, sysctl, tc, /sys), the same in two runs; compare of two saved files
# with one edited sysctl prints exactly that difference, and a second edit of another kind
# warns; sockbench check finds a busy process; context switches per unit follow the waits.
# solo: check must find the busy process it starts, not another test's
. "$(dirname "$0")/lib.sh"
need jq
short=(--duration 0.5 --warmup 0.2 --json)
"$SB" udp-rr "${short[@]}" >"$TMP/a.json" || fail "run 1"
"$SB" udp-rr "${short[@]}" >"$TMP/b.json" || fail "run 2"
E=.environment
jq -r "$E | [paths | map(tostring) | join(\".\")] | .[]" "$TMP/a.json" >"$TMP/paths"
for k in hostname kernel.release kernel.version kernel.machine kernel.cmdline cpu.model \
	cpu.online cpu.smt cpu.numa_nodes cpu.governor cpu.scaling_driver cpu.turbo \
	cpu.vulnerabilities clocksource virtualization.hypervisor \
	virtualization.steal_pct_in_window sysctl interface.name interface.driver interface.mtu \
	interface.qdisc interface.offloads.gro interface.offloads.gso interface.offloads.tso \
	interface.offloads.rx_checksum interface.offloads.tx_checksum \
	interface.offloads.scatter_gather interface.rx_queues interface.tx_queues interface.irqs; do
	grep -qxF "$k" "$TMP/paths" || fail "environment lacks $k"
done
# The values are the kernel's, read by its own tools.
[ "$(jget "$TMP/a.json" "$E.kernel.release")" = "$(uname -r)" ] || fail "kernel.release"
[ "$(jget "$TMP/a.json" "$E.cpu.online")" = "$(nproc --all)" ] || fail "cpu.online $(jget "$TMP/a.json" "$E.cpu.online") vs nproc $(nproc --all)"
[ "$(jget "$TMP/a.json" "$E.clocksource")" = \
	"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" ] || fail clocksource
[ "$(jget "$TMP/a.json" "$E.interface.name")" = lo ] || fail "a loopback run's interface is not lo"
[ "$(jget "$TMP/a.json" "$E.interface.mtu")" = "$(cat /sys/class/net/lo/mtu)" ] || fail mtu
if command -v tc >/dev/null; then
	q=$(tc qdisc show dev lo | awk '/root/ {print $2; exit}')
	[ -z "$q" ] || [ "$(jget "$TMP/a.json" "$E.interface.qdisc")" = "$q" ] ||
		fail "qdisc $(jget "$TMP/a.json" "$E.interface.qdisc") vs tc's $q"
fi
n=0
for k in $(jq -r "$E.sysctl | keys[]" "$TMP/a.json"); do
	v=$(sysctl -n "$k" 2>/dev/null) || continue # a key this namespace has not (the host's only)
	want=$(printf '%s' "$v" | tr -s ' \t' '  ')
	got=$(jq -r "$E.sysctl[\"$k\"]" "$TMP/a.json")
	[ "$got" = "$want" ] || fail "sysctl $k: recorded '$got', sysctl -n says '$want'"
	n=$((n + 1))
done
[ $n -ge 30 ] || fail "only $n sysctls recorded and checked"
# Stable: two runs record the same environment (the window's steal time aside).
strip='del(.environment.virtualization.steal_pct_in_window) | .environment'
[ "$(jq -S "$strip" "$TMP/a.json")" = "$(jq -S "$strip" "$TMP/b.json")" ] ||
	fail "the environment differs between two runs: $(diff <(jq -S "$strip" "$TMP/a.json") <(jq -S "$strip" "$TMP/b.json"))"

# compare: one sysctl edited in a copy is exactly the difference found.
jq '.environment.sysctl["net.ipv4.tcp_autocorking"] = "edited"' "$TMP/a.json" >"$TMP/c.json"
was=$(jget "$TMP/a.json" "$E.sysctl[\"net.ipv4.tcp_autocorking\"]")
"$SB" compare "$TMP/a.json" "$TMP/c.json" --json >"$TMP/cmp.json" || fail "compare files"
jassert "$TMP/cmp.json" ".environment.differences == [{\"path\": \"sysctl.net.ipv4.tcp_autocorking\", \"a\": \"$was\", \"b\": \"edited\", \"subject\": false}]" .environment
jassert "$TMP/cmp.json" '.environment.warning == false' .environment
"$SB" compare "$TMP/a.json" "$TMP/c.json" >"$TMP/cmp.txt" || fail "compare files (text)"
grep -q "sysctl.net.ipv4.tcp_autocorking  *$was -> edited" "$TMP/cmp.txt" ||
	fail "compare's text lacks the difference: $(cat "$TMP/cmp.txt")"
grep -q WARNING "$TMP/cmp.txt" && fail "one difference warned: $(cat "$TMP/cmp.txt")"
# Two kinds of difference: a warning that the ratios mix them.
jq '.environment.kernel.release = "9.9.9"' "$TMP/c.json" >"$TMP/d.json"
"$SB" compare "$TMP/a.json" "$TMP/d.json" >"$TMP/cmp2.txt" || fail "compare files (2)"
grep -qE "WARNING: A and B differ in more than one thing \((kernel, sysctl|sysctl, kernel)\)" "$TMP/cmp2.txt" ||
	fail "no warning for two kinds of difference: $(cat "$TMP/cmp2.txt")"
# The same file against itself: nothing differs.
"$SB" compare "$TMP/a.json" "$TMP/b.json" >"$TMP/cmp3.txt" || fail "compare files (3)"
grep -q "environment: the same for A and B" "$TMP/cmp3.txt" || fail "$(cat "$TMP/cmp3.txt")"

# --runs: no change during the runs is reported as none.
"$SB" udp-rr --duration 0.3 --warmup 0.1 --runs 2 --json >"$TMP/runs.json" || fail "--runs"
jassert "$TMP/runs.json" '.environment_changes == []' .environment_changes

# sockbench check: a busy process is found (and its exit is 1), with the fix; the summary.
"$SB" check --sample 300 --json >"$TMP/quiet.json"
rc=$?
[ $rc -le 1 ] || fail "check exit $rc"
jassert "$TMP/quiet.json" '(.findings | type) == "array" and .environment.kernel.release != null'
timeout 10 sh -c 'while :; do :; done' &
busy=$!
PIDS+=("$busy")
sleep 0.2
"$SB" check --sample 500 >"$TMP/check.txt"
rc=$?
kill "$busy" 2>/dev/null
[ $rc -eq 1 ] || fail "check with a busy loop exited $rc: $(cat "$TMP/check.txt")"
grep -q "other processes kept" "$TMP/check.txt" || fail "busy loop not found: $(cat "$TMP/check.txt")"
grep -q "fix:" "$TMP/check.txt" || fail "no fix given"
# By default a summary a person reads, not the JSON: what the kernel is, and each socket sysctl
# named exactly when it is not the kernel's default (the same run's --json says what it is).
grep -q '^ *[{}]' "$TMP/check.txt" && fail "check printed JSON without --json: $(cat "$TMP/check.txt")"
[ "$(wc -l <"$TMP/check.txt")" -le 16 ] || fail "check's summary is $(wc -l <"$TMP/check.txt") lines"
grep -qF "kernel:    Linux $(uname -r)" "$TMP/check.txt" || fail "no kernel line: $(cat "$TMP/check.txt")"
for kv in net.core.rmem_max=212992 net.core.busy_poll=0 net.ipv4.tcp_congestion_control=cubic; do
	k=${kv%=*} def=${kv#*=} v=$(jq -r ".environment.sysctl[\"$k\"]" "$TMP/quiet.json")
	if [ "$v" != "$def" ] && [ "$v" != null ]; then
		grep -qF "$k $v (default $def)" "$TMP/check.txt" || fail "check does not say $k is $v: $(cat "$TMP/check.txt")"
	else
		grep -qF "$k " "$TMP/check.txt" && fail "check names $k, at its default: $(cat "$TMP/check.txt")"
	fi
done
expect_usage "--sample 5 is out of range: use 100 to 60,000 milliseconds" check --sample 5
# --sample takes the time units of every other time option, and only decimal digits.
expect_usage "--sample 'X' is not a time" check --sample X
expect_usage "--sample '0x100' is not a time" check --sample 0x100
"$SB" check --sample 0.3s --json >"$TMP/unit.json"
jassert "$TMP/unit.json" '.sample_s == 0.3' '.sample_s'

# Softirq by where it ran: loopback delivers each datagram in softirq inside the sender's call,
# so inline softirq is there, and no more than all the CPUs' time in the window.
jassert "$TMP/a.json" '.softirq.inline_us_per_unit > 0 and .softirq.inline_s <= .duration_s * '"$(nproc)"' and .softirq.ksoftirqd_s >= 0' '.softirq'

# Context switches: a blocking ping-pong sleeps about once a transaction on each side; a
# spinning client does not sleep.
"$SB" tcp-rr --duration 0.5 --warmup 0.2 --json >"$TMP/rr.json" || fail tcp-rr
jassert "$TMP/rr.json" '.sides.client.voluntary_switches_per_unit > 0.3 and .sides.client.voluntary_switches_per_unit < 3' .sides.client
"$SB" udp-rr --clients 1 --window 1 --wait busy --duration 0.5 --warmup 0.2 --json >"$TMP/busy.json" ||
	fail "udp-rr --wait busy"
jassert "$TMP/busy.json" '.sides.client.voluntary_switches_per_unit < 0.05' .sides.client
echo ok
