# --sysctl (issue 16): set for exactly the run (read back inside it, from the result's
# environment) and put back after a normal end, Ctrl-C, kill -9 of the controller and kill -9
# of the agent (the journal, at the next start); refused with exit 2 and nothing changed for an
# unknown key, a bad value and a user who is not root; an agent without --allow-sysctl refuses;
# compare of a knob A/B names it as the subject.
. "$(dirname "$0")/lib.sh"
need jq
[ "$(id -u)" -eq 0 ] || skip "--sysctl writes /proc/sys: needs root"
KEY=net.ipv4.tcp_autocorking
FILE=/proc/sys/net/ipv4/tcp_autocorking
[ -w $FILE ] || skip "$FILE is not writable here"
ORIG=$(cat $FILE)
BUSY_READ=$(cat /proc/sys/net/core/busy_read)
FLIP=$((1 - ORIG))
export SOCKBENCH_JOURNAL=$TMP/run/sysctl.journal
trap 'echo "$ORIG" >$FILE; cleanup' EXIT
now() { cat $FILE; }
restored() { # within 3 s
	for _ in $(seq 60); do [ "$(now)" = "$ORIG" ] && return 0; sleep 0.05; done
	fail "$KEY is $(now) after $1, not $ORIG"
}
short=(--duration 0.5 --warmup 0.2)

# A normal run: set inside, put back after, no journal left.
"$SB" tcp-rr "${short[@]}" --sysctl $KEY=$FLIP --json >"$TMP/on.json" || fail "run with --sysctl"
jassert "$TMP/on.json" ".environment.sysctl[\"$KEY\"] == \"$FLIP\"" .environment.sysctl
jassert "$TMP/on.json" ".config.sysctl == [\"$KEY=$FLIP\"]" .config
[ "$(now)" = "$ORIG" ] || fail "not put back after a normal end"
[ -e "$SOCKBENCH_JOURNAL" ] && fail "journal left after a normal end"

# Ctrl-C: the run reports what it measured (partial) and puts the setting back.
"$SB" tcp-rr --duration 20 --warmup 0.2 --sysctl $KEY=$FLIP --json >"$TMP/int.json" 2>/dev/null &
pid=$!
PIDS+=("$pid")
sleep 1.5
[ "$(now)" = "$FLIP" ] || fail "not set during the run"
kill -INT $pid
wait $pid
jassert "$TMP/int.json" '.partial == true' .partial
restored "Ctrl-C"

# kill -9 of the controller: its agent dies with it and puts the setting back first.
"$SB" tcp-rr --duration 20 --warmup 0.2 --sysctl $KEY=$FLIP >/dev/null 2>&1 &
pid=$!
sleep 1.5
[ "$(now)" = "$FLIP" ] || fail "not set during the run (2)"
kill -9 $pid
wait $pid 2>/dev/null
restored "kill -9 of the controller"
[ -e "$SOCKBENCH_JOURNAL" ] && fail "journal left after the agent put it back"

# kill -9 of the agent: nothing can put it back then, but the journal does at the next start.
start_agent --allow-sysctl $KEY
"$SB" tcp-rr --server 127.0.0.1:$AGENT_PORT --duration 20 --warmup 0.2 --sysctl $KEY=$FLIP \
	>/dev/null 2>&1 &
pid=$!
PIDS+=("$pid")
sleep 1.5
[ "$(now)" = "$FLIP" ] || fail "the agent did not set it"
kill -9 "$AGENT_PID"
wait $pid 2>/dev/null
[ "$(now)" = "$FLIP" ] || fail "put back though nothing could (the test is wrong)"
[ -e "$SOCKBENCH_JOURNAL" ] || fail "no journal after kill -9 of the agent"
"$SB" list >/dev/null 2>"$TMP/recover.err" || fail "list"
[ "$(now)" = "$ORIG" ] || fail "the next start did not put it back"
grep -q "put back 1 kernel setting .*$KEY=$ORIG" "$TMP/recover.err" ||
	fail "the next start did not say so: $(cat "$TMP/recover.err")"
[ -e "$SOCKBENCH_JOURNAL" ] && fail "journal left after recovery"

# An interface's receive steering (RPS): every rx queue of lo, read back inside the run from
# the environment, put back after; compare names it as the subject.
RPS0=$(cat /sys/class/net/lo/queues/rx-0/rps_cpus)
"$SB" udp-rr "${short[@]}" --sysctl net.dev.lo.rps_cpus=1 --json >"$TMP/rps.json" || fail "--sysctl net.dev.lo.rps_cpus"
jassert "$TMP/rps.json" '(.environment.interface.rps_cpus | test("^[0,]*1$"))' .environment.interface
[ "$(cat /sys/class/net/lo/queues/rx-0/rps_cpus)" = "$RPS0" ] || fail "rps_cpus not put back"
"$SB" compare "$TMP/on.json" "$TMP/on.json" --json >/dev/null || fail "compare a file with itself"
expect_usage "no interface nosuch0 here" udp-rr "${short[@]}" --sysctl net.dev.nosuch0.rps_cpus=1
expect_usage "net.dev.IF.rps_cpus and net.dev.IF.rps_flow_cnt" udp-rr "${short[@]}" --sysctl net.dev.lo.mtu=1

