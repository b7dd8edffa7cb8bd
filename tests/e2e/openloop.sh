# Open loop (udp-rr --rate) and the knee: the achieved rate is the offered one; a 300 ms pause
# of the server shows in the corrected p99 of an open-loop run and not in a closed loop's;
# the usage errors; a short knee search.
# solo: the generator must hold its rate and the knee find its p99 within 5 ms from 2,000/s: beside another test under ASan (CI) the lowest rate failed already
. "$(dirname "$0")/lib.sh"
need jq

# 1. At a modest rate one client carries (5,000/s: a fifth of what one closed-loop client
# moves here), the achieved rate is the offered one within 1%, plus what the rate moves in the
# delays between the window's edges and the clients seeing them (lib.sh's lag). The generator
# holds its load, sent what its schedule put in the window, and the service time (from the
# actual send) is never above the latency from the scheduled send.
#    Beside a busy CPU the generator may not hold its schedule: then the run must say so and
# blame its own CPU (partial, the reason naming it, its threads' run delay measured), and is
# tried again, up to three times; the rate checks need a run that held (a busy loop pinned to
# a CPU of two starved one for 0.84 s of a 3 s window here). Three runs that did not hold, each
# saying so, leave that shape's rate checks undone (said), and the test goes on.
held() { # OUT ARGS...: 0 once a run held its load; 1 when three did not, each saying why
	local out=$1
	shift
	for _ in 1 2 3; do
		"$SB" "$@" --json >"$out" 2>"$out.err"
		jq -e '.holding_load == true' "$out" >/dev/null && return 0
		jassert "$out" '.partial and (.holding_load_reason | test("its own CPU or scheduling")) and .sides.client.run_delay_s > 0' '{partial_reason, holding_load_reason, run_delay: .sides.client.run_delay_s}'
		echo "not held, said so: $(jq -r .holding_load_reason "$out" | cut -c1-120)"
	done
	return 1
}
r=5000
f=$TMP/c.json
unheld() { echo "$1: rates not checked: the generator never held in three tries beside this machine's load (each said so)"; }
if held "$f" udp-rr --clients 1 --rate $r --duration 1.5 --warmup 0.5; then
	jassert "$f" '.partial == false and .holding_load == true and .holding_load_reason == null and .offered_rate == '$r '{partial_reason, holding_load_reason, schedule_lag_us}'
	jassert "$f" "$KOK"' ((.achieved_rate - '$r') | fabs) <= 0.01 * '$r' + '$r' * lag / .duration_s' '{achieved_rate, sent_rate, duration_s, kernel_check}'
	jassert "$f" "$KOK"' ((.scheduled - '$r' * .duration_s) | fabs) <= 0.01 * '$r' * .duration_s + '$r' * lag' '{scheduled, duration_s, kernel_check}'
	jassert "$f" '.dropped_by_generator == 0 and .lost == 0 and .sent_rate >= 0.99 * .offered_rate'
	jassert "$f" '.service_latency_us.p50 <= .latency_us.p50 * 1.004 and .service_latency_us.p99 <= .latency_us.p99 * 1.004 and .service_latency_us.count == .latency_us.count' '{l: (.latency_us | del(.cdf)), s: (.service_latency_us | del(.cdf))}'
	jassert "$f" '.schedule_lag_us.p99 <= .schedule_lag_us.max and .schedule_lag_us.max > 0'
	echo "constant: $(jq -c '{achieved_rate, sent_rate, schedule_lag_us, p99: .latency_us.p99, service_p99: .service_latency_us.p99}' "$f")"
else unheld "constant $r/s"; fi
# Poisson arrivals: the count in a window of T s has a standard deviation of sqrt(r T), so the
# rate is within 4 of them (plus the edges' lag) of r.
if held "$TMP/p.json" udp-rr --clients 1 --rate $r --arrivals poisson --duration 1.5 --warmup 0.5; then
	jassert "$TMP/p.json" "$KOK"' .holding_load and ((.achieved_rate - '$r') | fabs) <= 4 * ('$r' * .duration_s | sqrt) / .duration_s + 0.01 * '$r' + '$r' * lag / .duration_s' '{achieved_rate, duration_s, kernel_check}'
	echo "poisson: $(jq -c '{achieved_rate, schedule_lag_us}' "$TMP/p.json")"
