# The agent: shared-secret auth, one controller at a time, caps, and 1,000 random and mutated
# control frames, after which it still runs a normal test.
. "$(dirname "$0")/lib.sh"
need jq
run="--duration 0.5 --warmup 0.1 --json"
head -c 32 /dev/urandom | base64 >"$TMP/secret"
chmod 600 "$TMP/secret"
head -c 32 /dev/urandom | base64 >"$TMP/wrong"
start_agent --auth-file "$TMP/secret"
srv=127.0.0.1:$AGENT_PORT

"$SB" udp-rr --server $srv --auth-file "$TMP/secret" $run >"$TMP/ok.json" || fail "right secret refused"
jassert "$TMP/ok.json" '.transactions > 0'
"$SB" udp-rr --server $srv --auth-file "$TMP/wrong" $run >/dev/null 2>"$TMP/e1"
[ $? -eq 1 ] && grep -q "authentication failed" "$TMP/e1" || fail "wrong secret: $(cat "$TMP/e1")"
expect_usage "requires authentication: give --auth-file" udp-rr --server $srv $run
grep -q "refused: authentication failed" "$TMP/agent.log" || fail "refusal not logged: $(cat "$TMP/agent.log")"
# The secret never crosses the wire, nor the path of the file it is in: a session through a
# proxy that records every byte both ways holds neither (and does hold the handshake).
exec {pfd}< <(python3 "$(dirname "$0")/../helpers/capture_proxy.py" "$AGENT_PORT" "$TMP/wire")
PIDS+=("$!")
read -r -t 5 -u $pfd pport || fail "the capture proxy did not start"
"$SB" udp-rr --server 127.0.0.1:$pport --auth-file "$TMP/secret" $run >"$TMP/proxied.json" ||
	fail "a run through the capture proxy"
jassert "$TMP/proxied.json" '.transactions > 0'
grep -qa '"challenge"' "$TMP/wire" && grep -qa '"mac"' "$TMP/wire" || fail "the capture holds no handshake"
grep -qaF "$(head -c 20 "$TMP/secret")" "$TMP/wire" && fail "the secret crossed the wire"
grep -qaF "$TMP/secret" "$TMP/wire" && fail "the secret file's path crossed the wire"
grep -qa '"auth_file"' "$TMP/wire" && fail "the SETUP carries an auth_file key"
expect_usage "secret must be 16" udp-rr --server $srv --auth-file /dev/null $run

# Busy: a second controller while a test runs is told so; with --busy-wait it tries again
# and runs once the first is done, without it (0 s) it gives up at once.
SOCKBENCH_PROGRESS=1 "$SB" udp-rr --server $srv --auth-file "$TMP/secret" --duration 4 --warmup 0 --json >/dev/null 2>"$TMP/first.err" &
PIDS+=("$!")
wait_window "${PIDS[-1]}" "$TMP/first.err" 0
"$SB" udp-rr --server $srv --auth-file "$TMP/secret" $run --busy-wait 0 >/dev/null 2>"$TMP/e2"
[ $? -eq 1 ] && grep -q "busy" "$TMP/e2" || fail "second controller: $(cat "$TMP/e2")"
start=$(date +%s%N)
"$SB" udp-rr --server $srv --auth-file "$TMP/secret" $run >"$TMP/waited.json" 2>"$TMP/e2b" ||
	fail "a controller that waits for a busy agent: $(cat "$TMP/e2b")"
grep -q "busy with another test; trying again" "$TMP/e2b" || fail "no word of the wait: $(cat "$TMP/e2b")"
jassert "$TMP/waited.json" '.transactions > 0 and .partial == false'
waited=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$waited" -ge 1000 ] || fail "served after $waited ms, while the first test still ran"
wait "${PIDS[-1]}" || fail "the first controller's test failed"

# A controller that vanishes mid-test (kill -9): the agent ends that test and serves the next.
SOCKBENCH_PROGRESS=1 "$SB" udp-rr --server $srv --auth-file "$TMP/secret" --duration 30 --warmup 0 --json >/dev/null 2>"$TMP/v.err" &
ctl=$!
wait_window $ctl "$TMP/v.err" 0
kill -9 $ctl
wait $ctl 2>/dev/null
for _ in $(seq 50); do
	"$SB" udp-rr --server $srv --auth-file "$TMP/secret" $run >"$TMP/next.json" 2>"$TMP/e6" && break
	grep -q busy "$TMP/e6" || fail "after a vanished controller: $(cat "$TMP/e6")"
	sleep 0.2
done
jassert "$TMP/next.json" '.transactions > 0 and .partial == false'

# Caps: named in the refusal.
kill "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null
rm -f "$TMP/ready"
start_agent --max-duration 5 --max-flows 8 --max-buffer 4096
srv=127.0.0.1:$AGENT_PORT
"$SB" udp-rr --server $srv --duration 10 --json >/dev/null 2>"$TMP/e3"; grep -q -- "--max-duration 5" "$TMP/e3" || fail "cap: $(cat "$TMP/e3")"
"$SB" udp-rr --server $srv --peers 20 $run >/dev/null 2>"$TMP/e4"; grep -q -- "--max-flows 8" "$TMP/e4" || fail "cap: $(cat "$TMP/e4")"
"$SB" udp-rr --server $srv --size 5000 $run >/dev/null 2>"$TMP/e5"; grep -q -- "--max-buffer 4096" "$TMP/e5" || fail "cap: $(cat "$TMP/e5")"

# 1,000 random and mutated frames: every one answered or dropped, the agent alive after.
good=$(printf 'SKBN\0\2\0\4\0\0\0\55{"workload":"udp-rr","config":{"clients":1}}')
for i in $(seq 1000); do
	case $((i % 4)) in
	0) head -c $((RANDOM % 200)) /dev/urandom ;;
	1) printf '%s' "$good" | head -c $((RANDOM % 57)) ;;                            # truncated
	2) printf 'SKBN\0\2\0\1\177\377\377\377' ;;                                       # oversized
	3) printf 'SKBN\0\2\0%b\0\0\0\2{}' "\\$(printf '%03o' $((RANDOM % 14)))" ;;      # any type, out of order
	esac >"$TMP/frame"
	timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$AGENT_PORT; cat '$TMP/frame' >&3; exec 3>&-" 2>/dev/null
done
kill -0 "$AGENT_PID" || fail "the agent died under bad frames"
"$SB" udp-rr --server $srv $run >"$TMP/after.json" || fail "no normal test after the bad frames"
jassert "$TMP/after.json" '.transactions > 0 and .partial == false'
echo ok
