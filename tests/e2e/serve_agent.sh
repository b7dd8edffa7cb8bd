# The agent standalone: a controller over TCP, garbage on the control port, and an agent that
# dies mid-run (the client reports what it measured, partial, and exits 1 within seconds).
. "$(dirname "$0")/lib.sh"
need jq
start_agent
"$SB" udp-rr --server 127.0.0.1:$AGENT_PORT --duration 1 --warmup 0.2 --json >"$TMP/a.json" \
	|| fail "run against the agent failed"
jassert "$TMP/a.json" '.transactions > 0 and .sides.server.processes == 1 and .kernel_check.scope == "client+server"'
# The agent is on loopback: the kernel's counters hold both sides, and so do ours.
jassert "$TMP/a.json" "$KOK"' kall' '.kernel_check'

# The CPU charged to the server over the window, against the agent's own /proc/PID/stat
# around the whole run (setup and 0.2 s of warm-up add a little; the idle agent nothing).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$AGENT_PID/stat"; }
hz=$(getconf CLK_TCK)
c0=$(cpu_ticks)
"$SB" udp-rr --server 127.0.0.1:$AGENT_PORT --duration 2 --warmup 0.2 --json >"$TMP/cpu.json" || fail "cpu run"
c1=$(cpu_ticks)
jassert "$TMP/cpu.json" "(.sides.server.user_s + .sides.server.sys_s) as \$w | (($c1 - $c0) / $hz) as \$all | \$w <= \$all + 2 / $hz and \$w >= 0.75 * \$all" "{w: (.sides.server.user_s + .sides.server.sys_s), all: (($c1 - $c0) / $hz)}"

# Garbage, a wrong magic and a truncated frame: the agent keeps serving.
exec 3<>/dev/tcp/127.0.0.1/$AGENT_PORT; printf 'GET / HTTP/1.0\r\n\r\n' >&3; exec 3>&-
exec 3<>/dev/tcp/127.0.0.1/$AGENT_PORT; printf 'SKBN\0\2\0\1\0\0\0\50{"tru' >&3; exec 3>&-
"$SB" udp-rr --server 127.0.0.1:$AGENT_PORT --duration 0.5 --warmup 0 --json >"$TMP/b.json" \
	|| fail "agent did not survive bad frames: $(cat "$TMP/agent.log")"
jassert "$TMP/b.json" '.transactions > 0'

# A data port that is busy on the agent's side: its refusal comes back as a usage error.
port=$(free_port)
"$SB" udp-rr --port $port --duration 20 --warmup 0 --clients 1 --window 1 >/dev/null 2>&1 &
holder=$!
PIDS+=("$holder")
for _ in $(seq 50); do ss -Hlun "sport = :$port" | grep -q . && break; sleep 0.1; done
expect_usage "UDP port $port is busy" udp-rr --server 127.0.0.1:$AGENT_PORT --port $port --duration 0.5
kill -INT $holder

# Kill the agent mid-run.
kill_agent_mid_run "$TMP/c.json" udp-rr
jassert "$TMP/c.json" '.partial == true and (.partial_reason | test("agent")) and .transactions > 0 and .sides.server == null'
echo ok
