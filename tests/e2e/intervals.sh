# -i (interval reports): for every workload a 2 s window cut into 0.5 s intervals. Each run:
#  - the number of intervals is floor(window / 0.5) = 4, or one more or less: the edges are
#    read on the coordinator's 50 ms steps, and an edge within a tenth of an interval of the
#    close is left to the close, which may make the last interval longer or add a short one;
#  - they tile the window: the first starts at 0, each starts where the previous ended, the
#    last ends at the close (duration_s) within the close's edge delay (lag, lib.sh);
#  - their units add up to the run's own count of what the clients did (transactions,
#    connections; a stream: what its clients sent) within 1% plus what moves in the edges'
#    delays (rate x lag) plus 10: the last interval takes the clients' final counts, so
#    they should agree exactly, and the slack is for a client whose last store raced;
#  - their latency samples add up to latency_us.count within the same slack (request/response);
#  - each interval's p50 and p99 lie within the run's latency_us min..max (+ rounding), and
#    p50 <= p99; a stream's are null; CPU figures are percentages in range.
# Then the text lines (a header and one per interval), the usage errors, and a SIGSTOP of the
# agent inside a udp-rr window, -i 0.25, of at least 0.6 s as tests/helpers/pause.py measures
# it: a pause over two intervals long holds one interval whole, which then has no answer but
# those already queued, so the interval with the least rate is under half the median's. (A
# shell's 0.3 s stop covered 0.6 of an interval at best and gave 0.6x the median once on a
# busy machine, the rest of that interval carrying a catch-up.)
. "$(dirname "$0")/lib.sh"
need jq
CHECK="$KOK"'
def units_of: if .workload == "tcp-stream" then (.sides.client.bytes_sent + .sides.client.bytes_received) / 1e6
	elif .workload == "udp-stream" then .sides.client.packets_sent else .transactions end;
