# The suite is isolated from other traffic on this host (run.sh runs each test in a network
# namespace of its own, and the kernel's counters are per namespace): beside a loopback flood in
# another namespace (UDP datagrams and TCP connection attempts to 127.0.0.1 there, bounded in
# count and to 10 s), udp-rr and tcp-rr in this test's namespace count what the kernel of this
# namespace counts (lib.sh's kok: udp-rr's kernel check as udp_rr_json.sh holds it; tcp-rr's
# segments against the kernel's Tcp OutSegs and InSegs), while the flood's namespace's own
# /proc/net/snmp shows the flood ran all along, and more than the check's tolerance: had it
# shared our counters, the check would have failed (OutDatagrams 1,007,039 against our 701,389
# when it was tried in one namespace).
# solo: it makes a loopback flood of its own beside its runs
. "$(dirname "$0")/lib.sh"
need jq
need ip
: "${FLOOD:?set FLOOD to the flood helper}"
[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
# run.sh said it isolates the tests: then this one must be in a namespace of its own.
[ -n "${SOCKBENCH_TEST_NETNS_ON:-}" ] || skip "not run by tests/run.sh with namespaces"
[ "$(readlink /proc/self/ns/net)" != "$(readlink /proc/1/ns/net)" ] ||
	fail "tests/run.sh says the tests are isolated, but this one shares the host's network namespace"
F=sbF$$
ip netns add $F 2>/dev/null || skip "cannot create network namespaces"
fu= ft=
# The floods' timeout passes a TERM on to its flood (lib.sh's cleanup kills with -9: timeout
# alone, its flood left running).
trap 'kill $fu $ft 2>/dev/null; wait $fu $ft 2>/dev/null; ip netns del $F 2>/dev/null; cleanup' EXIT
ip -n $F link set lo up
[ "$(readlink /proc/self/ns/net)" != "$(ip netns exec $F readlink /proc/self/ns/net)" ] ||
	fail "the flood's namespace is this one"

# Row $1's counter $2 in the snmp file $3.
snmp() {
	awk -v row="$1:" -v k="$2" '$1 == row { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c[k] }' "$3"
}
# What the flood's namespace counts: its UDP datagrams and TCP segments out.
flood_counts() {
	ip netns exec $F cat /proc/net/snmp >"$TMP/fsnmp" || fail "cannot read $F's /proc/net/snmp"
	echo "$(snmp Udp OutDatagrams "$TMP/fsnmp") $(snmp Tcp OutSegs "$TMP/fsnmp")"
}

# The flood: as fast as it can, at nice 10 (beside our runs on a small machine it takes what
# they leave; on a larger one, a CPU of its own), 64-byte datagrams to a port nobody listens on
# and connection attempts (each a SYN answered by a reset): 10,000,000 and 2,000,000 at most,
# 10 s at most.
ip netns exec $F timeout 10 nice -n 10 "$FLOOD" udp 127.0.0.1 9 10000000 1e9 --send 53424953 --size 64 >"$TMP/fu" 2>&1 &
fu=$!
PIDS+=("$fu")
ip netns exec $F timeout 10 nice -n 10 "$FLOOD" tcp 127.0.0.1 9 2000000 1e9 >"$TMP/ft" 2>&1 &
ft=$!
PIDS+=("$ft")
# Under way before our runs start: its namespace counts it.
for _ in $(seq 50); do
	read -r u t < <(flood_counts)
	[ "$u" -ge 1000 ] && [ "$t" -ge 100 ] && break
	sleep 0.1
done
[ "$u" -ge 1000 ] && [ "$t" -ge 100 ] ||
	fail "the flood did not start: $u datagrams, $t segments in 5 s ($(cat "$TMP/fu" "$TMP/ft"))"

# A run $1 (udp-rr, tcp-rr) here, the flood's counters read around it: F_UDP and F_TCP, what
# the flood sent meanwhile, and F_S, the seconds it took.
run_beside() {
	local w=$1 u0 t0 u1 t1 s0 s1
	shift
	read -r u0 t0 < <(flood_counts)
	s0=$(date +%s%N)
	"$SB" "$w" --duration 2 --warmup 0.5 --json "$@" >"$TMP/$w.json" 2>"$TMP/$w.err" ||
		fail "$w beside the flood: $(cat "$TMP/$w.err")"
	s1=$(date +%s%N)
	read -r u1 t1 < <(flood_counts)
	kill -0 $fu 2>/dev/null && kill -0 $ft 2>/dev/null ||
		fail "the flood ended before $w did: it no longer floods ($(cat "$TMP/fu" "$TMP/ft"))"
	F_UDP=$((u1 - u0)) F_TCP=$((t1 - t0)) F_S=$(awk "BEGIN { print ($s1 - $s0) / 1e9 }")
	# It really flooded all along.
	awk "BEGIN { exit !($F_UDP >= 1000 * $F_S && $F_TCP >= 200 * $F_S) }" ||
		fail "$w: the flood sent only $F_UDP datagrams and $F_TCP segments in its ${F_S}s"
}

run_beside udp-rr
f=$TMP/udp-rr.json
jassert "$f" '.partial == false and .transactions > 0 and .kernel.OutDatagrams > 0'
jassert "$f" "$KOK"' kall and (.kernel_check.counters | has("InDatagrams") and has("OutDatagrams"))' '.kernel_check'
# The flood, in our namespace, would have been past the check's tolerance (2% plus 3): its
# datagrams in the window alone (its rate over the run times the window).
jassert "$f" "(.kernel_check.counters.OutDatagrams.kernel * 0.02 + 3) < $F_UDP / $F_S * .duration_s" \
	"{k: .kernel_check.counters.OutDatagrams, flood: $F_UDP, flood_s: $F_S, duration_s}"
echo "udp-rr: $(jq -c '.kernel_check.counters | map_values({ours, kernel})' "$f"); the flood meanwhile: $F_UDP datagrams, $F_TCP segments in ${F_S}s"

run_beside tcp-rr
f=$TMP/tcp-rr.json
jassert "$f" '.partial == false and .transactions > 0 and .errors == 0 and .kernel_check.scope == "client+server"'
# tcp-rr's segments: each request and each answer is one (a byte each, with the ACK), so the
# kernel's TCP segments out and in are both sides' messages sent and received (within kok).
TSEG="$KOK"' lag as $l | .duration_s as $d | .sides as $s |
	{ours: ($s.client.packets_sent + $s.server.packets_sent), kernel: .kernel.OutSegs},
	{ours: ($s.client.packets_received + $s.server.packets_received), kernel: .kernel.InSegs}'
jq -e "[$TSEG | kok(\$d; \$l)] | all" "$f" >/dev/null ||
	fail "tcp-rr: our segments and the kernel's differ: $(jq -c "[$TSEG]" "$f")"
jassert "$f" "(.kernel.OutSegs * 0.02 + 3) < $F_TCP / $F_S * .duration_s" \
	"{k: .kernel.OutSegs, flood: $F_TCP, flood_s: $F_S, duration_s}"
echo "tcp-rr: $(jq -c "[$TSEG]" "$f"); the flood meanwhile: $F_UDP datagrams, $F_TCP segments in ${F_S}s"
kill $fu $ft 2>/dev/null
echo ok