else unheld poisson; fi

# tcp-rr and tcp-crr open loop at 1,000/s: the achieved rate as above; tcp-rr sets TCP_NODELAY
# (pipelined requests under Nagle with delayed ACKs wait for the next request's ACK: about one
# interval, 1/r, each), so its service p50 is under half an interval.
r=1000
for w in tcp-rr tcp-crr; do
	held "$TMP/$w.json" $w --rate $r --duration 1.5 --warmup 0.3 || { unheld "$w --rate $r"; continue; }
	jassert "$TMP/$w.json" "$KOK"' .holding_load and .offered_rate == '$r' and ((.achieved_rate - '$r') | fabs) <= 0.01 * '$r' + '$r' * lag / .duration_s + 1 / .duration_s' '{achieved_rate, holding_load_reason, duration_s}'
done
jassert "$TMP/tcp-rr.json" '.config.nodelay == true and ((.holding_load | not) or .service_latency_us.p50 < 0.5e6 / '$r')' '{nodelay: .config.nodelay, s: (.service_latency_us | del(.cdf))}'

# 2. The server stopped (SIGSTOP) for at least P = 0.3 s inside the window. Open loop at r =
# 400/s: the r P = 120 requests due meanwhile wait in the server's socket (120 datagrams fit
# its default buffer: RcvbufErrors must stay 0) and each is answered after it resumes, its
# wait (P - its due time into the pause) counted from its schedule. Of N answered requests the
# p99 is the (0.01 N + 1)-th slowest, so it waited at least P - (0.01 N + 1) / r (histogram
# buckets: 0.4% low at most). The generator never waited on the server: it held its load, and
# the service time shows the pause as well. --timeout 2000: no delayed request counts lost.
start_agent
srv=127.0.0.1:$AGENT_PORT
paused_run() { # name, udp-rr flags: a run against the agent, stopped 0.3 s a second into it
	local name=$1 run
	shift
	SOCKBENCH_PROGRESS=1 "$SB" udp-rr --server $srv --clients 1 --timeout 2000 --duration 2.5 --warmup 0.3 --json "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" &
	run=$!
	PIDS+=("$run")
	wait_window "$run" "$TMP/$name.err"
	kill -STOP "$AGENT_PID"
	sleep 0.3
	kill -CONT "$AGENT_PID"
	wait $run || fail "$name run with a pause: $(cat "$TMP/$name.err")"
}
r=400
f=$TMP/o.json
for try in 1 2 3; do # a generator starved of its CPU (said so) goes again, as held() does
	paused_run o --rate $r
	jq -e '.holding_load == true or (.holding_load_reason // "" | test("its own CPU") | not)' "$f" >/dev/null && break
	echo "open loop, paused: try $try: not held, said so: $(jq -r .holding_load_reason "$f" | cut -c1-120)"
done
if jq -e '.holding_load == true or (.holding_load_reason // "" | test("its own CPU") | not)' "$f" >/dev/null; then
	jassert "$f" '.kernel.RcvbufErrors == 0 and .lost == 0 and .holding_load == true' '{kernel, lost, holding_load_reason}'
	jassert "$f" '((0.3 - (0.01 * .transactions + 1) / '$r') * 1e6 * 0.996) as $lo | .latency_us.p99 >= $lo and .service_latency_us.p99 >= $lo and $lo > 100000' '{transactions, l: (.latency_us | del(.cdf)), s: (.service_latency_us | del(.cdf))}'
	echo "open loop, paused: $(jq -c '{transactions, p99: .latency_us.p99, service_p99: .service_latency_us.p99, max: .latency_us.max}' "$f")"
