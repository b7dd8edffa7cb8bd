# The coordinator sleeps through a count-based window (tcp-crr -n, a stream's -n) and still
# ends it as soon as the clients are done. It once looked every 2 ms, and those wakes, beside
# a load that wants both CPUs of a small machine, cost tcp-crr 5-8% of its rate; now the
# clients wake it through an eventfd when their share is done (client_share_done), and it
# looks every STEP_MS (50 ms) otherwise.
#  1. Its poll() calls, counted by strace on the coordinator alone (its clients and server are
#     other processes, not traced): at most one a STEP_MS of the run's wall time, twice over
#     for the wakes and setup's own calls, and 100 more. Looking every 2 ms makes at least
#     one per 2 ms of the window (500 a second), over 3x this bound for a window of 1 s.
#  2. The window ends when the clients say so: the coordinator's window (real_s) is longer
#     than the longest client's own (window_s.max, from its first to its last connection) by
#     their start (a client sees the window open within 1 ms) and the wake. At most 10 ms, in
#     4 of 5 runs (one may be held up by a busy machine); a coordinator left to notice at its
#     next look, up to 50 ms later, would be within it in 4 of 5 runs 0.7% of the time.
#     tcp-crr's clients end their shares through thread_done, udp-stream's on its own.
#  3. The server's threads that serve sockets (udp-rr's, tcp-rr's per connection) each have a
#     descriptor table of their own holding their socket and stdio alone (nofile_own_table): a
#     table shared by the agent's threads costs a file reference on every call (fput: 70 ns a
#     transaction of scenario B here). Read from /proc/PID/task/TID/fd during the window: a
#     build that shares the table shows every thread the same set, and fails.
# Part 1 needs strace, which cannot trace a sanitized build; parts 2 and 3 run there too.
# solo: a window's end is timed in ms; another test's load on both CPUs adds waits of its own
. "$(dirname "$0")/lib.sh"
need jq

# 1. A window of about 1 s: the connections of a 0.3 s window, measured first, times 3.
polls_check() {
"$SB" tcp-crr --json --duration 0.3 --warmup 0.1 >"$TMP/d.json" || fail "a time-based tcp-crr failed"
n=$(jq -r '.connections * 3 | floor' "$TMP/d.json")
[ "$n" -ge 300 ] || fail "a 0.3 s tcp-crr window made only $n/3 connections"
t0=$(date +%s%N)
strace -qq -c -e trace=poll,ppoll -o "$TMP/st.txt" "$SB" tcp-crr --json -n "$n" \
	--warmup-conns "$((n / 10))" >"$TMP/r.json" || fail "tcp-crr -n $n under strace failed"
wall_ms=$((($(date +%s%N) - t0) / 1000000))
jassert "$TMP/r.json" ".partial == false and .connections == $n" '{connections, partial}'
polls=$(awk '$NF == "poll" || $NF == "ppoll" {s += $4} END {print s + 0}' "$TMP/st.txt")
window_ms=$(jq -r '.duration_s * 1000 | floor' "$TMP/r.json")
bound=$((wall_ms * 2 / 50 + 100))
echo "coordinator: $polls poll() calls in $wall_ms ms (window $window_ms ms); bound $bound"
[ "$polls" -gt 0 ] || fail "strace saw no poll() of the coordinator: $(cat "$TMP/st.txt")"
[ "$polls" -le "$bound" ] || fail "the coordinator made $polls poll() calls in $wall_ms ms: it \
wakes more often than once a STEP_MS (50 ms), beside the load (bound $bound)"
}
if command -v strace >/dev/null && strace -qq -o /dev/null "$SB" version >/dev/null 2>&1; then
	polls_check
else
	echo "part 1 not run: strace is missing or cannot trace this binary"
fi

# 2. Prompt ends: a count-based tcp-crr and a count-based tcp-stream (-n bytes).
prompt() { # what, flags...
	local what=$1 ok=0 gaps=
	shift
	for i in 1 2 3 4 5; do
		"$SB" "$@" --json >"$TMP/p.json" || fail "$what: $* failed"
		gap=$(jq -r '(.sides.client.real_s - .sides.client.window_s.max) * 1000' "$TMP/p.json")
		gaps="$gaps $gap"
		awk -v g="$gap" 'BEGIN {exit !(g >= -1 && g <= 10)}' && ok=$((ok + 1))
	done
	echo "$what: the coordinator's window past the clients' own, ms:$gaps"
	[ $ok -ge 4 ] || fail "$what: the window ended late (over 10 ms) in $((5 - ok)) of 5 runs:$gaps"
}
prompt "tcp-crr -n" tcp-crr -n 3000 --warmup-conns 300
prompt "tcp-stream -n" tcp-stream -n 200M --warmup 0.1
prompt "udp-stream -n" udp-stream -n 50M --warmup 0.1

# 3. Tables of their own. tables PID: a line per thread of each process under PID, "PID TID
# fd fd ...", the descriptors in the order ls gives.
tables() {
	local p t
	for p in $(pgrep -P "$1"); do
		for t in /proc/"$p"/task/*; do
			echo "$p ${t##*/} $(ls "$t/fd" 2>/dev/null | sort -n | tr '\n' ' ')"
		done
	done
}
own_table() { # workload
	local wl=$1 found= i=0
	"$SB" "$wl" --duration 2 --warmup 0.5 >/dev/null 2>&1 &
	local sb=$!
	# As long as the run lasts (a slow machine starts it later), at most 30 s.
	while kill -0 "$sb" 2>/dev/null && [ $((i += 1)) -le 300 ]; do
		sleep 0.1
		tables "$sb" >"$TMP/tables.txt"
		[ -s "$TMP/tables.txt" ] && cp "$TMP/tables.txt" "$TMP/seen.txt"
		# A thread holding stdio and one socket, in a process whose other threads hold more.
		while read -r p t fds; do
			set -- $fds
			[ $# = 4 ] && [ "$1 $2 $3" = "0 1 2" ] || continue
			case $(readlink "/proc/$p/task/$t/fd/$4") in socket:*) ;; *) continue ;; esac
			awk -v p="$p" -v t="$t" '$1 == p && $2 != t && NF > 6 {m = 1}
				END {exit !m}' "$TMP/tables.txt" && found="$p/$t: $fds"
		done <"$TMP/tables.txt"
		[ -n "$found" ] && break
	done
	wait "$sb" || fail "$wl failed"
	echo "$wl: a server thread of its own table: ${found:-none}"
	[ -n "$found" ] || fail "$wl: no server thread has a table of its own (its socket and stdio \
alone) beside its process's; the threads seen:
$(cat "$TMP/seen.txt" 2>/dev/null)"
}
own_table udp-rr
own_table tcp-rr
echo ok
