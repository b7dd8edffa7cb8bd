# --cpus client=LIST,server=LIST: every client process or thread and every server thread runs
# where its side's list puts it, round-robin; read mid-run from /proc/PID/task/*/status
# (Cpus_allowed_list), not from anything sockbench says. Lists are checked against the online
# CPUs (exit 2, naming them).
. "$(dirname "$0")/lib.sh"
need jq
online=$(cat /sys/devices/system/cpu/online)
first=$(echo "$online" | cut -d, -f1 | cut -d- -f1)
last=$(echo "$online" | tr ',' '\n' | tail -1 | sed 's/.*-//')
[ "$first" != "$last" ] || skip "one online CPU: nothing to tell apart"

expect_usage "the online CPUs are $online" tcp-rr --cpus "client=$first,server=$((last + 1))"
expect_usage "give one" tcp-stream --cpus "client=$first" --pin
# Online but outside this process's affinity (a cpuset, taskset): refused, naming what it may use.
taskset -c "$first" "$SB" udp-rr --cpus "client=$last" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc = 2 ] && grep -qF "CPU $last is online but outside this process's CPU affinity (a cpuset or taskset): it may run on $first" "$TMP/err" ||
	fail "--cpus client=$last under taskset -c $first: exit $rc, $(cat "$TMP/err")"
expect_usage "not client=LIST,server=LIST" udp-rr --cpus "$first"
expect_usage "not a CPU list" udp-stream --cpus "client=3-1"

# The processes a run started: "serve" (the local agent) and the clients; their threads' CPUs.
# tasks PID: "TID LIST" per thread of PID but its main thread (the client's main thread of a
# threaded workload only follows the phase; the agent's control threads are not the test's).
tasks() {
	for s in /proc/"$1"/task/*/status; do
		tid=$(basename "$(dirname "$s")")
		[ "$tid" = "$1" ] && continue
		echo "$tid $(sed -n 's/^Cpus_allowed_list:\t*//p' "$s")"
	done
}
sample() { # sockbench's pid: writes $TMP/server, $TMP/client (a line per thread: its list)
	: >"$TMP/server"
	: >"$TMP/client"
	: >"$TMP/client_main"
	for c in $(pgrep -P "$1"); do
		if tr '\0' ' ' <"/proc/$c/cmdline" | grep -q ' serve '; then
			tasks "$c" | cut -d' ' -f2 >>"$TMP/server"
		else
			tasks "$c" | cut -d' ' -f2 >>"$TMP/client"
			sed -n 's/^Cpus_allowed_list:\t*//p' "/proc/$c/status" >>"$TMP/client_main"
		fi
	done
}
# sample PID until its clients are all there (their threads' lines, or the main threads'),
# every 0.3 s while the run lasts: a loaded machine is slower to set them up, and a sample
# taken at one fixed moment once caught a client as it exited (make test beside two busy loops).
sample_whole() { # pid, file, lines
	while kill -0 "$1" 2>/dev/null; do
		sample "$1"
		[ "$(wc -l <"$TMP/$2")" -eq "$3" ] && [ -s "$TMP/server" ] && return
		sleep 0.3
	done
}

# tcp-rr: 2 clients x 2 flows, a thread each; the agent a thread per connection.
"$SB" tcp-rr --duration 2.5 --warmup 0.2 --clients 2 --flows 2 --cpus "client=$first,server=$last" \
	--json >"$TMP/r.json" &
pid=$!
PIDS+=($pid)
sleep 0.6
sample_whole $pid client 4
wait $pid || fail "tcp-rr --cpus"
[ "$(grep -cx "$first" "$TMP/client")" -eq 4 ] && [ "$(wc -l <"$TMP/client")" -eq 4 ] ||
	fail "tcp-rr: the 4 client threads are not all on CPU $first: $(tr '\n' ' ' <"$TMP/client")"
[ "$(grep -cx "$last" "$TMP/server")" -ge 4 ] ||
	fail "tcp-rr: fewer than 4 server threads on CPU $last: $(tr '\n' ' ' <"$TMP/server")"
jassert "$TMP/r.json" '.config.cpus == "client='"$first"',server='"$last"'" and .errors == 0' .config

# udp-rr: single-threaded client processes, round-robin over a list of two: one on each.
"$SB" udp-rr --duration 2.5 --warmup 0.2 --clients 2 --cpus "client=$first,$last,server=$first" \
	--json >"$TMP/u.json" &
pid=$!
PIDS+=($pid)
sleep 0.6
sample_whole $pid client_main 2
wait $pid || fail "udp-rr --cpus"
[ "$(sort "$TMP/client_main" | tr '\n' ' ')" = "$first $last " ] ||
	fail "udp-rr: the clients are not one on $first, one on $last: $(tr '\n' ' ' <"$TMP/client_main")"
grep -qx "$first" "$TMP/server" || fail "udp-rr: no server thread on $first: $(tr '\n' ' ' <"$TMP/server")"

# Streams with both ends on one CPU: a receiver that found nothing would take the CPU its
# sender needs, so auto has it sleep at once, and says why (with them apart, whether it tries
# first is the CPUs' count's say: tests/unit/test_tcp_recv.c).
for w in tcp-stream udp-stream; do
	"$SB" $w --duration 0.5 --warmup 0.1 --cpus "client=$first,server=$first" --json >"$TMP/s.json" ||
		fail "$w --cpus client=$first,server=$first"
	jassert "$TMP/s.json" '.config | .wait_receiver == "block" and
		(.wait_receiver_reason | test("^--cpus or --pin puts two"))' .config
done
echo ok
