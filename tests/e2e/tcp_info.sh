# TCP_INFO per side (sides.*.tcp_info): its RTT against what ss reads from a live connection,
# and its retransmits against the kernel's RetransSegs. On loopback both are 0; across two
# namespaces with netem (delay 5 ms each way... on the client's side only, and 1% loss) the
# RTT is the delay and the retransmits are the namespace's own count.
. "$(dirname "$0")/lib.sh"
need jq
need ss
retrans() { awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c["RetransSegs"] }' "${1:-/proc/net/snmp}"; }

# Loopback: each read connection, and no retransmit where the kernel counted none.
k0=$(retrans)
"$SB" tcp-rr --duration 0.5 --warmup 0.1 --clients 2 --flows 3 --json >"$TMP/r.json" || fail tcp-rr
"$SB" tcp-crr --conns 1600 --warmup-conns 50 --json >"$TMP/c.json" || fail tcp-crr
k1=$(retrans)
jassert "$TMP/r.json" '[.sides.client, .sides.server] | all(.tcp_info.connections == 6 and .tcp_info.sample_every == 1 and .retransmits == null and .segments_sent == null)' '.sides[] | [.tcp_info, .retransmits]'
# 1600 connections over one thread: connections 0, 16, ... 1584 read; the server reads none.
jassert "$TMP/c.json" '.sides.client.tcp_info | .connections == 100 and .sample_every == 16' '.sides.client.tcp_info'
jassert "$TMP/c.json" '.sides.server.tcp_info == null' '.sides.server.tcp_info'
for f in r c; do
	jassert "$TMP/$f.json" '.sides.client.tcp_info | .rtt_us.min > 0 and .rtt_us.min <= .rtt_us.mean and .rtt_us.mean <= .rtt_us.max and .min_rtt_us.min <= .rtt_us.min and .cwnd.min > 0' '.sides.client.tcp_info'
	# What the kernel counted over both runs bounds theirs (0 and 0 when the loopback lost nothing).
	jassert "$TMP/$f.json" '[.sides[] | objects | .tcp_info | objects | .retransmits] | add <= '$((k1 - k0)) '.sides[].tcp_info'
done

# Two hosts, the client's data segments lost at 1% (netem on its way out, with 5 ms of delay,
# where the kernel has netem; else nftables dropping 1% of them on the server's way in).
two_hosts 198.18.0.1 198.18.0.2
A=$HOST_A B=$HOST_B
mkfifo "$TMP/ready"
ip netns exec $B "$SB" serve --listen 198.18.0.2 --port 0 --ready-fd 9 9>"$TMP/ready" 2>"$TMP/agent.log" &
PIDS+=($!)
read -r -t 5 cport <"$TMP/ready" || fail "agent did not start: $(cat "$TMP/agent.log")"
port=$(free_port)
delay=0
if ip netns exec $A tc qdisc add dev $IF_A root netem delay 5ms loss 1% 2>/dev/null; then
	delay=5
elif command -v nft >/dev/null; then
	ip netns exec $B nft add table inet loss &&
		ip netns exec $B nft add chain inet loss in '{ type filter hook input priority 0; }' &&
		ip netns exec $B nft add rule inet loss in tcp dport $port numgen random mod 100 \< 1 drop ||
		skip "cannot drop packets here (no netem, nftables refused)"
else
	skip "no netem and no nft to lose packets"
fi

# RTT: one flow, one request at a time; ss reads it mid-run, the JSON at the window's end. With
# netem's 5 ms the RTT is the delay: within a fifth (tcpi_rtt is smoothed, 1/8 of each sample,
# and ss read it 1 s earlier). Without it the RTT is tens of microseconds of scheduling on a
# shared machine, which moves 10x between readings: then only its unit and order (within 30x:
# a figure in ms or ns is 1000x off).
ip netns exec $A "$SB" tcp-rr --server 198.18.0.2:$cport --port $port --clients 1 --window 1 \
	--duration 3 --warmup 0.3 --json >"$TMP/n.json" &
pid=$!
PIDS+=($pid)
sleep 2
ip netns exec $A ss -tinH state established "dport = :$port" >"$TMP/ss"
wait $pid || fail "tcp-rr across"
rtt=$(grep -o ' rtt:[0-9.]*' "$TMP/ss" | head -1 | cut -d: -f2)
[ -n "$rtt" ] || fail "ss shows no rtt: $(cat "$TMP/ss")"
if [ $delay = 5 ]; then
	want="(.sides.client.tcp_info.rtt_us.mean / 1000 - $rtt | fabs) <= 0.2 * $rtt and $rtt >= 5"
else
	want="(.sides.client.tcp_info.rtt_us.mean / 1000) as \$j | \$j <= 30 * $rtt and \$j * 30 >= $rtt"
fi
jassert "$TMP/n.json" "$want" "[$rtt, .sides.client.tcp_info]"

# Retransmits: the client's connections' own count against its namespace's (the control
# connection and what goes after the window's end may add a few: a tenth and 10).
k0=$(ip netns exec $A cat /proc/net/snmp | retrans /dev/stdin)
ip netns exec $A "$SB" tcp-stream --server 198.18.0.2:$cport --port $port --clients 1 --flows 2 \
	--duration 2 --warmup 0.3 --json >"$TMP/s.json" || fail "tcp-stream across"
k1=$(ip netns exec $A cat /proc/net/snmp | retrans /dev/stdin)
k=$((k1 - k0))
[ "$k" -ge 20 ] || fail "1% loss made only $k retransmits: no loss to compare"
jassert "$TMP/s.json" ".sides.client.tcp_info.retransmits as \$t | \$t <= $k and $k - \$t <= 0.1 * $k + 10" \
	"[$k, .sides.client.tcp_info.retransmits, .sides.client.retransmits]"
echo ok
