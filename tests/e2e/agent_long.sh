# 3. A count-based run longer than warm-up + duration + 30 s against an agent: the agent
# honours the controller's --time-limit (the old agent ended it at 30.1 s here, the server's
# figures null and nothing said). Two hosts in network namespaces, the server's side of the
# link limited to 4 Mbit/s (tbf), so that 900 connections of 20,000 bytes take about 40 s.
# aside: 40 s of a link limited to 4 Mbit/s, under a second of CPU: it waits beside the others
. "$(dirname "$0")/lib.sh"
need jq
two_hosts 198.18.1.1 198.18.1.2
A=$HOST_A B=$HOST_B
ip netns exec $B tc qdisc add dev $IF_B root tbf rate 4mbit burst 10kb latency 100ms || skip "no tbf"

ns_agent $B 198.18.1.2
port=$AGENT_PORT

start=$(date +%s)
ip netns exec $A "$SB" tcp-crr --server 198.18.1.2:$port --conns 900 --warmup-conns 0 --warmup 0 \
	--duration 0.1 --time-limit 120 --json >"$TMP/c.json" 2>"$TMP/c.err" ||
	fail "a long count-based run: exit $? after $(($(date +%s) - start)) s: $(cat "$TMP/c.err")"
took=$(($(date +%s) - start))
jassert "$TMP/c.json" '.partial == false and .connections == 900 and .sides.server.connections == 900 and .duration_s > 31' '{partial, partial_reason, connections, duration_s}'
echo "ok: 900 connections in $took s, window $(jget "$TMP/c.json" .duration_s) s"

# And a --time-limit shorter than the run: the controller stops it and says why (the user's
# own limit, like Ctrl-C: exit 0).
ip netns exec $A "$SB" tcp-crr --server 198.18.1.2:$port --conns 100000 --warmup-conns 0 --warmup 0 \
	--time-limit 2 --json >"$TMP/t.json" 2>"$TMP/t.err"
rc=$?
[ $rc -eq 0 ] || fail "--time-limit 2: exit $rc"
jassert "$TMP/t.json" '.partial == true and (.partial_reason | test("time-limit 2 s")) and .connections > 0 and .sides.server.connections > 0' '{partial_reason, connections}'
grep -q "time-limit 2 s" "$TMP/t.err" || fail "nothing on stderr: $(cat "$TMP/t.err")"
echo ok