def slack($total): 0.01 * $total + (.rate // 0) * lag + 10;
(.duration_s / 0.5 | floor) as $n
| (.intervals | length) as $k
| units_of as $u
| ($k >= $n - 1 and $k <= $n + 1)
and .intervals_scope == "all clients"
and (.intervals[0] | (.t_s - .len_s) | fabs) < 0.001
and ((.intervals[-1].t_s - .duration_s) | fabs) <= 0.06 + lag
and (([.intervals[].units] | add) - $u | fabs) <= slack($u)
and (.intervals | all(.len_s > 0 and .rate >= 0 and (.machine_busy_pct == null or (.machine_busy_pct >= 0 and .machine_busy_pct <= 100.5))
	and .cpu_client_pct >= 0))
and (if .latency_us.count > 0 then
	((([.intervals[].samples] | add) - .latency_us.count | fabs) <= slack(.latency_us.count))
	and (.latency_us as $l | .intervals | all(.samples == 0 or
		(.p99_us >= $l.min - 0.01 and .p99_us <= $l.max + 0.01 and .p50_us >= $l.min - 0.01 and .p50_us <= .p99_us)))
	else (.intervals | all(.p99_us == null and .p50_us == null)) end)'
# each interval starts where the previous ended (within rounding)
TILE='[range(1; .intervals | length) as $i | (.intervals[$i].t_s - .intervals[$i].len_s - .intervals[$i - 1].t_s) | fabs < 0.001] | all'
for w in udp-rr tcp-rr "tcp-crr --duration 2" tcp-stream udp-stream; do
	n=${w%% *}
	# shellcheck disable=SC2086
	"$SB" $w --duration 2 --warmup 0.3 -i 0.5 --json >"$TMP/$n.json" 2>"$TMP/$n.err" || fail "$w -i 0.5: $(cat "$TMP/$n.err")"
	jassert "$TMP/$n.json" '.partial == false' '.partial_reason'
	jassert "$TMP/$n.json" "$TILE" '[.intervals[] | {t_s, len_s}]'
	jq -e "$CHECK" "$TMP/$n.json" >/dev/null ||
		fail "$w: intervals do not hold: $(jq -c '{duration_s, rate, transactions, count: .latency_us.count, min: .latency_us.min, max: .latency_us.max, lag: .kernel_check.read_after_edge_us, c: .sides.client | {bytes_sent, bytes_received, packets_sent}, i: [.intervals[] | {t_s, len_s, units, samples, p50_us, p99_us}]}' "$TMP/$n.json")"
done
# Without -i: no key, no line.
"$SB" udp-rr --duration 0.3 --warmup 0.1 --json >"$TMP/none.json" || fail "udp-rr without -i"
jassert "$TMP/none.json" 'has("intervals") or has("intervals_scope") | not'
# Text mode: the run's description first, a header, then a line per interval, before the report
# (which does not repeat the description).
"$SB" tcp-rr --duration 1 --warmup 0.2 -i 0.25 >"$TMP/text" 2>"$TMP/text.err" || fail "tcp-rr text: $(cat "$TMP/text.err")"
head -1 "$TMP/text" | grep -q '^sockbench tcp-rr: 1 client x 1 flow' || fail "the description is not the first line: $(head -3 "$TMP/text")"
sed -n 2p "$TMP/text" | grep -q '^interval s ' || fail "the interval header is not the second line: $(head -3 "$TMP/text")"
[ "$(grep -c '^sockbench tcp-rr:' "$TMP/text")" = 1 ] || fail "the description printed twice: $(cat "$TMP/text")"
grep -q '^interval s .*transactions/s .*p50 us .*p99 us .*client% .*server% .*busy% .*retransmits' "$TMP/text" ||
	fail "no interval header: $(head -3 "$TMP/text")"
lines=$(grep -cE '^ *[0-9]+\.[0-9]{2}- *[0-9]+\.[0-9]{2} +[0-9.,]+ +[0-9.,]+ +[0-9.,]+ ' "$TMP/text")
# ... their counts with thousands separators, as the report's (no bare 10000 or more).
bare=$(grep -E '^ *[0-9]+\.[0-9]{2}- ' "$TMP/text" | grep -E '(^|[^0-9.,])[0-9]{5,}')
[ -z "$bare" ] || fail "interval lines without thousands separators: $bare"
[ "$lines" -ge 3 ] && [ "$lines" -le 5 ] || fail "$lines interval lines for 1 s / 0.25: $(cat "$TMP/text")"
# A stream's lines in Gbit/s, as its plot and its throughput line (issue 43): the column's mean
# within 15% of the run's Gbit/s.
"$SB" tcp-stream --duration 1 --warmup 0.2 -i 0.25 >"$TMP/stext" 2>"$TMP/stext.err" || fail "tcp-stream text: $(cat "$TMP/stext.err")"
grep -q '^interval s .* Gbit/s ' "$TMP/stext" || fail "tcp-stream's -i is not in Gbit/s: $(head -1 "$TMP/stext")"
grep -q 'megabytes/s' "$TMP/stext" && fail "tcp-stream's -i still says megabytes/s"
awk '/^ *[0-9]+\.[0-9][0-9]- *[0-9.]+ +[0-9.]+ / {s += $2; n++} /throughput \(Gbit\/s\)/ {g = $3}
	END {exit !(n > 0 && g > 0 && (s / n / g - 1) ^ 2 < 0.15 ^ 2)}' "$TMP/stext" ||
	fail "tcp-stream's -i lines are not Gbit/s: $(cat "$TMP/stext")"
# Usage errors: exit 2, one line.
expect_usage "give at least 0.1" udp-rr -i 0
expect_usage "longer than the window" udp-rr --duration 1 -i 2
expect_usage "time-based window" tcp-crr -i 0.5
expect_usage "a latency histogram (37 KiB) per connection" tcp-crr --duration 2 --clients 20 --concurrency 256 -i 1
# A 300 ms pause of the server inside the window: a dip in the interval holding it.
pausable_agent
SOCKBENCH_PROGRESS=1 "$SB" udp-rr --server 127.0.0.1:"$AGENT_PORT" --duration 3 --warmup 0.3 -i 0.25 \
	--json >"$TMP/pause.json" 2>"$TMP/pause.err" &
pid=$!
PIDS+=("$pid")
wait_window "$pid" "$TMP/pause.err"
paused=$(python3 "$PAUSE" "$AGENT_PID" 0 0.6)
wait "$pid" || fail "udp-rr with a paused server: $(cat "$TMP/pause.err")"
awk -v p="$paused" 'BEGIN { exit !(p >= 2 * 0.25) }' || fail "the pause lasted $paused s, not two intervals"
jassert "$TMP/pause.json" '[.intervals[].rate] | sort as $r | ($r[length / 2 | floor]) as $med | $r[0] < $med / 2' \
	'[.intervals[] | {t_s, rate}]'
# ... and it is the one the pause fell in: a second or more into the window, not the last.
jassert "$TMP/pause.json" '(.intervals | min_by(.rate)) as $m | $m.t_s > 0.9 and $m.t_s < .duration_s - 0.2' \
	'[.intervals[] | {t_s, rate}]'
echo ok
