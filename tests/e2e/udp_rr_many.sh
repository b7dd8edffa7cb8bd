# udp-rr with many peer sockets in a client: 20,000 of them, open loop (a closed loop would need
# a window of 20,000 requests in one burst, beyond what one server socket's buffer holds): every
# datagram equal to the kernel's Udp counters; the client waits in epoll and receives only from
# the sockets it found ready, so its system calls per transaction are those of 100 peers (a
# client that visited every peer per receive would make thousands); a too-low open-file limit
# is a usage error; so are more peers than the local ports, and a client that finds none left
# fails the run. Then 100,000 peers over as many client processes and source addresses as
# they need.
. "$(dirname "$0")/lib.sh"
need jq
run() { "$SB" udp-rr --json "$@" >"$TMP/r.json" 2>"$TMP/err" || fail "udp-rr $* failed: $(cat "$TMP/err")"; }

hard=$(ulimit -Hn)
P=20000
if [ "$hard" != unlimited ] && [ "$hard" -lt $((P + 64)) ] && ! ulimit -Hn $((P + 64)) 2>/dev/null; then
	P=$(((hard - 64) / 100 * 100))
	echo "open-file hard limit $hard: $P peers, not 20000"
fi
[ $P -ge 1000 ] || skip "an open-file limit of $hard is too low for this test"

args=(--clients 1 --rate 10000 --duration 1.5 --warmup 0.3)
run "${args[@]}" --peers 100
cp "$TMP/r.json" "$TMP/few.json"
run "${args[@]}" --peers $P
f=$TMP/r.json
# Whole, or partial where its own CPU kept the generator off its schedule (said: beside a
# loopback flood), not the server or the peers.
jassert "$f" "(.partial == false or (.partial_reason | test(\"its own CPU\"))) and .config.peers == $P and .errors == 0 and .transactions > 5000" '{transactions, errors, partial, partial_reason}'
# The kernel saw what we counted, in and out (both ends on this host), within the window's
# edges (kall: lib.sh).
jq -e "$KOK kall" "$f" >/dev/null || fail "kernel counters: $(jq -c .kernel_check "$f")"
few=$(jget "$TMP/few.json" .sides.client.syscalls_per_unit) many=$(jget "$f" .sides.client.syscalls_per_unit)
echo "syscalls per transaction: $few with 100 peers, $many with $P; $(jget "$f" .transactions_per_s)/s"
# The same calls a transaction, within a quarter (the schedule's waits vary with the machine).
jq -ne "$many <= 1.25 * $few + 0.5" >/dev/null || fail "$many syscalls a transaction with $P peers, $few with 100"

if NB=$(nobody_sb); then
	setpriv --reuid=65534 --regid=65534 --clear-groups bash -c "ulimit -n 1024; ulimit -Hn 1024; \"$NB\" udp-rr --clients 1 --peers 2000 --window 2000 --duration 1" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "open-file limit 1024, --peers 2000: exit $rc, not 2: $(cat "$TMP/err")"
	grep -qF -- "--peers 2000 needs 2064 open files" "$TMP/err" && grep -qF "ulimit -n 2064" "$TMP/err" ||
		fail "message: $(cat "$TMP/err")"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "not one line: $(cat "$TMP/err")"
else
	echo "user nobody cannot run a copy of $SB here: the open-file refusal not checked"
fi

# Local ports: a peer takes one, from the range all local clients share. More peers than the
# range holds is a usage error naming it; a client whose binds find no port left (another
# program holds part of the range) fails the run with its reason. Counted ready, such a client
# had been left out unsaid: --clients 2 --peers 30000 ran at half the offered rate, "holding
# load: yes". In this test's own namespace only: the range is the namespace's.
if [ "${SOCKBENCH_TEST_NETNS_ON:-0}" = 1 ] && [ "$(id -u)" -eq 0 ]; then
	sysctl -qw net.ipv4.ip_local_port_range="40000 40999" || fail "cannot set this namespace's port range"
	expect_usage "net.ipv4.ip_local_port_range gives 1000 on each of 1 source address" udp-rr --clients 2 --peers 1001 --src-addrs 1 --rate 1000 --duration 1
	expect_usage "net.ipv4.ip_local_port_range gives 1000 on each of 2 source addresses" udp-rr --clients 2 --peers 2001 --src-addrs 2 --rate 1000 --duration 1
	python3 -c 'import socket, sys, time
