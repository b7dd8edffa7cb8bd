# What a new user reads: a rate without decimals in --runs' table, udp-stream's two CPU per
# packet figures labelled as the different things they are (per packet sent in the headline,
# per packet received in the sides' table), and a flag of another workload pointing at a file
# that exists.
. "$(dirname "$0")/lib.sh"
"$SB" udp-rr --duration 0.3 --warmup 0.1 --runs 2 >"$TMP/runs.txt" 2>/dev/null || fail "--runs 2"
grep -qE '^  transactions/s +[0-9]+ +[0-9]+ +[0-9]+ ' "$TMP/runs.txt" ||
	fail "the rate's row has decimals or is missing: $(grep transactions/s "$TMP/runs.txt")"
"$SB" udp-stream --duration 0.3 --warmup 0.1 >"$TMP/us.txt" 2>/dev/null || fail "udp-stream"
grep -qE '^  CPU us per packet +client [0-9.]+ per packet sent, server [0-9.]+ per packet received' "$TMP/us.txt" ||
	fail "udp-stream's headline: $(grep 'CPU us per packet' "$TMP/us.txt")"
grep -qE '^  CPU us per packet received +[0-9.]+ +[0-9.]+$' "$TMP/us.txt" ||
	fail "udp-stream's sides table does not say per packet received: $(grep 'CPU us' "$TMP/us.txt")"
expect_usage "see docs/workloads.md" tcp-crr --batch 4
[ -f "$(dirname "$0")/../../docs/workloads.md" ] || fail "the message points at docs/workloads.md, which is missing"
echo ok
