# --plot FILE.svg on a single run: gnuplot draws the run's own figures. The SVG is written,
# names the workload and its rate, and marks p50/p99/p99.9 at the values the JSON of the same
# run gives; tcp-crr adds connect(); a stream (no latency) draws its CPU per unit. A bad path
# or --runs are usage errors before any work.
. "$(dirname "$0")/lib.sh"
need jq
need gnuplot
"$SB" udp-rr --duration 0.5 --warmup 0.2 --json --plot "$TMP/u.svg" >"$TMP/u.json" || fail "udp-rr --plot"
grep -q "<svg" "$TMP/u.svg" || fail "no SVG written"
grep -q "sockbench udp-rr" "$TMP/u.svg" || fail "the plot does not name the workload"
for p in p50 p99 p999; do
	label=${p/p999/p99.9}
	want=$(jq -r ".latency_us.$p" "$TMP/u.json")
	got=$(grep -o ">$label [0-9.]* us<" "$TMP/u.svg" | head -1 | grep -o "[0-9.]*" | tail -1)
	[ -n "$got" ] || fail "no $label mark in the plot"
	awk -v a="$got" -v b="$want" 'BEGIN {exit !(a - b < 0.11 && b - a < 0.11)}' ||
		fail "the plot marks $label at $got us, the JSON says $want"
done
rate=$(jq -r '.transactions_per_s | round' "$TMP/u.json")
grep -q "$rate transactions/s" "$TMP/u.svg" || fail "the plot's title lacks the rate $rate/s"
grep -q "CPU per transaction of each side" "$TMP/u.svg" || fail "no CPU panel"
"$SB" tcp-crr --conns 2000 --warmup-conns 100 --plot "$TMP/c.svg" >/dev/null || fail "tcp-crr --plot"
grep -q "connect()" "$TMP/c.svg" || fail "tcp-crr's plot lacks connect()"
"$SB" tcp-stream --duration 1 --warmup 0.2 --plot "$TMP/s.svg" --json >"$TMP/s.json" || fail "tcp-stream --plot"
grep -q "CPU per megabyte of each side" "$TMP/s.svg" || fail "tcp-stream's plot lacks its CPU panel"
grep -q "rate over the window" "$TMP/s.svg" || fail "tcp-stream's plot lacks the rate over the window"
# The series: a point every 0.1 s of the window, whose mean is the window's rate (what the
# clients sent is what the server received, give or take a socket buffer).
jassert "$TMP/s.json" '.rate_over_window.step_s == 0.1 and (.rate_over_window.points | length) >= 8 and (.rate_over_window.points | length) <= 11' '.rate_over_window | {step_s, n: (.points | length)}'
jassert "$TMP/s.json" '((.rate_over_window.points | map(.[1]) | add / length) / .gbit_per_s - 1 | fabs) < 0.15' '{series: (.rate_over_window.points | map(.[1])), gbit_per_s}'
"$SB" udp-stream --duration 1 --warmup 0.2 --json >"$TMP/us.json" || fail "udp-stream"
jassert "$TMP/us.json" '.sides.client.bytes_sent == .sides.client.packets_sent * .config.size and .sides.client.bytes_sent > 0' '.sides.client'
jassert "$TMP/us.json" '((.rate_over_window.points | map(.[1]) | add / length) * 1e9 / 8 / .config.size / .packets_sent_per_s - 1 | fabs) < 0.15' '{series: (.rate_over_window.points | map(.[1])), packets_sent_per_s}' 
expect_usage "--plot $TMP/no/u.svg: No such file or directory" udp-rr --plot "$TMP/no/u.svg"
expect_usage "--plot draws one run" udp-rr --runs 2 --plot "$TMP/r.svg"
echo ok
