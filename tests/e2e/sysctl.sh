# --sysctl (issue 16): set for exactly the run (read back inside it, from the result's
# environment) and put back after a normal end, Ctrl-C, SIGTERM to the run's process group or to
# a standalone agent, kill -9 of the controller and kill -9 of the agent (the journal, at the
# next start); refused with exit 2 and nothing changed for an
# unknown key, a bad value and a user who is not root; an agent without --allow-sysctl refuses;
# compare of a knob A/B names it as the subject. The journal (issue 24): root carries out only a
# journal root alone could have written ($SOCKBENCH_JOURNAL under a root-only $TMP) naming only
# what --sysctl sets; a new run puts a dead run's journal back before writing over it; a value
# the kernel keeps otherwise is refused; a failed put-back reaches the controller.
# solo: it sets the host's sysctls, which another test would read
. "$(dirname "$0")/lib.sh"
need jq
[ "$(id -u)" -eq 0 ] || skip "--sysctl writes /proc/sys: needs root"
KEY=net.ipv4.tcp_autocorking
FILE=/proc/sys/net/ipv4/tcp_autocorking
[ -w $FILE ] || skip "$FILE is not writable here"
ORIG=$(cat $FILE)
BUSY_READ=$(cat /proc/sys/net/core/busy_read)
FLIP=$((1 - ORIG))
FIN=/proc/sys/net/ipv4/tcp_fin_timeout
FIN0=$(cat $FIN)
FIN1=$((FIN0 == 59 ? 58 : 59))
VETH=sbj$$
export SOCKBENCH_JOURNAL=$TMP/run/sysctl.journal
trap 'echo "$ORIG" >$FILE; echo "$FIN0" >$FIN; ip link del $VETH 2>/dev/null; cleanup' EXIT
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
[ "$(stat -c %U:%a "$TMP/run")" = root:700 ] || fail "journal folder made $(stat -c %U:%a "$TMP/run")"

# A journal someone other than root could have written, or naming what --sysctl does not set, is
# refused at the start: nothing written, nothing removed. Each says: put FIN back to FIN1.
refused() { # what, journal
	SOCKBENCH_JOURNAL=$2 "$SB" list >/dev/null 2>"$TMP/j.err" || fail "$1: list failed"
	[ "$(cat $FIN)" = "$FIN0" ] || { echo "$FIN0" >$FIN; fail "$1: carried out"; }
	[ -e "$2" ] || fail "$1: the journal was removed"
	grep -q "refused" "$TMP/j.err" || fail "$1: not refused: $(cat "$TMP/j.err")"
}
J=$TMP/jt/sysctl.journal
mkdir -m 700 "$TMP/jt" "$TMP/jt2" "$TMP/foreign"
printf '%s\t%s\n' $FIN $FIN1 >"$J"
chmod 600 "$J"
chown 65534 "$J"
refused "a journal owned by nobody" "$J"
chown 0 "$J"
chmod 620 "$J"
refused "a group-writable journal" "$J"
chmod 600 "$J"
ln -s "$J" "$TMP/jt2/sysctl.journal"
refused "a symlinked journal" "$TMP/jt2/sysctl.journal"
ln "$J" "$TMP/jt/second"
refused "a journal with a second name" "$J"
rm "$TMP/jt/second"
cp "$J" "$TMP/foreign/sysctl.journal"
chown 65534 "$TMP/foreign"
refused "a journal in nobody's folder" "$TMP/foreign/sysctl.journal"
ln -s "$TMP/foreign" "$TMP/link"
refused "a journal through a symlinked folder" "$TMP/link/sysctl.journal"
chmod 770 "$TMP/jt"
refused "a journal in a group-writable folder" "$J"
chmod 700 "$TMP/jt"
printf '%s\t%s\n/proc/sys/kernel/core_pattern\t%s\n' $FIN $FIN1 "$(cat /proc/sys/kernel/core_pattern)" >"$J"
refused "a journal naming kernel.core_pattern" "$J"
printf '%s\t%s\n/sys/class/net/lo/flags\t%s\n' $FIN $FIN1 "$(cat /sys/class/net/lo/flags)" >"$J"
refused "a journal naming lo/flags" "$J"
SOCKBENCH_JOURNAL=relative "$SB" list >/dev/null 2>"$TMP/j.err"
grep -q "refused: not a file's absolute path" "$TMP/j.err" || fail "relative: $(cat "$TMP/j.err")"
expect_usage "only network settings (net.*" tcp-rr "${short[@]}" --sysctl kernel.core_pattern=core
# The kernel reads 060 as octal: refused, not run with 48 under the name 060.
expect_usage "keeps it as 48" tcp-rr "${short[@]}" --sysctl net.ipv4.tcp_fin_timeout=060
[ "$(cat $FIN)" = "$FIN0" ] || fail "060: $FIN left at $(cat $FIN)"