held = []
for _ in range(600):
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	s.bind(("0.0.0.0", 0))
	held.append(s)
print("holding", len(held), flush=True)
time.sleep(30)' >"$TMP/hold.out" 2>&1 &
	PIDS+=("$!")
	for _ in $(seq 50); do grep -q holding "$TMP/hold.out" && break; sleep 0.1; done
	grep -q "holding 600" "$TMP/hold.out" || fail "the port holder did not start: $(cat "$TMP/hold.out")"
	"$SB" udp-rr --clients 2 --peers 800 --rate 2000 --duration 1 --warmup 0.2 --json >"$TMP/ports.json" 2>"$TMP/ports.err"
	rc=$?
	[ $rc -eq 1 ] || fail "800 peers with 400 local ports free: exit $rc, not 1 ($(cat "$TMP/ports.err"); $(jq -c '{transactions, scheduled, holding_load}' "$TMP/ports.json" 2>/dev/null))"
	grep -qE "client [12]: client sockets: no local port left for socket [0-9]+ of 400" "$TMP/ports.err" ||
		fail "the failed client's reason: $(cat "$TMP/ports.err")"
	kill "$!" 2>/dev/null
	# With the ports free again, the same run holds its load, both clients in it.
	wait "$!" 2>/dev/null
	"$SB" udp-rr --clients 2 --peers 800 --rate 2000 --duration 1 --warmup 0.2 --json >"$TMP/ports.json" ||
		fail "800 peers with the range free: $(cat "$TMP/ports.err")"
	jassert "$TMP/ports.json" '.sides.client.processes == 2 and .scheduled >= 1900 and .holding_load == true' '{scheduled, holding_load, p: .sides.client.processes}'
	sysctl -qw net.ipv4.ip_local_port_range="32768 60999" # a new namespace's, again
fi

# 100,000 peers: a process holds at most its open-file limit's worth of sockets (the hard limit
# may be 20,000 and fixed), so they spread over as many client processes as that takes, and
# over as many loopback source addresses as the local ports need (each address has its own:
# 4 on the default range). Every socket is open (ss counts this namespace's while the window
# runs), every datagram is the kernel's, and the run holds its offered rate.
N=100000
per=$(("$(ulimit -Hn)" - 100))
C=$(((N + per - 1) / per))
if [ "$C" -gt 256 ]; then # --clients' most
	echo "$N peers not run: an open-file limit of $(ulimit -Hn) would take $C client processes"
	echo ok
	exit 0
fi
SOCKBENCH_PROGRESS=1 "$SB" udp-rr --clients $C --peers $N --rate 4000 --duration 2 --warmup 0.3 --json >"$TMP/100k.json" 2>"$TMP/100k.err" &
run=$!
PIDS+=("$run")
wait_window "$run" "$TMP/100k.err"
socks=$(ss -Huan | wc -l)
wait "$run" || fail "udp-rr --peers $N over $C clients: $(tail -3 "$TMP/100k.err")"
[ "$socks" -ge $N ] || fail "$socks UDP sockets open in the window, not $N or more"
# It holds its load, or says its own CPU did not (partial: its threads' run delay named; beside
# a loopback flood they waited 82 ms each runnable): the machine's, not the server's.
jassert "$TMP/100k.json" "((.partial == false and .holding_load == true) or (.partial and (.holding_load_reason | test(\"its own CPU\")))) and .errors == 0 and .config.peers == $N and .sides.client.processes == $C and .config.src_addrs >= 2 and .scheduled >= 7600" '{partial, partial_reason, holding_load, errors, scheduled, src: .config.src_addrs, p: .sides.client.processes}'
jq -e "$KOK kall" "$TMP/100k.json" >/dev/null || fail "100,000 peers: kernel counters: $(jq -c .kernel_check "$TMP/100k.json")"
echo "$N peers over $C clients and $(jget "$TMP/100k.json" .config.src_addrs) source addresses: $socks UDP sockets open, $(jget "$TMP/100k.json" .transactions_per_s)/s"
echo ok
