# udp-stream's jitter (RFC 3550, iperf3's figure) against a known one. Between two network
# namespaces a relay (tests/helpers/delay_relay.py, where nftables sends the test's datagrams)
# holds every datagram 1.5-2.5 ms, uniform and independent: the expected |D| between two
# datagrams' transit times is then 1 ms / 3 = 0.333 ms, the value the estimate settles around,
# on a quiet machine. A busy one makes the relay late (1.26 ms measured beside a busy loop
# pinned to a CPU), so the relay says what it gave: the mean |D| of the holds it actually gave
# consecutive datagrams, and the estimate is held to that (within 0.6-1.6x, plus what the
# link adds without the relay). iperf3 -u through a relay of its own, in the same test,
# measures the same link. Root only (namespaces, nftables).
# solo: the receiver's own wake-ups add to the relay's jitter: beside another test in CI, 0.81-1.01 ms where the relay gave 0.40
. "$(dirname "$0")/lib.sh"
need jq
need python3
need nft
[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces and nftables"
two_hosts 198.18.3.1 198.18.3.2
A=$HOST_A B=$HOST_B
inA() { ip netns exec $A "$@"; }
relay=$(dirname "$0")/../helpers/delay_relay.py
data=$(free_port)
ns_agent $B 198.18.3.2
port=$AGENT_PORT
srv=198.18.3.2:$port
run() { inA "$SB" udp-stream --server $srv --port $data --size 100 --rate 2000 --peers 1 "$@" --json; }
run --duration 1 --warmup 0.3 >"$TMP/direct.json" || fail "udp-stream without the relay"
# The relay: datagrams from A to B's port P go to it instead (nftables DNAT in A's output
# path), except its own, which leave from the port after its own.
through() { # DPORT RPORT [LO HI]: A's datagrams to DPORT of B through a relay on RPORT holding each LO-HI ms
	inA nft add table ip relay 2>/dev/null
	inA nft add chain ip relay out '{ type nat hook output priority -100; }' &&
		inA nft add rule ip relay out ip daddr 198.18.3.2 udp dport "$1" udp sport != $(($2 + 1)) \
			dnat to 198.18.3.1:$2 || skip "nftables cannot redirect here (no NAT)"
	# Real-time priority, so that the machine's other work adds little to the relay's delays.
	inA chrt -f 10 python3 "$relay" "198.18.3.1:$2" "198.18.3.2:$1" $(($2 + 1)) "${3:-1.5}" "${4:-2.5}" 40 \
		"$TMP/relay$2.stats" >"$TMP/relay$2.out" 2>&1 &
	PIDS+=("$!")
	for _ in $(seq 50); do grep -q ready "$TMP/relay$2.out" 2>/dev/null && return; sleep 0.1; done
	fail "the relay did not start: $(cat "$TMP/relay$2.out")"
}
through "$data" 40001
far=$(free_port)
through "$far" 40021 5 40
command -v iperf3 >/dev/null && through 5299 40011
# Rounds of each tool, alternating; the medians are compared (the estimate is a running
# average of about the last 16 datagrams, so one hiccup of a busy machine moves a single run:
# of 3 runs in CI, 2 read 0.80 and 0.81 ms where the relay gave 0.47; so 5 rounds, and the relay
# counts its holds from the kernel's receive time, its own late wake-ups included). A round is
# 1 s, 2,000 datagrams: the figure is the estimate's last value, whatever the run's length.
for r in 1 2 3 4 5; do
	run --duration 1 --warmup 0.3 >"$TMP/j$r.json" || fail "udp-stream through the relay"
	jq .jitter_ms "$TMP/j$r.json" >>"$TMP/ours"
	if command -v iperf3 >/dev/null; then
		ip netns exec $B timeout 20 iperf3 -s -1 -B 198.18.3.2 -p 5299 >"$TMP/iperf3-s.log" 2>&1 &
		PIDS+=("$!")
		sleep 0.3
		inA timeout 20 iperf3 -c 198.18.3.2 -p 5299 -u -b 1600k -l 100 -t 1 -J >"$TMP/iperf3.json" ||
			fail "iperf3 -u through the relay: $(grep error "$TMP/iperf3.json"); server: $(tail -3 "$TMP/iperf3-s.log")"
		jq '.end.sum.jitter_ms' "$TMP/iperf3.json" >>"$TMP/theirs"
	fi
done
# The relay reorders (datagrams 0.5 ms apart, held 1.5-2.5 ms each) and loses nothing: the
# datagrams it still holds when the window closes come after the control message that closes
# it, and the receiver waits for them (DRAIN_*) rather than counting them lost.
for r in 1 2 3 4 5; do
	jassert "$TMP/j$r.json" '.packets_received > 1500 and .loss == 0 and .reordered > 100' '{packets_received, loss, reordered}'
done
# A relay holding each datagram 5-40 ms has ~70 of them on their way when the window closes,
# most behind a later one: every one must still be waited for, none counted lost.
inA "$SB" udp-stream --server $srv --port "$far" --size 100 --rate 2000 --peers 1 --duration 1 \
	--warmup 0.3 --json >"$TMP/far.json" || fail "udp-stream through the 5-40 ms relay"
jassert "$TMP/far.json" '.packets_received > 1500 and .loss == 0 and .reordered > 500' '{packets_received, loss, reordered}'
median() { sort -g "$1" | sed -n 3p; } # of 5
ours=$(median "$TMP/ours")
sleep 0.6 # the relays' last word on what they gave
gave=$(awk '{print $2}' "$TMP/relay40001.stats")
direct=$(jq .jitter_ms "$TMP/direct.json")
awk -v a="$ours" -v e="$gave" -v d="$direct" 'BEGIN {exit !(a > 0.6 * e && a < 1.6 * e + d)}' ||
	fail "jitter through the relay: $(tr '\n' ' ' <"$TMP/ours")ms, where the relay gave a mean |D| of $gave ms (the link alone $direct ms)"
# Without the relay the link adds nothing: what is left is the sender's and receiver's own
# timing, well under the relay's (a jitter figure that came out the same whatever the link
# would fail here). Half, not less: with two busy neighbours on this 2-CPU machine the direct
# run measured 0.141 ms against the relay's 0.370.
jassert "$TMP/direct.json" ".jitter_ms < $ours / 2" '.jitter_ms'
if [ -s "$TMP/theirs" ]; then
	theirs=$(median "$TMP/theirs")
	gave_i=$(awk '{print $2}' "$TMP/relay40011.stats")
	# Each against what its own relay gave: the two relays may be late differently.
	awk -v a="$ours" -v b="$theirs" -v ea="$gave" -v eb="$gave_i" 'BEGIN {r = (a / ea) / (b / eb); exit !(r > 0.6 && r < 1.6)}' ||
		fail "jitter through like relays: sockbench $(tr '\n' ' ' <"$TMP/ours")ms (its relay gave $gave), iperf3 $(tr '\n' ' ' <"$TMP/theirs")ms (its relay gave $gave_i)"
	echo "jitter through a relay holding 1.5-2.5 ms (~0.333 ms quiet), medians of 5: sockbench $ours ms (its relay gave $gave ms), iperf3 $theirs ms (its relay gave $gave_i ms)"
fi
echo ok
