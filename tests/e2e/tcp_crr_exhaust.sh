# Port exhaustion: in a network namespace with 100 local ports and no TIME_WAIT reuse, closing
# from the client side runs out of ports: the run stops with a message naming the cause and
# the flags that avoid it, exit 1, never a silent short count. The default close order does
# not run out.
. "$(dirname "$0")/lib.sh"
need jq
[ "$(id -u)" -eq 0 ] || skip "needs root for a network namespace"
# A fresh namespace per case: TIME_WAIT from one case would starve the next one's control
# connection too.
new_ns() {
	ns=sbx$$_$1
	ip netns add $ns 2>/dev/null || skip "cannot create a network namespace"
	NSS+=("$ns")
	ip -n $ns link set lo up
	ip netns exec $ns sysctl -qw net.ipv4.ip_local_port_range="40000 40099" net.ipv4.tcp_tw_reuse=0
}
NSS=()
trap 'for n in "${NSS[@]}"; do ip netns del $n 2>/dev/null; done; cleanup' EXIT
new_ns a
ip netns exec $ns "$SB" tcp-crr --conns 500 --warmup-conns 0 --close client --src-addrs 1 --json \
	>"$TMP/r.json" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] || fail "exit $rc, not 1, on port exhaustion"
grep -q "EADDRNOTAVAIL" "$TMP/err" && grep -q -- "--close server" "$TMP/err" && grep -q -- "--src-addrs" "$TMP/err" \
	|| fail "message does not name the cause and the flags: $(cat "$TMP/err")"
jassert "$TMP/r.json" '.partial == true and .connections < 500 and .sides.client.errors_by_kind.addrnotavail >= 1'

# Spreading over source addresses, or the default close order: all 500 complete.
new_ns b
ip netns exec $ns "$SB" tcp-crr --conns 500 --warmup-conns 0 --close client --src-addrs 8 --json >"$TMP/a.json" \
	|| fail "--src-addrs 8 failed: $(cat "$TMP/a.json")"
jassert "$TMP/a.json" '.connections == 500 and .partial == false'
new_ns c
ip netns exec $ns "$SB" tcp-crr --conns 500 --warmup-conns 0 --json >"$TMP/b.json" || fail "default close failed"
jassert "$TMP/b.json" '.connections == 500 and .partial == false'
# ... because TIME_WAIT stays with the server: the client closes only after the server's FIN
# (even when it leaves that close until the next connections have run).
# The data port is the port most TIME_WAIT entries name, as their local port (server-side
# entries) or as their peer (client-side ones). (A new SYN may take over a server-side entry of the
# same ports, so there are fewer than 500 of those: 50 with these 100 ports.)
ip netns exec $ns ss -Htan state time-wait | awk '{n = split($3, l, ":"); m = split($4, p, ":"); print l[n], p[m]}' >"$TMP/tw"
data=$(tr ' ' '\n' <"$TMP/tw" | sort | uniq -c | sort -rn | awk 'NR == 1 {print $2}')
tw_server=$(awk -v d="$data" '$1 == d' "$TMP/tw" | wc -l)
tw_client=$(awk -v d="$data" '$2 == d' "$TMP/tw" | wc -l)
[ "$tw_client" -eq 0 ] && [ "$tw_server" -ge 20 ] ||
	fail "TIME_WAIT: $tw_client on the client's side, $tw_server on the server's (want 0 and 20 or more)"
echo "TIME_WAIT after 500 default connections: $tw_client client-side, $tw_server server-side"
echo ok
