# tcp-crr: 2000 connections, every byte counted, the kernel's Tcp opens equal our count; back to
# back twice; --close client/reset; concurrency; a time-based window; a server that misbehaves.
. "$(dirname "$0")/lib.sh"
need jq
run() { "$SB" tcp-crr --json "$@" >"$TMP/r.json" || fail "tcp-crr $* failed: $(cat "$TMP/r.json")"; }

for round in 1 2; do # back to back: no port exhaustion on the second
	run --conns 2000 --warmup-conns 100
	f=$TMP/r.json
	jassert "$f" '.partial == false and .connections == 2000 and .transactions == 2000' '{connections, partial, partial_reason}'
	jassert "$f" '.bytes_received == 2000 * 2 * 10000 and .sides.server.bytes_sent == 2000 * 20000'
	jassert "$f" '.kernel.ActiveOpens == 2000 and .kernel.PassiveOpens == 2000' '.kernel'
	jassert "$f" '.kernel_check.counters.ActiveOpens.diff_pct == 0 and .kernel_check.counters.PassiveOpens.diff_pct == 0' '.kernel_check'
	jassert "$f" '.errors == 0 and .connect_latency_us.count == 2000 and .latency_us.p50 > 0'
	jassert "$f" '.sides.client.sys_s > 0 and .sides.client.cpu_us_per_connection > 0 and .sides.server.sys_us_per_connection > 0'
done

for c in client reset; do
	run --conns 1000 --warmup-conns 0 --close $c
	jassert "$TMP/r.json" '.connections == 1000 and .errors == 0 and .kernel.ActiveOpens == 1000' '{connections, errors, kernel}'
done
# An abortive close sends a reset per connection and leaves no TIME_WAIT.
jassert "$TMP/r.json" '.kernel.OutRsts >= 1000 and .kernel.TW < 100' '.kernel'

run --conns 2000 --warmup-conns 0 --clients 2 --concurrency 4 --size 1000 --msgs 3 --request 50
jassert "$TMP/r.json" '.connections == 2000 and .bytes_received == 2000 * 3000 and .sides.server.bytes_received == 2000 * 50 and .kernel.ActiveOpens == 2000' '{connections, bytes_received, kernel}'

run --duration 1 --warmup 0.2
jassert "$TMP/r.json" '.config.conns == 0 and .connections > 100 and (.duration_s > 0.9 and .duration_s < 1.5)' '{config, connections, duration_s}'
# A time-based window (count-based ones above are exact): the kernel's counters are read just
# after each edge, so the connections made between an edge and its read are the kernel's and
# not ours at the open, ours and not the kernel's at the close. The two cancel as far as the
# reads' delays are equal; the difference is at most what the longer one holds at the run's
# rate, plus a connection straddling each edge for us and for the kernel.
jassert "$TMP/r.json" '.kernel_check.read_after_edge_us.open > 0 and .kernel_check.read_after_edge_us.close > 0' '.kernel_check'
jassert "$TMP/r.json" '(.kernel.ActiveOpens - .connections | fabs) <= 4 + (.connections / .duration_s) * ([.kernel_check.read_after_edge_us[]] | max) / 1e6' '{connections, duration_s, kernel, kernel_check}'

# The server closes early or aborts: counted by kind, no hang, every attempt accounted for, each
# in the latencies at what it waited; no connection completed, so the run is partial and exits 1.
for fault in short reset; do
	"$SB" tcp-crr --json --conns 200 --warmup-conns 0 --server-fault $fault >"$TMP/r.json"
	[ $? -eq 1 ] || fail "--server-fault $fault: every connection failed and it did not exit 1"
	jassert "$TMP/r.json" '.connections == 0 and .sides.client.errors_by_kind.'$fault' == 200 and .lost == 200 and .latency_us.unanswered == 200 and .partial and (.partial_reason | test("'$fault' 200"))' '{partial_reason, lost, c: .sides.client.errors_by_kind}'
done
echo ok
