# A stall from lost packets is told apart from a stopped agent: tcp-crr across two namespaces,
# the server's host dropping every SYN for 2.5 s in the window. Each of the 4 connections in
# flight loses its SYN and the SYN's first retransmission (1 s later); the second (3 s after the
# SYN) gets through. The run is partial (exit 1) with a stall of 2-7 s, and says how many TCP
# segments the client's kernel retransmitted meanwhile: at least the 4 first retransmissions
# (the rule may go before or after the second ones), and no more than its namespace's
# RetransSegs counted over the run, which starts above 0 (two connects lost their SYNs before
# it), so a figure that is the counter itself, not its change, fails.
. "$(dirname "$0")/lib.sh"
need jq
need nft
retrans() { awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c["RetransSegs"] }'; }

two_hosts 198.18.0.1 198.18.0.2
A=$HOST_A B=$HOST_B
ns_agent $B 198.18.0.2
cport=$AGENT_PORT
port=$(free_port)
ip netns exec $B nft add table inet stall &&
	ip netns exec $B nft add chain inet stall in '{ type filter hook input priority 0; }' ||
	skip "nftables refused a table here"

ip netns exec $B nft add rule inet stall in tcp dport $port 'tcp flags & (syn | ack) == syn' drop ||
	fail "nft refused the SYN rule"
for i in 1 2; do
	ip netns exec $A timeout 1.5 bash -c "exec 3<>/dev/tcp/198.18.0.2/$port" 2>/dev/null
done
ip netns exec $B nft flush chain inet stall in
k0=$(ip netns exec $A cat /proc/net/snmp | retrans)
[ "$k0" -ge 2 ] || fail "two connects to a port that drops SYNs retransmitted $k0 times"
ip netns exec $A "$SB" tcp-crr --server 198.18.0.2:$cport --port $port --concurrency 4 \
	--duration 8 --warmup 0.3 --json >"$TMP/x.json" 2>"$TMP/x.err" &
run=$!
PIDS+=($run)
# The SYNs go once connections come and go on the port (the warm-up's: then 0.5 s more, into
# the window), however slowly this machine started the run.
for i in $(seq 100); do
	ip netns exec $B ss -tanH "sport = :$port" | grep -q . && break
	sleep 0.1
done
sleep 0.5
ip netns exec $B nft add rule inet stall in tcp dport $port 'tcp flags & (syn | ack) == syn' drop ||
	fail "nft refused the SYN rule"
sleep 2.5
ip netns exec $B nft flush chain inet stall in
wait $run
rc=$?
k1=$(ip netns exec $A cat /proc/net/snmp | retrans)
[ $rc -eq 1 ] || fail "SYNs lost for 2.5 s: exit $rc, not 1 ($(cat "$TMP/x.err"))"
jassert "$TMP/x.json" '.partial == true and (.partial_reason | test("no progress for [2-7]\\.[0-9] s of the window: the serve agent answered within [0-9.]+ s; this host retransmitted [0-9]+ TCP segments meanwhile \\(RetransSegs, all its sockets\\): lost packets"))' '{partial_reason}'
n=$(jq -r '.partial_reason | capture("retransmitted (?<n>[0-9]+) TCP").n' "$TMP/x.json")
[ "$n" -ge 4 ] && [ "$n" -le $((k1 - k0)) ] ||
	fail "the stall's retransmits: $n, not between the 4 first SYN retransmissions and the namespace's $((k1 - k0))"
grep -q "retransmitted $n TCP segments" "$TMP/x.err" || fail "nothing on stderr: $(cat "$TMP/x.err")"
echo "stall: $(jq -r .partial_reason "$TMP/x.json"); the namespace's RetransSegs over the run: $((k1 - k0))"

# A loopback run without loss is not marked. (A stopped agent is agent_control.sh's: "the server
# side stalled", which comes before the counters.)
"$SB" tcp-crr --conns 2000 --warmup-conns 100 --json >"$TMP/q.json" || fail "tcp-crr on loopback"
jassert "$TMP/q.json" '.partial == false'
echo ok
