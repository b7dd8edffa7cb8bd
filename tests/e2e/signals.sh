# SIGTERM and SIGHUP stop a run as Ctrl-C does (issue 43): sent to the whole process group (what
# timeout(1), a CI's cancel, `kill -- -PGID` and a closed terminal do), the clients and the local
# agent leave it to the coordinator, which ends the window and reports what was measured:
# partial, the signal named, the rate that of the bytes or transactions over the window, both
# sides present (no "-100%: other traffic?" for a side killed before it reported), the exit code
# of Ctrl-C, the whole group gone within a bounded time. A signal during the set-up ends the run
# as soon.
# solo: its runs must open their window in time: beside another test in CI a SIGTERM 0.05 s after the start landed in set-up
. "$(dirname "$0")/lib.sh"
need jq
need setsid
need timeout
BOUND_S=5 # after the signal: the window's end, each side's result (REPORT_MS is 10 s), the exit

# Start a run in a session and process group of its own (its pid is its group's id): PID, its
# standard output in $TMP/$1.out, its standard error in $TMP/$1.err.
start_group() { # name, command...
	local name=$1
	shift
	SOCKBENCH_PROGRESS=1 setsid "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	PID=$!
	PIDS+=("$PID")
	for _ in $(seq 100); do
		[ "$(ps -o pgid= -p "$PID" | tr -d ' ')" = "$PID" ] && return 0
		sleep 0.02
	done
	fail "$name: not in a process group of its own"
}

# Wait for the group $PID to end, within $1 s of now: RC, and MS how long it took.
ended_within() { # seconds, name
	local t0
	t0=$(date +%s%N)
	for _ in $(seq $(($1 * 20))); do kill -0 "$PID" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$PID" 2>/dev/null && fail "$2: still running $1 s later: $(cat "$TMP/$2.err")"
	wait "$PID"
	RC=$?
	MS=$((($(date +%s%N) - t0) / 1000000))
	sleep 0.2
	# A zombie (Z) or a process past its exit (X) runs nothing: its new parent, this
	# container's PID 1, reaps it when it gets to it (CI saw one with no command line left).
	left=$(for p in $(pgrep -g "$PID"); do
		case $(ps -o stat= -p "$p" 2>/dev/null) in Z* | X* | '') ;; *) echo "$p" ;; esac
	done)
	[ -z "$left" ] || fail "$2: left running: $(for p in $left; do tr '\0' ' ' </proc/"$p"/cmdline; echo; done)"
}

# The group $PID gets signal $1 0.3 s into its window; it must end within BOUND_S.
signal_group() { # signal, name
	wait_window "$PID" "$TMP/$2.err" 0.3
	kill -"$1" -- -"$PID"
	ended_within $BOUND_S "$2"
}

# What every stop must give: the exit code of Ctrl-C, partial for the signal named, both sides,
# the kernel's counters held against both sides' counts.
stopped_as() { # name, signal
	local j=$TMP/$1.out
	[ "$RC" -eq "$RC_INT" ] || fail "$1: exit $RC after $2, not $RC_INT as after Ctrl-C: $(cat "$TMP/$1.err")"
	jassert "$j" ".partial == true and .partial_reason == \"interrupted by $2\"" '{partial, partial_reason}'
	jassert "$j" '.duration_s > 0 and .sides.client != null and .sides.server != null' '{duration_s, sides: (.sides | keys)}'
	# (a few retransmits may fall either side of an edge: a count under 100 is not held)
	jassert "$j" '[.kernel_check.counters[] | .diff_pct != null and (.kernel < 100 or .diff_pct > -50)] | length > 0 and all' .kernel_check
	grep -q "the run is partial: interrupted by $2" "$TMP/$1.err" || fail "$1: stderr does not say: $(cat "$TMP/$1.err")"
}
# A stream's rate is its megabytes over the window, its Gbit/s the bytes the server received.
stream_rate='.rate > 0 and ((.rate - .megabytes / .duration_s) | fabs) <= 0.01 * .rate and
	((.gbit_per_s * 1e9 / 8 * .duration_s - .sides.server.bytes_received) | fabs) <= 0.01 * .sides.server.bytes_received'
rr_rate='.rate > 0 and ((.rate - .transactions / .duration_s) | fabs) <= 0.01 * .rate'
long=(--duration 10 --warmup 0.2 --json)

# Ctrl-C, as a terminal sends it (to the group): the reference the other stops are held to.
start_group int "$SB" tcp-stream "${long[@]}"
signal_group INT int
RC_INT=$RC
[ "$RC_INT" -eq 0 ] || fail "exit $RC_INT after Ctrl-C: $(cat "$TMP/int.err")"
stopped_as int SIGINT
jassert "$TMP/int.out" "$stream_rate" '{rate, megabytes, duration_s, gbit_per_s, bytes: .sides.server.bytes_received}'

# kill -TERM -- -PGID, and SIGHUP (the terminal went) the same way.
start_group term "$SB" tcp-stream "${long[@]}"
signal_group TERM term
stopped_as term SIGTERM
jassert "$TMP/term.out" "$stream_rate" '{rate, megabytes, duration_s, gbit_per_s, bytes: .sides.server.bytes_received}'
echo "SIGTERM to the group: ended in $MS ms"
start_group hup "$SB" udp-rr "${long[@]}"
signal_group HUP hup
stopped_as hup SIGHUP
jassert "$TMP/hup.out" "$rr_rate" '{rate, transactions, duration_s}'

# timeout(1) signals its child, then the child's whole group: the report, not a kill. Its 3 s
# hold the set-up (0.2 s here, under a second beside a busy loop) and a window; --preserve-status
# gives sockbench's own exit code.
start_group timeout timeout --preserve-status -s TERM 3 "$SB" udp-rr "${long[@]}"
ended_within $((3 + BOUND_S)) timeout
stopped_as timeout SIGTERM
jassert "$TMP/timeout.out" "$rr_rate" '{rate, transactions, duration_s}'
# The text report the user saw: the partial window's throughput, the signal named, no -100%.
start_group text timeout --preserve-status -s TERM 3 "$SB" tcp-stream --duration 10 --warmup 0.2
ended_within $((3 + BOUND_S)) text
[ "$RC" -eq "$RC_INT" ] || fail "text: exit $RC after timeout's SIGTERM: $(cat "$TMP/text.err")"
grep -q "^PARTIAL RESULT: interrupted by SIGTERM" "$TMP/text.out" || fail "text: $(cat "$TMP/text.out")"
awk '/throughput \(Gbit\/s\)/ { found = 1; if ($3 + 0 <= 0) exit 1 } END { exit !found }' "$TMP/text.out" ||
	fail "text: no throughput above 0: $(cat "$TMP/text.out")"
grep -q -- "-100" "$TMP/text.out" && fail "text: a -100% warning: $(cat "$TMP/text.out")"

# A signal during the set-up or the warm-up ends the run as soon: partial, the same exit code.
for d in 0.05 0.5; do
	start_group early "$SB" tcp-stream --duration 10 --warmup 2 --json
	sleep $d
	kill -TERM -- -"$PID"
	ended_within $BOUND_S early
	[ "$RC" -eq "$RC_INT" ] || fail "SIGTERM $d s after the start: exit $RC: $(cat "$TMP/early.err")"
	jassert "$TMP/early.out" '.partial == true and .partial_reason == "interrupted by SIGTERM"' '{partial, partial_reason}'
done
echo "ok"
