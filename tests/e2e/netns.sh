# Two hosts in network namespaces joined by veth (198.18.0.1 <-> 198.18.0.2, the range for
# benchmarks): every workload runs across them; a host other than the controller's gets no
# answer; with 1% loss each way udp-rr completes, its lost count near what that predicts and
# the window never stalls; the agent killed mid-run leaves the client reporting, not hanging.
. "$(dirname "$0")/lib.sh"
need jq
two_hosts 198.18.0.1 198.18.0.2
A=$HOST_A B=$HOST_B
ip -n $A addr add 198.18.0.3/24 dev $IF_A # a stranger on the client's side
inA() { ip netns exec $A "$@"; }

ns_agent $B 198.18.0.2
port=$AGENT_PORT
srv=198.18.0.2:$port

# Every workload across the link; the kernel counters of the client's namespace agree.
inA "$SB" udp-rr --server $srv --duration 1 --warmup 0.3 --json >"$TMP/u.json" || fail "udp-rr across"
jassert "$TMP/u.json" "$KOK"' .transactions > 0 and .kernel_check.scope == "client" and kall and .sides.server.processes == 1'
inA "$SB" tcp-rr --server $srv --duration 1 --warmup 0.3 --json >"$TMP/t.json" || fail "tcp-rr across"
jassert "$TMP/t.json" '.transactions > 0 and .errors == 0'
# Each host's environment names the interface its side of the path leaves by.
jassert "$TMP/t.json" ".environment.interface.name == \"$IF_A\" and .environment.agent.interface.name == \"$IF_B\" and .environment.agent.interface.mtu == $(ip netns exec $HOST_B cat /sys/class/net/$IF_B/mtu)" '.environment.interface, .environment.agent.interface'
inA "$SB" tcp-crr --server $srv --conns 1000 --warmup-conns 50 --json >"$TMP/c.json" || fail "tcp-crr across"
jassert "$TMP/c.json" '.connections == 1000 and .kernel.ActiveOpens == 1000 and .bytes_received == 1000 * 20000'
inA "$SB" udp-rr --server $srv --batch 16 --connected --duration 0.5 --warmup 0.1 --json >"$TMP/s.json" || fail "strategies across"
jassert "$TMP/s.json" '.transactions > 0'

# A stranger (198.18.0.3) gets no answer during a test; the agent counts it as foreign.
SOCKBENCH_PROGRESS=1 inA "$SB" udp-rr --server $srv --port 30999 --duration 6 --warmup 0 --json >"$TMP/f.json" 2>"$TMP/f.err" &
run=$!
wait_window $run "$TMP/f.err"
# Several probes each (up to 4 s in the 6 s window): the server's receive buffer, full under the
# clients' 200 outstanding requests (RcvbufErrors, more so under ASan), may drop one; the
# stranger must get no answer to any, the controller's host an answer to at least one.
for i in 1 2 3; do
	inA "$UDP_PROBE" 198.18.0.3 198.18.0.2 30999 100 && fail "the agent answered a stranger (probe $i of 3)"
done
answered=0
for i in 1 2 3 4 5; do
	inA "$UDP_PROBE" 198.18.0.1 198.18.0.2 30999 100 >/dev/null && { answered=1; break; }
done
[ $answered = 1 ] || fail "the agent did not answer its controller's host (5 probes)"
wait $run || fail "run with the stranger failed"
jassert "$TMP/f.json" '.sides.server.errors_by_kind.foreign >= 1' '.sides.server.errors_by_kind'
# udp-stream --reverse: the agent sends only to its controller's host. A stranger's hello (flow
# 0, sequence 0, "SBKH") gets nothing and is counted foreign; the client's flows are fed.
SOCKBENCH_PROGRESS=1 inA "$SB" udp-stream --reverse --server $srv --port 30998 --rate 2000 --duration 3 --warmup 0 --json >"$TMP/h.json" 2>"$TMP/h.err" &
run=$!
wait_window $run "$TMP/h.err"
inA "$UDP_PROBE" 198.18.0.3 198.18.0.2 30998 16 00000000000000000000000053424b48 && fail "the agent fed a stranger"
wait $run || fail "udp-stream --reverse with the stranger failed"
jassert "$TMP/h.json" "$KOK"' .sides.server.errors_by_kind.foreign >= 1 and held(2000) and drops_seen' '{f: .sides.server.errors_by_kind, packets_per_s, loss, duration_s, k: .kernel_check}'

# 1% loss each way (netem with 1 ms delay where the kernel has it, else nftables).
how=
if ip netns exec $A tc qdisc add dev $IF_A root netem delay 1ms loss 1% 2>/dev/null &&
	ip netns exec $B tc qdisc add dev $IF_B root netem delay 1ms loss 1% 2>/dev/null; then
	how="netem delay 1ms loss 1%"
elif command -v nft >/dev/null; then
	# On input, as a lossy link would: a drop on output returns EPERM to the sender, which
	# then simply retries, and that is no loss at all.
	for ns in $A $B; do
		ip netns exec $ns nft add table inet loss &&
			ip netns exec $ns nft add chain inet loss in '{ type filter hook input priority 0; }' &&
			ip netns exec $ns nft add rule inet loss in meta l4proto udp numgen random mod 100 \< 1 drop ||
			skip "cannot drop packets here (no netem, nftables refused)"
	done
	how="nftables 1% drop each way (this kernel has no netem: no added delay)"
else
	skip "no netem and no nft to lose packets"
fi
inA "$SB" udp-rr --server $srv --duration 3 --warmup 0.5 --json >"$TMP/l.json" || fail "udp-rr with loss"
# A request is lost when it or its answer is: 1 - 0.99^2 = 1.99% expected.
jassert "$TMP/l.json" '(.lost / (.transactions + .lost)) as $f | $f > 0.01 and $f < 0.032' '{lost, transactions, late}'
jassert "$TMP/l.json" '.transactions_per_s > 1000 and .partial == false' '{transactions_per_s}'
echo "loss: $how: $(jq -r '"\(.lost) lost of \(.transactions + .lost) (\(100 * .lost / (.transactions + .lost) | . * 100 | round / 100)%)"' "$TMP/l.json")"

# The agent killed mid-run: the client reports what it measured and exits within seconds.
SOCKBENCH_PROGRESS=1 inA "$SB" udp-rr --server $srv --duration 30 --warmup 0.2 --json >"$TMP/k.json" 2>"$TMP/k.err" &
run=$!
wait_window $run "$TMP/k.err" 0.3
kill -9 "$AGENT_PID"
for _ in $(seq 80); do kill -0 $run 2>/dev/null || break; sleep 0.05; done
kill -0 $run 2>/dev/null && fail "client still running 4 s after the agent died"
wait $run
[ $? -eq 1 ] || fail "client exit status after the agent died"
jassert "$TMP/k.json" '.partial == true and .transactions > 0'
echo ok
