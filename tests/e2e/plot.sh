# --plot FILE.svg on a single run: gnuplot draws the run's own figures. The SVG is written,
# names the workload and its rate, and marks p50/p99/p99.9 at the values the JSON of the same
# run gives; tcp-crr adds connect(); a stream (no latency) draws its CPU per unit. A bad path
# or --runs are usage errors before any work.
# aside: its checks are of the SVG gnuplot draws from each run, none of a rate (7.6 s, 3.7 s of CPU)
. "$(dirname "$0")/lib.sh"
need jq
need gnuplot
"$SB" udp-rr --duration 0.5 --warmup 0.2 --json --plot "$TMP/u.svg" >"$TMP/u.json" 2>"$TMP/u.err" || fail "udp-rr --plot"
# gnuplot's messages (its warnings too) stay off the user's terminal.
[ ! -s "$TMP/u.err" ] || fail "--plot printed: $(head -3 "$TMP/u.err")"
# user and system time in the colours the report page gives them (report/palette.h).
# (#4393c3, #d6604d, as gnuplot's SVG writes them)
for c in "67, *147, *195" "214, *96, *77"; do
	grep -Eq "fill *= *'rgb\( *$c\)" "$TMP/u.svg" || fail "--plot's CPU panel lacks the palette's rgb($c)"
done
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
"$SB" tcp-stream --duration 1 --warmup 0.2 -i 0.25 --plot "$TMP/s.svg" --json >"$TMP/s.json" 2>"$TMP/s.err" || fail "tcp-stream --plot"
[ ! -s "$TMP/s.err" ] || fail "tcp-stream --plot printed: $(head -3 "$TMP/s.err")"
# Its -i panel in Gbit/s, as its rate over the window: no megabytes/s axis.
grep -q ">megabytes/s<" "$TMP/s.svg" && fail "tcp-stream's -i panel is in megabytes/s, its rate in Gbit/s"
grep -q "CPU per megabyte of each side" "$TMP/s.svg" || fail "tcp-stream's plot lacks its CPU panel"
grep -q "rate over the window" "$TMP/s.svg" || fail "tcp-stream's plot lacks the rate over the window"
# The series: a point every 0.1 s of the window, whose mean is the window's rate (what the
# clients sent is what the server received, give or take a socket buffer).
jassert "$TMP/s.json" '.rate_over_window.step_s == 0.1 and (.rate_over_window.points | length) >= 8 and (.rate_over_window.points | length) <= 11' '.rate_over_window | {step_s, n: (.points | length)}'
jassert "$TMP/s.json" '((.rate_over_window.points | map(.[1]) | add / length) / .gbit_per_s - 1 | fabs) < 0.15' '{series: (.rate_over_window.points | map(.[1])), gbit_per_s}'
"$SB" udp-stream --duration 1 --warmup 0.2 --json >"$TMP/us.json" || fail "udp-stream"
jassert "$TMP/us.json" '.sides.client.bytes_sent == .sides.client.packets_sent * .config.size and .sides.client.bytes_sent > 0' '.sides.client'
jassert "$TMP/us.json" '((.rate_over_window.points | map(.[1]) | add / length) * 1e9 / 8 / .config.size / .packets_sent_per_s - 1 | fabs) < 0.15' '{series: (.rate_over_window.points | map(.[1])), packets_sent_per_s}' 
# knee --plot with no knee (nothing holds p99 <= 1 us): the note says so, each run is marked
# failed in the legend, the SLO line is there, and gnuplot says nothing on the terminal (an
# 'empty x range' warning came from a ramp of one rate).
"$SB" knee udp-rr --clients 1 --slo p99=1us --min-rate 2000 --max-rate 4000 --budget 5 --plot "$TMP/k.svg" >/dev/null 2>"$TMP/k.err" && fail "knee with no knee exited 0"
grep -qi "warning\|gnuplot" "$TMP/k.err" && fail "knee --plot leaked gnuplot's messages: $(head -3 "$TMP/k.err")"
for t in "no knee found within the ramp" "of a run: failed" "of a run: passed" "SLO limit 1 us" "log: the ramp doubles"; do
	grep -q "$t" "$TMP/k.svg" || fail "knee's plot lacks '$t'"
done
expect_usage "--plot $TMP/no/u.svg: No such file or directory" udp-rr --plot "$TMP/no/u.svg"
expect_usage "--plot draws one run" udp-rr --runs 2 --plot "$TMP/r.svg"
echo ok
