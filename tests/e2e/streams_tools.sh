# The bulk workloads with the rest of sockbench: against a standalone agent (and its death),
# Ctrl-C, --runs, compare, sweep, explore and --profile.
. "$(dirname "$0")/lib.sh"
need jq

start_agent
"$SB" tcp-stream --server 127.0.0.1:$AGENT_PORT --reverse --duration 1 --warmup 0.2 --json >"$TMP/a.json" || fail "tcp-stream against the agent failed"
jassert "$TMP/a.json" '.gbit_per_s > 0.5 and .sides.server.processes == 1 and .sides.server.bytes_sent > 0 and .kernel_check.scope == "client+server"'
# Through the agent the sender (the server, reversed) sees each edge a control message after
# the kernel's reads, and a 1 s window holds few retransmits, each loss a burst of them: a
# share of 50% (9 against 13 failed the 2% of kall in CI).
tcp_kernel_agrees "$TMP/a.json" 0.5
"$SB" udp-stream --server 127.0.0.1:$AGENT_PORT --rate 20000 --rcvbuf 4194304 --duration 1 --warmup 0.2 --json >"$TMP/b.json" || fail "udp-stream against the agent failed"
jassert "$TMP/b.json" "$KOK"' drops_seen and held(20000) and .sides.server.processes == 1' '{loss, packets_per_s, duration_s, kernel_check, holding_load_reason}'
"$SB" udp-stream --server 127.0.0.1:$AGENT_PORT --reverse --rate 20000 --rcvbuf 4194304 --duration 1 --warmup 0.2 --json >"$TMP/b.json" || fail "udp-stream --reverse against the agent failed"
jassert "$TMP/b.json" "$KOK"' drops_seen and held(20000) and .sides.server.packets_sent > 0' '{loss, packets_per_s, duration_s, kernel_check, holding_load_reason}'
# A pace no sender can keep (10,000,000 datagrams/s, one syscall each): partial, and it says so.
"$SB" udp-stream --rate 10000000 --duration 0.3 --warmup 0.1 --json >"$TMP/b.json" 2>/dev/null || fail "udp-stream at 10,000,000/s failed"
jassert "$TMP/b.json" '.partial and .holding_load == false and .packets_sent_per_s < 1e7 and (.partial_reason | test("the client sent [0-9,]+/s of --rate 10,000,000"))' '{partial_reason, packets_sent_per_s}'

# The agent dies mid-run: a partial report within seconds, exit 1, what the client measured.
kill_agent_mid_run "$TMP/c.json" tcp-stream
jassert "$TMP/c.json" '.partial == true and .sides.server == null and .sides.client.bytes_sent > 0'
# Its rate: what the clients sent over the window (the most the server can have received; it
# read 0 Gbit/s), and the report says so.
jassert "$TMP/c.json" '.rate > 0 and ((.rate * .duration_s / (.sides.client.bytes_sent / 1e6) - 1) | fabs) < 0.01 and ((.gbit_per_s / (.rate * 8 / 1e3) - 1) | fabs) < 0.01' '{rate, gbit_per_s, duration_s, c: .sides.client}'

# Ctrl-C: partial, exit 0, within 2 s, for both.
for wl in tcp-stream udp-stream; do
	SOCKBENCH_PROGRESS=1 "$SB" $wl --duration 30 --warmup 0.2 --json >"$TMP/i.json" 2>"$TMP/i.err" &
	pid=$!
	PIDS+=("$pid")
	wait_window "$pid" "$TMP/i.err" 0.3
	kill -INT "$pid"
	for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$pid" 2>/dev/null && fail "$wl still running 2 s after SIGINT"
	wait "$pid" || fail "$wl: exit $? after SIGINT"
	jassert "$TMP/i.json" '.partial == true and (.partial_reason | test("interrupted")) and .rate > 0'
done

# --runs, compare (the rate is the stream's unit) and sweep.
"$SB" udp-stream --runs 2 --duration 0.5 --warmup 0.2 --json >"$TMP/r.json" || fail "--runs failed"
jassert "$TMP/r.json" '.summary.rate.median > 0 and .summary.loss_pct.runs == 2 and .summary.packets_sent_per_s.median > 0'
# Paced at 5,000/s and at 20,000/s (a receive buffer that holds 0.2 s of B): B is 4x what A
# is, as far as each side held its pace (beside another test a receiver kept off its CPU lost
# some of B's: 3.72x was seen), and compare says so at 3 pairs: its ratio is the geometric
# means' and over 2, its verdict "B is". Unpaced, neither side's rate is its own: GSO's 16
# datagrams a send overran the receiver (CI: 80% lost against 30%, 1.04x, no verdict).
"$SB" compare 'udp-stream --size 100 --rate 5000 --rcvbuf 4194304 --duration 0.5 --warmup 0.2' \
	'udp-stream --size 100 --rate 20000 --rcvbuf 4194304 --duration 0.5 --warmup 0.2' --runs 3 \
	--json >"$TMP/c.json" || fail "compare failed"
jassert "$TMP/c.json" '.figures[0].key == "rate" and (.figures[0].label | test("packets")) and ((.figures[0].ratio / (.figures[0].b_geomean / .figures[0].a_geomean) - 1) | fabs) < 1e-9 and .figures[0].ratio > 2 and .figures[0].ratio < 4.4 and (.verdict | startswith("B is"))' '{verdict, f: .figures[0]}'
# A stream's loss is datagrams that never arrived, not requests (a 2 KB receive buffer under an
# unpaced sender drops most of them).
"$SB" compare 'udp-stream --size 100 --rcvbuf 2048 --duration 0.3 --warmup 0.1' \
	'udp-stream --size 100 --gso 16 --rcvbuf 2048 --duration 0.3 --warmup 0.1' --runs 2 \
	--json >"$TMP/l.json" || fail "lossy compare failed"
jassert "$TMP/l.json" '(.verdict | test("lost datagrams: [0-9.]+% of A.s, [0-9.]+% of B.s never arrived")) and (.verdict | test("request") | not)' '.verdict'
"$SB" sweep tcp-stream --size 16384,131072 --duration 0.5 --warmup 0.2 --csv "$TMP/s.csv" >/dev/null || fail "sweep failed"
[ "$(wc -l <"$TMP/s.csv")" -eq 3 ] || fail "sweep CSV: $(cat "$TMP/s.csv")"
awk -F, 'NR > 1 && $2 <= 0 { exit 1 }' "$TMP/s.csv" || fail "sweep: a rate of 0: $(cat "$TMP/s.csv")"

# explore ranks the stream's strategies in its own unit.
"$SB" explore udp-stream --size 100 --budget 18 --runs 2 --json >"$TMP/e.json" || fail "explore failed"
jassert "$TMP/e.json" '(.strategies | length) >= 6 and (.strategies | all(.unit == "packet" and .rate > 0 and has("speedup") and has("verdict") and .sides.client.cpu_us_per_unit > 0))' '.strategies | map({name, rate})'

# --profile: where a stream's time goes.
"$SB" tcp-stream --profile --duration 1 --warmup 0.2 --json >"$TMP/p.json" || fail "--profile failed"
# As root the profiler must work (a refusal fails the test); as another user it must say why.
if [ "$(id -u)" -eq 0 ]; then
	jassert "$TMP/p.json" '.profile.available == true and (.profile.functions | length) > 5 and (.profile.syscalls.client | length) > 0' '.profile | {available, error}'
else
	jassert "$TMP/p.json" '.profile.available == false and (.profile.error | length) > 0'
fi
echo ok
