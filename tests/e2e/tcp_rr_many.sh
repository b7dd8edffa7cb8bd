# tcp-rr with many flows (epoll threads past 64 a process): 100,000 flows on loopback, over as
# many client processes as the hard open-file limit asks (20,000 a process in some containers,
# where it cannot be raised), the server holding all of them in one process (its workers each
# with a descriptor table of its own, as many as the limit asks). Every flow carries
# transactions (idle_flows 0, no errors); the connections opened are the kernel's: Tcp
# ActiveOpens and PassiveOpens each move by the flows plus the one control connection of the
# local agent, exactly (a flow opened twice, or one missing, is off by one); the client's and
# the server's user-space memory per flow is at most 2 KiB plus their fixed part (threads and
# their histograms, at most 256 KiB a thread: documented in docs/json.md) over the flows; and
# an open-file limit too low for the request is a usage error (exit 2) naming the limit, the
# number needed and ulimit -n.
# solo: 100,000 connections load both CPUs and the kernel: beside them a neighbour's timing checks failed (every_request's open-loop p99)
# last: the kernel frees its 100,000 connections' namespace for seconds after it ends
. "$(dirname "$0")/lib.sh"
need jq
snmp() { awk '/^Tcp:/ {if (!h) {for (i = 1; i <= NF; i++) n[$i] = i; h = 1} else print $n["ActiveOpens"], $n["PassiveOpens"]}' /proc/net/snmp; }
hard=$(ulimit -Hn)
N=100000
[ "$hard" = unlimited ] && hard=$((N + 200))
[ "$hard" -ge 1200 ] || skip "the hard open-file limit ($hard) is too low for many flows"
# Clients: as few as hold N between them, each under the limit, N a multiple of them.
C=$(clients_for $N "$hard")
F=$((N / C))
read -r a0 p0 < <(snmp)
# A flow's round trip is the flows over the rate (1 s here at 100,000 flows and 100,000/s): a
# window of 4 s gives each flow several, so one with none is stuck, not unlucky.
"$SB" tcp-rr --clients $C --flows $F --duration 4 --warmup 2 --json >"$TMP/r.json" 2>"$TMP/err" ||
	fail "tcp-rr --clients $C --flows $F: $(tail -3 "$TMP/err")"
echo "$N flows ($C clients x $F): $(jq -c '{rate, p99: .latency_us.p99, server_threads: .config.server_threads}' "$TMP/r.json")"
read -r a1 p1 < <(snmp)
j() { jq -r "$1" "$TMP/r.json"; }
[ "$(j .errors)" = 0 ] || fail "$N flows: $(j .errors) errors: $(jq -c .sides.client.errors_by_kind "$TMP/r.json")"
[ "$(j .sides.client.idle_flows)" = 0 ] || fail "$N flows: $(j .sides.client.idle_flows) carried nothing in the window (round trip p99 $(j .latency_us.p99) us, max $(j .latency_us.max) us)"
[ "$(j .transactions)" -ge $N ] || fail "$N flows, only $(j .transactions) transactions"
# The window's requests still in flight at its close are answered in the drain (nothing lost
# on a quiet loopback), each in the latencies.
jassert "$TMP/r.json" '.drain_s > 0 and .lost == 0 and .latency_us.unanswered == 0 and .latency_us.count == .transactions' '{drain_s, lost, transactions, latency_us: (.latency_us | del(.cdf))}'
[ "$hard" -lt $((N + 64)) ] && echo "the server held $N flows past its open-file limit ($hard): its workers each with a descriptor table of their own"
[ $((a1 - a0 - 1)) = $N ] || fail "ActiveOpens moved by $((a1 - a0)), expected $N flows + 1 control connection"
[ $((p1 - p0 - 1)) = $N ] || fail "PassiveOpens moved by $((p1 - p0)), expected $N flows + 1 control connection"
need_src=$(j .config.src_addrs)
[ "$need_src" -ge 2 ] || [ $N -lt 8000 ] || fail "$N flows from $need_src source address(es): the port range needs more"
threads=$(nproc)
[ "$threads" -ge "$C" ] || threads=$C # a thread a client process at least; the server one a table
bound=$((2048 + threads * 262144 / N))
if sanitized; then
	echo "memory per flow not checked: ASan's shadow memory and redzones are not the tool's"
else
	for side in client server; do
		m=$(j ".sides.$side.memory_per_flow | floor")
		[ "$m" -le $bound ] || fail "$side memory per flow $m bytes, over $bound at $N flows"
		echo "$side: $m bytes a flow at $N flows (bound $bound)"
	done
fi
# A limit the tool may not raise: as nobody, with the hard limit at 1024.
if NB=$(nobody_sb); then
	set +e
	setpriv --reuid=65534 --regid=65534 --clear-groups bash -c \
		"ulimit -n 1024; exec $NB tcp-rr --flows 2000 --duration 0.2" >/dev/null 2>"$TMP/nofile"
	rc=$?
	set -e
	[ $rc = 2 ] || fail "--flows 2000 with ulimit -n 1024: exit $rc, not 2: $(cat "$TMP/nofile")"
	grep -q "2064" "$TMP/nofile" && grep -q "ulimit -n" "$TMP/nofile" && grep -q "1024" "$TMP/nofile" ||
		fail "the message does not name the limit, the need and ulimit -n: $(cat "$TMP/nofile")"
	# ... and the processes that would hold them: 2,000 over 960 a process (the limit less
	# 64), as few as hold them with the total kept.
	grep -qF -- "--clients 4 --flows 500" "$TMP/nofile" ||
		fail "the message does not say how to spread the flows: $(cat "$TMP/nofile")"
	echo "nobody, ulimit -n 1024: $(cat "$TMP/nofile")"
else
	echo "open-file refusal not checked: needs root, setpriv and a binary user nobody can run"
fi
echo ok
