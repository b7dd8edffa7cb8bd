# One client, one request outstanding (the sockperf ping-pong shape), and a many-peer variant.
. "$(dirname "$0")/lib.sh"
need jq
"$SB" udp-rr --clients 1 --window 1 --duration 1 --warmup 0.2 --json >"$TMP/a.json" || fail "window 1 run failed"
jassert "$TMP/a.json" '.transactions > 0 and .sides.client.processes == 1 and .partial == false'
# With one request in flight, client packets sent = answers + lost + at most 1 in flight.
jassert "$TMP/a.json" '(.sides.client.packets_sent - .transactions - .lost) | (. >= 0 and . <= 1)' '.sides.client'
# The default wait of a ping-pong blocks in recvmsg: a transaction is a send and a receive (2
# calls; poll makes it 3: poll, receive, send), and the description says why.
jassert "$TMP/a.json" '.config.wait == "auto" and .sides.client.syscalls_per_unit <= 2.05' '.sides.client'
# The config says what auto chose, and why: what the calls counted above show.
jassert "$TMP/a.json" '.config.wait_client == "block" and .config.wait_server == "block" and (.config.wait_client_reason | test("one request in flight"))' .config
"$SB" udp-rr --clients 1 --window 1 --wait poll --duration 0.5 --warmup 0.2 --json >"$TMP/p.json" || fail "--wait poll failed"
jassert "$TMP/p.json" '.sides.client.syscalls_per_unit >= 2.9 and .config.wait_client == "poll" and .config.wait_client_reason == "as --wait gave it"' '{c: .sides.client, w: .config}'
"$SB" udp-rr --clients 1 --window 1 --duration 0.3 --warmup 0.1 | head -1 | grep -q "wait auto (block: one request in flight on one socket)" ||
	fail "the description does not say auto blocks: $("$SB" udp-rr --clients 1 --window 1 --duration 0.3 --warmup 0.1 | head -1)"
# Two requests in flight, or an open loop: auto polls as before.
"$SB" udp-rr --clients 1 --window 2 --duration 0.5 --warmup 0.2 --json >"$TMP/w2.json" || fail "window 2 failed"
jassert "$TMP/w2.json" '.sides.client.syscalls_per_unit > 2.05 and .config.wait_client == "poll"' '{c: .sides.client, w: .config}'

"$SB" udp-rr --clients 2 --window 50 --peers 40 --no-check --size 1400 --duration 1 --warmup 0.2 --json >"$TMP/b.json" \
	|| fail "peers run failed"
jassert "$TMP/b.json" '.transactions > 0 and .config.peers == 40 and .config.no_check == true and .config.size == 1400'
# --wait block: same counts, blocking recvmsg instead of poll.
"$SB" udp-rr --clients 2 --window 10 --wait block --duration 1 --warmup 0.2 --json >"$TMP/c.json" || fail "wait block failed"
jassert "$TMP/c.json" "$KOK"' .transactions > 0 and .config.wait == "block" and kall'
echo ok
