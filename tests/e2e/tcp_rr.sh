# tcp-rr: a 2-second run with latency percentiles; flows and a window; bigger answers.
. "$(dirname "$0")/lib.sh"
need jq
"$SB" tcp-rr --duration 2 --warmup 0.3 --json >"$TMP/a.json" || fail "tcp-rr failed"
jassert "$TMP/a.json" '.partial == false and .transactions > 0 and .errors == 0'
jassert "$TMP/a.json" '.latency_us | (.count > 0 and .min > 0 and .min <= .p50 and .p50 <= .p90 and .p90 <= .p99 and .p99 <= .p999 and .p999 <= .p9999 and .p9999 <= .max)'
# The server may miss one transaction at each edge of the window (window 1): at the start the
# request it answered in the warm-up, whose answer the client counts; at the end the one it
# answered just after END reached it, which the client, still in its window, counts.
jassert "$TMP/a.json" '.bytes_received == .transactions and .sides.server.bytes_received >= .transactions - 2 and .sides.server.bytes_received <= .transactions + 2' '{transactions, bytes_received, s: .sides.server}'
"$SB" tcp-rr --clients 2 --flows 3 --window 4 --request 100 --response 5000 --nodelay --recv waitall \
	--duration 1 --warmup 0.2 --json >"$TMP/b.json" || fail "tcp-rr with flows failed"
jassert "$TMP/b.json" '.transactions > 0 and .bytes_received == .transactions * 5000 and .errors == 0'
echo ok
