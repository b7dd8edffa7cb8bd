# Ctrl-C in the window: a partial report and exit 0 within 2 seconds, no process left behind.
. "$(dirname "$0")/lib.sh"
need jq
t_launch=$(date +%s%N)
"$SB" udp-rr --duration 30 --warmup 0.3 --json >"$TMP/r.json" 2>"$TMP/err" &
pid=$!
PIDS+=("$pid")
# Long enough for the set-up and the warm-up on a slow or loaded guest (a sanitizer build, a
# CPU hog): the window it reports is then held to the time that passed, not to a guess.
sleep 3
# Its own agent (a child of the run): another run on this machine has agents of the same name.
agent=$(pgrep -P "$pid" -f "serve" | head -n 1)
[ -n "$agent" ] || fail "no local serve agent under the run"
kill -INT "$pid"
t0=$(date +%s%N)
for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$pid" 2>/dev/null && fail "still running 2 s after SIGINT"
wait "$pid"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc -eq 0 ] || fail "exit $rc after SIGINT: $(cat "$TMP/err")"
jassert "$TMP/r.json" '.partial == true and (.partial_reason | test("interrupted"))'
jassert "$TMP/r.json" ".transactions > 0 and .duration_s > 0 and .duration_s <= ($t0 - $t_launch) / 1e9 - .warmup_s + 0.05" '{transactions, duration_s, warmup_s}'
jassert "$TMP/r.json" '.sides.server != null and .sides.client.processes == 2'
sleep 0.2
kill -0 "$agent" 2>/dev/null && fail "agent $agent left running: $(tr '\0' ' ' </proc/"$agent"/cmdline)"
echo "ok: stopped in $ms ms"
