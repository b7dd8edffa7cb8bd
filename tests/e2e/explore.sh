# explore udp-rr within a 20 s budget: completes, ranks at least 6 strategies with speedups,
# intervals and verdicts, and says why any strategy was not tried; bad flags exit 2.
. "$(dirname "$0")/lib.sh"
need jq
t0=$(date +%s)
"$SB" explore udp-rr --budget 20 --json >"$TMP/x.json" 2>"$TMP/err" || fail "explore failed: $(cat "$TMP/err")"
took=$(($(date +%s) - t0))
[ $took -le 25 ] || fail "explore took $took s for a 20 s budget"
f=$TMP/x.json
jassert "$f" '.kind == "explore" and .workload == "udp-rr" and (.strategies | length) >= 6'
jassert "$f" '.strategies | all(has("name") and has("flags") and has("transactions_per_s") and has("speedup") and has("ci_low") and has("ci_high") and has("verdict"))'
jassert "$f" '.strategies | all(.ci_low <= .speedup and .speedup <= .ci_high and .transactions_per_s > 0)'
jassert "$f" '.strategies | all(.sides.client.cpu_us_per_transaction > 0 and .sides.server.cpu_us_per_transaction > 0)'
jassert "$f" '[.strategies[].speedup] as $s | $s == ($s | sort | reverse)'
jassert "$f" '.strategies | all(.verdict == "faster" or .verdict == "slower" or .verdict == "no real difference")'
# Batching cuts the syscalls per transaction of both sides, whatever the noise does to rates.
jassert "$f" '(.strategies[] | select(.flags == "--batch 32") | .sides.server.syscalls_per_transaction) < .baseline.sides.server.syscalls_per_transaction / 4'
# A strategy already in the baseline is not tried, and says why.
"$SB" explore udp-rr --connected --budget 20 --json >"$TMP/y.json" || fail "explore --connected failed"
jassert "$TMP/y.json" '.not_applicable | any(.flags == "--connected" and .reason == "already in the baseline")'
expect_usage "--budget 1 is out of range" explore udp-rr --budget 1
expect_usage "unknown workload 'nope'" explore nope
expect_usage "too short" explore udp-rr --budget 5 --runs 5
echo "ok ($took s)"