# Refusals: exit 2, nothing changed.
expect_usage "this kernel has no such setting" tcp-rr "${short[@]}" --sysctl net.ipv4.no_such_knob=1
expect_usage "give KEY=VALUE" tcp-rr "${short[@]}" --sysctl $KEY
expect_usage "nothing was changed" tcp-rr "${short[@]}" --sysctl net.core.busy_read=50 --sysctl $KEY=banana
[ "$(now)" = "$ORIG" ] || fail "changed by a refused run"
[ "$(cat /proc/sys/net/core/busy_read)" = "$BUSY_READ" ] || fail "busy_read left changed by a refused run"
if id nobody >/dev/null 2>&1 && command -v su >/dev/null; then
	chmod 755 "$TMP"
	su nobody -s /bin/sh -c "SOCKBENCH_JOURNAL=$SOCKBENCH_JOURNAL $SB tcp-rr --duration 0.3 --warmup 0.1 --sysctl $KEY=$FLIP" \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "non-root: exit $rc, not 2 ($(cat "$TMP/err"))"
	grep -q "needs root" "$TMP/err" || fail "non-root: $(cat "$TMP/err")"
	[ "$(now)" = "$ORIG" ] || fail "changed by a non-root run"
	su nobody -s /bin/sh -c "$SB explore udp-rr --kernel --budget 20" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "run it as root" "$TMP/err" || fail "explore --kernel as nobody: exit $rc, $(cat "$TMP/err")"
fi
# An agent that allows nothing refuses, and says how to allow it.
rm -f "$TMP/ready"
start_agent
"$SB" tcp-rr --server 127.0.0.1:$AGENT_PORT "${short[@]}" --sysctl $KEY=$FLIP >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] || fail "agent without --allow-sysctl: exit $rc ($(cat "$TMP/err"))"
grep -q -- "--allow-sysctl $KEY" "$TMP/err" || fail "refusal does not name --allow-sysctl: $(cat "$TMP/err")"
[ "$(now)" = "$ORIG" ] || fail "changed by a refused agent"

# explore --kernel: the kernel's knobs ranked beside the program's, marked [sys], every one
# put back after its runs.
knobs="net/core/busy_read net/core/busy_poll net/core/rmem_default net/core/rmem_max net/core/netdev_budget net/ipv4/tcp_timestamps net/ipv4/tcp_slow_start_after_idle net/core/rps_sock_flow_entries"
settings() {
	for k in $knobs; do cat /proc/sys/$k; done
	cat /sys/class/net/lo/queues/rx-*/rps_cpus /sys/class/net/lo/queues/rx-*/rps_flow_cnt
}
before=$(settings)
"$SB" explore tcp-rr --kernel --budget 40 --runs 2 --seed 9 --json >"$TMP/ex.json" 2>"$TMP/ex.err" ||
	fail "explore --kernel: $(tail -3 "$TMP/ex.err")"
jassert "$TMP/ex.json" '[.strategies[] | select(.name | endswith("[sys]"))] | length == 8' '[.strategies[].name]'
jassert "$TMP/ex.json" '[.strategies[] | select(.name == "TCP autocorking off [sys]" or .name == "RPS + RFS (lo) [sys]") | .runs] == [2, 2]' '.strategies'
jassert "$TMP/ex.json" '[.not_applicable[] | select(.name | startswith("interrupt coalescing")) | .reason | test("lo.s driver")] == [true]' .not_applicable
[ "$(settings)" = "$before" ] || fail "explore --kernel left a setting changed"
[ "$(now)" = "$ORIG" ] || fail "explore --kernel left $KEY changed"
[ -e "$SOCKBENCH_JOURNAL" ] && fail "journal left after explore --kernel"

# A knob A/B: the difference is the subject, not a warning.
"$SB" compare "tcp-rr ${short[*]}" "tcp-rr ${short[*]} --sysctl $KEY=$FLIP" --runs 2 --seed 3 \
	--json >"$TMP/cmp.json" 2>/dev/null || fail "compare"
jassert "$TMP/cmp.json" ".environment.differences == [{\"path\": \"sysctl.$KEY\", \"a\": \"$ORIG\", \"b\": \"$FLIP\", \"subject\": true}]" .environment
jassert "$TMP/cmp.json" '.environment.warning == false' .environment
[ "$(now)" = "$ORIG" ] || fail "not put back after compare"
echo ok