# A dead run's journal is put back before a new run journals over it, even where the start did
# not look (a local agent's, SOCKBENCH_RECOVERED): the dead run's originals are never lost.
printf '%s\t%s\n' $FIN $FIN0 >"$SOCKBENCH_JOURNAL"
echo $FIN1 >$FIN
SOCKBENCH_RECOVERED=1 "$SB" tcp-rr "${short[@]}" --sysctl $KEY=$FLIP >/dev/null 2>"$TMP/err" ||
	fail "a run over a dead run's journal: $(cat "$TMP/err")"
[ "$(cat $FIN)" = "$FIN0" ] || fail "a dead run's journal was written over: $FIN left at $(cat $FIN)"
[ "$(now)" = "$ORIG" ] || fail "not put back after a run over a dead run's journal"
[ -e "$SOCKBENCH_JOURNAL" ] && fail "journal left after a run over a dead run's journal"

# A setting that cannot be put back (its interface deleted during the run): the controller says
# so and exits non-zero; the journal's entry for it is dropped at the next start.
if ip link add $VETH type veth peer name ${VETH}p 2>/dev/null; then
	SOCKBENCH_PROGRESS=1 "$SB" tcp-rr --duration 3 --warmup 0.2 --sysctl net.dev.$VETH.rps_cpus=1 \
		>/dev/null 2>"$TMP/err" &
	pid=$!
	PIDS+=("$pid")
	wait_window $pid "$TMP/err"
	ip link del $VETH
	wait $pid
	rc=$?
	[ $rc -ne 0 ] || fail "a setting not put back: exit 0 ($(cat "$TMP/err"))"
	grep -q "keeps kernel settings changed: could not put net.dev.$VETH.rps_cpus back" "$TMP/err" ||
		fail "a setting not put back: $(cat "$TMP/err")"
	"$SB" list >/dev/null 2>&1
	[ -e "$SOCKBENCH_JOURNAL" ] && fail "journal of a deleted interface left after the start"
fi

# Ctrl-C: the run reports what it measured (partial) and puts the setting back.
SOCKBENCH_PROGRESS=1 "$SB" tcp-rr --duration 20 --warmup 0.2 --sysctl $KEY=$FLIP --json >"$TMP/int.json" 2>"$TMP/int.err" &
pid=$!
PIDS+=("$pid")
wait_window $pid "$TMP/int.err" 0
[ "$(now)" = "$FLIP" ] || fail "not set during the run"
kill -INT $pid
wait $pid
jassert "$TMP/int.json" '.partial == true' .partial
restored "Ctrl-C"

# SIGTERM to the run's whole process group (timeout(1), a CI's cancel): the local agent leaves it
# to the coordinator, which reports the partial window with the server's side; then put back.
SOCKBENCH_PROGRESS=1 setsid "$SB" tcp-rr --duration 20 --warmup 0.2 --sysctl $KEY=$FLIP --json >"$TMP/term.json" 2>"$TMP/term.err" &
pid=$!
PIDS+=("$pid")
wait_window $pid "$TMP/term.err" 0
[ "$(now)" = "$FLIP" ] || fail "not set during the run (SIGTERM)"
kill -TERM -- -$pid
wait $pid
rc=$?
[ $rc -eq 0 ] || fail "exit $rc after SIGTERM to the group: $(cat "$TMP/term.err")"
jassert "$TMP/term.json" '.partial_reason == "interrupted by SIGTERM" and .sides.server != null' '{partial_reason, sides: (.sides | keys)}'
restored "SIGTERM to the run's process group"