else unheld "open loop, paused"; fi
# Closed loop, the same pause: 1 client x 1 outstanding, so at most clients x window = 1
# request waits through it (its round trip, the max, shows the pause); when that is under 1%
# of the answered ones, p99 is a round trip that did not wait, under a third of the pause.
paused_run k --window 1
f=$TMP/k.json
jassert "$f" '.config.clients * .config.window < 0.01 * .transactions and .latency_us.max >= 300000 * 0.996 and .latency_us.p99 < 100000' '{transactions, l: (.latency_us | del(.cdf))}'
echo "closed loop, paused: $(jq -c '{transactions, p99: .latency_us.p99, max: .latency_us.max}' "$f")"
kill "$AGENT_PID"

# 3. Usage errors: exit 2, one line.
expect_usage "--wait block is not applicable with --rate" udp-rr --rate 1000 --wait block
expect_usage "--window is the closed loop's" udp-rr --rate 1000 --window 10
expect_usage "--arrivals needs --rate" udp-rr --arrivals poisson
expect_usage "--slo p99=fast" knee udp-rr --slo p99=fast
expect_usage "--slo p98=1ms" knee udp-rr --slo p98=1ms
expect_usage "has no open-loop mode" knee tcp-stream

# 4. A short knee search on one client (p99 within 5 ms, 2,000/s to 64,000/s, 25 s): it ends
# within its budget and a run's set-up (10 s), its runs are listed by offered rate, and the
# knee's runs mostly passed: held their load, p99 within the limit.
t0=$(date +%s)
timeout 60 "$SB" knee udp-rr --clients 1 --slo p99=5ms --min-rate 2000 --max-rate 64000 --budget 25 --json --plot "$TMP/knee.svg" >"$TMP/knee.json" 2>"$TMP/knee.err" || fail "knee: $(cat "$TMP/knee.err")"
[ $(( $(date +%s) - t0 )) -le 35 ] || fail "knee took $(( $(date +%s) - t0 )) s on a 25 s budget"
f=$TMP/knee.json
jassert "$f" '.kind == "knee" and .slo.percentile == 99 and .slo.limit_us == 5000 and (.points | length) >= 3'
jassert "$f" '[.points[].offered_rate] as $o | $o == ($o | sort)' '[.points[].offered_rate]'
jassert "$f" '.knee.rate as $r | $r > 0 and ([.points[] | select(.offered_rate == $r)] as $p | ($p | map(select(.pass)) | length) * 2 > ($p | length))' '.knee'
jassert "$f" '.knee.rate as $r | [.points[] | select(.offered_rate == $r and .pass)] | length > 0 and all(.holding_load and .p99_us <= 5000 and .achieved_rate >= 0.98 * .offered_rate)' '.points'
grep -q "<svg" "$TMP/knee.svg" || fail "no plot"
# The plot (issue 43): a log x whose ticks are the ramp's doublings (a linear axis marks 3000),
# each run marked passed or failed, the SLO line named, and nothing from gnuplot on stderr.
for r in $(jq -r '[.points[].offered_rate | select(. == 2000 or . == 4000 or . == 8000 or . == 16000)] | unique | .[]' "$f"); do
	grep -q ">$r<" "$TMP/knee.svg" || fail "knee's plot has no tick at the ramp's $r/s"
done
grep -Eq "> ?3000<" "$TMP/knee.svg" && fail "knee's plot has a linear x axis (a tick at 3000)"
grep -q "p99 of a run: passed" "$TMP/knee.svg" && grep -q "SLO limit 5000 us" "$TMP/knee.svg" ||
	fail "knee's plot does not mark its runs passed/failed or name the SLO line"
grep -qi "gnuplot\|warning" "$TMP/knee.err" && fail "knee --plot leaked gnuplot: $(head -3 "$TMP/knee.err")"
echo "knee: $(jq -c '.knee' "$f")"
echo ok