# kill -9 of the controller: its agent dies with it and puts the setting back first. The
# control link closes a moment before the agent's death signal comes, so the agent's session
# is ending when it does: once in 6 full suites the signal ended the agent before the setting
# was back. Four times, each a fresh race.
for k in 1 2 3 4; do
	SOCKBENCH_PROGRESS=1 "$SB" tcp-rr --duration 20 --warmup 0.2 --sysctl $KEY=$FLIP >/dev/null 2>"$TMP/k9.err" &
	pid=$!
	wait_window $pid "$TMP/k9.err" 0
	[ "$(now)" = "$FLIP" ] || fail "not set during the run (kill -9 $k)"
	kill -9 $pid
	wait $pid 2>/dev/null
	restored "kill -9 of the controller ($k)"
	[ -e "$SOCKBENCH_JOURNAL" ] && fail "journal left after the agent put it back ($k)"
done

# kill -9 of the agent: nothing can put it back then, but the journal does at the next start.
start_agent --allow-sysctl $KEY
SOCKBENCH_PROGRESS=1 "$SB" tcp-rr --server 127.0.0.1:$AGENT_PORT --duration 20 --warmup 0.2 \
	--sysctl $KEY=$FLIP >/dev/null 2>"$TMP/ka.err" &
pid=$!
PIDS+=("$pid")
wait_window $pid "$TMP/ka.err" 0
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

# SIGTERM to a standalone agent mid-run: it stops (serve is not a run) and puts the setting back.
rm -f "$TMP/ready"
start_agent --allow-sysctl $KEY
SOCKBENCH_PROGRESS=1 "$SB" tcp-rr --server 127.0.0.1:$AGENT_PORT --duration 20 --warmup 0.2 \
	--sysctl $KEY=$FLIP >/dev/null 2>"$TMP/ta.err" &
pid=$!
PIDS+=("$pid")
wait_window $pid "$TMP/ta.err" 0
[ "$(now)" = "$FLIP" ] || fail "the agent did not set it (SIGTERM)"
kill -TERM "$AGENT_PID"
for _ in $(seq 60); do kill -0 "$AGENT_PID" 2>/dev/null || break; sleep 0.05; done
kill -0 "$AGENT_PID" 2>/dev/null && fail "a standalone agent still running 3 s after SIGTERM"
restored "SIGTERM to a standalone agent"
wait $pid 2>/dev/null
[ -e "$SOCKBENCH_JOURNAL" ] && fail "journal left after SIGTERM to a standalone agent"

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
if id nobody >/dev/null 2>&1 && command -v su >/dev/null && NB=$(nobody_sb); then
	su nobody -s /bin/sh -c "SOCKBENCH_JOURNAL=$SOCKBENCH_JOURNAL $NB tcp-rr --duration 0.3 --warmup 0.1 --sysctl $KEY=$FLIP" \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "non-root: exit $rc, not 2 ($(cat "$TMP/err"))"
	grep -q "needs root" "$TMP/err" || fail "non-root: $(cat "$TMP/err")"
	[ "$(now)" = "$ORIG" ] || fail "changed by a non-root run"
	su nobody -s /bin/sh -c "$NB explore udp-rr --kernel --budget 20" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "run it as root" "$TMP/err" || fail "explore --kernel as nobody: exit $rc, $(cat "$TMP/err")"
else
	echo "user nobody cannot run a copy of $SB here: the non-root refusals not checked"
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
"$SB" explore tcp-rr --kernel --budget 25 --runs 2 --seed 9 --json >"$TMP/ex.json" 2>"$TMP/ex.err" ||
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
