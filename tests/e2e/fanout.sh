# Many client hosts (--clients-on): one server namespace and three client namespaces on a
# bridge (198.18.1.0/24), an agent in each, the controller in a fifth. udp-rr
# (2 clients a host: scenario B's shape three times), tcp-crr (count-based: the hosts' shares
# add up to --conns) and tcp-stream across: the merged counts are the sum of the hosts', each
# client namespace's kernel counters agree with that host's own counts, the windows line up
# within a few milliseconds. A client agent killed mid-run: a partial report of the other two,
# exit 1, within 5 s. A client agent with the wrong secret, or one that runs servers only: the
# run is refused before it starts, naming the host.
# solo: five namespaces and four agents: their rates need the CPUs
. "$(dirname "$0")/lib.sh"
need jq
bridge_hosts 5
APORT=() APID=()

# ns_agent I [ARGS]: a serve agent in host I's namespace, on its address.
ns_agent() {
	local i=$1 port
	shift
	rm -f "$TMP/ready$i"
	mkfifo "$TMP/ready$i"
	ip netns exec "${NS[i]}" "$SB" serve --listen "${ADDR[i]}" --port 0 --ready-fd 9 "$@" \
		9>"$TMP/ready$i" 2>"$TMP/agent$i.log" &
	APID[i]=$!
	PIDS+=("${APID[i]}")
	read -r -t 5 port <"$TMP/ready$i" || fail "agent $i did not start: $(cat "$TMP/agent$i.log")"
	APORT[i]=$port
}
secret=$TMP/secret
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$secret"
chmod 600 "$secret"
for i in 0 1 2 3; do ns_agent $i --auth-file "$secret"; done
srv=${ADDR[0]}:${APORT[0]}
hosts=${ADDR[1]}:${APORT[1]},${ADDR[2]}:${APORT[2]},${ADDR[3]}:${APORT[3]}
ctl() { ip netns exec "${NS[4]}" "$SB" "$@" --server "$srv" --auth-file "$secret"; }

# Usage errors, before anything starts.
expect_usage "--clients-on needs --server" udp-rr --clients-on "$hosts" --duration 1
expect_usage "every host needs one client at least" udp-rr --server "$srv" --clients 2 --clients-on "$hosts"

# udp-rr, 2 clients on each of 3 hosts.
ctl udp-rr --clients 6 --clients-on "$hosts" --duration 1.5 --warmup 0.5 --json >"$TMP/u.json" ||
	fail "udp-rr across 3 client hosts: $(cat "$TMP"/agent*.log)"
jassert "$TMP/u.json" '.partial == false and (.hosts | length) == 3 and all(.hosts[]; .present and .clients == 2)' '.hosts'
jassert "$TMP/u.json" '.sides.client.processes == 6 and .transactions > 0' '.sides.client'
jassert "$TMP/u.json" '.transactions == ([.hosts[].counters.transactions] | add)' '[.transactions, [.hosts[].counters.transactions]]'
jassert "$TMP/u.json" '.sides.client.syscalls == ([.hosts[].counters.syscalls] | add)' '.sides.client'
# Each client namespace's own kernel against that host's own counts.
jassert "$TMP/u.json" 'all(.hosts[]; (.kernel_check.InDatagrams.diff_pct | fabs) < 2 and (.kernel_check.OutDatagrams.diff_pct | fabs) < 2)' '[.hosts[].kernel_check]'
# The merged p50 lies within the hosts' own; the windows opened within 50 ms of each other.
jassert "$TMP/u.json" '.latency_us.p50 >= ([.hosts[].latency_p50_us] | min) * 0.99 and .latency_us.p50 <= ([.hosts[].latency_p50_us] | max) * 1.01' '[.latency_us.p50, [.hosts[].latency_p50_us]]'
jassert "$TMP/u.json" '.window_skew_ms.open < 50 and .window_skew_ms.close < 100' '.window_skew_ms'
# The hosts' clients drain after the window, as local ones do: every request of the window is
# answered or lost, in the latencies.
jassert "$TMP/u.json" '.drain_s != null and .drain_s < 5 and .latency_us.count == .transactions + .lost' '{drain_s, transactions, lost, latency_us: (.latency_us | del(.cdf))}'
ctl udp-rr --clients 6 --clients-on "$hosts" --duration 1 --warmup 0.3 >"$TMP/u.txt" || fail "udp-rr table"
grep -q "client hosts: 3" "$TMP/u.txt" || fail "no hosts table: $(cat "$TMP/u.txt")"
grep -q "its kernel InDatagrams" "$TMP/u.txt" || fail "no per-host kernel check: $(cat "$TMP/u.txt")"
sed -n '1,/^  client hosts/{/^  client hosts/!p}; /^  client hosts/,/^$/p' "$TMP/u.txt" | grep -v '^$' | head -40

# The controller's own host as one of them (local): its clients run here, and this
# namespace's kernel counts only them.
ctl udp-rr --clients 4 --clients-on "local,${ADDR[1]}:${APORT[1]}" --duration 1 --warmup 0.3 --json >"$TMP/l.json" ||
	fail "udp-rr with local as a client host"
jassert "$TMP/l.json" '(.hosts | length) == 2 and .hosts[0].local and .hosts[0].host == "local" and .hosts[0].clients == 2 and .hosts[1].clients == 2' '.hosts'
jassert "$TMP/l.json" '.kernel_check.scope == "this host'"'"'s clients" and (.kernel_check.counters.InDatagrams.diff_pct | fabs) < 2 and (.hosts[0].kernel_check.InDatagrams.diff_pct | fabs) < 2' '[.kernel_check, .hosts[0].kernel_check]'
jassert "$TMP/l.json" '.transactions == ([.hosts[].counters.transactions] | add) and .sides.client.processes == 4' '[.transactions, .hosts]'

# tcp-crr, count-based: the hosts' shares are the run's --conns.
ctl tcp-crr --clients 3 --clients-on "$hosts" --conns 3000 --warmup-conns 60 --json >"$TMP/c.json" ||
	fail "tcp-crr across 3 client hosts"
jassert "$TMP/c.json" '.connections == 3000 and ([.hosts[].counters.transactions] | add) == 3000 and all(.hosts[]; .counters.transactions == 1000)' '[.connections, [.hosts[].counters.transactions]]'
jassert "$TMP/c.json" 'all(.hosts[]; .kernel_check.ActiveOpens.diff_pct == 0)' '[.hosts[].kernel_check]'
# Their TCP_INFO samples come with their results, spread and all: one in 16 of each host's
# 1000 (63 each), the percentiles over all of them; the server's 3 threads read ceil(3000 / 16)
# and at most 2 more.
jassert "$TMP/c.json" 'def pct: .min <= .p50 and .p50 <= .p90 and .p90 <= .p99 and .p99 <= .max;
	(.sides.client.tcp_info | .connections == 189 and ([.rtt_us, .min_rtt_us, .cwnd] | all(pct))) and
	(.sides.server.tcp_info | .connections >= 188 and .connections <= 190 and ([.rtt_us, .min_rtt_us, .cwnd] | all(pct)))' \
	'[.sides[].tcp_info]'

# tcp-stream: each host sends, the server's receipt is the sum, less what was still in the
# sockets when the windows closed (each flow's send and receive buffers at most: tcp_wmem's and
# tcp_rmem's largest) and what the hosts sent while their windows closed apart (the close skew
# and its uncertainty, at the hosts' rate): ~40 MB at ~30 Gbit/s here, whatever the speed.
ctl tcp-stream --clients 3 --clients-on "$hosts" --duration 2 --warmup 0.3 --json >"$TMP/s.json" ||
	fail "tcp-stream across 3 client hosts"
jassert "$TMP/s.json" '.partial == false and all(.hosts[]; .present and .units > 0)' '.hosts'
jassert "$TMP/s.json" '([.hosts[].counters.tx_bytes] | add) as $sent | (.environment.sysctl | [.["net.ipv4.tcp_wmem"], .["net.ipv4.tcp_rmem"]] | map(split(" ")[2] | tonumber) | add) as $buf | ($sent - .sides.server.bytes_received) <= .config.clients * $buf + $sent * (.window_skew_ms.close + 2 * .window_skew_ms.uncertainty) / 1e3 / .duration_s' '{s: .sides.server.bytes_received, sent: [.hosts[].counters.tx_bytes], skew: .window_skew_ms, d: .duration_s}'
jassert "$TMP/s.json" 'all(.hosts[]; (.kernel_check.OutSegs.diff_pct | fabs) < 5)' '[.hosts[].kernel_check]'
# -n across hosts: the bytes are split over them as the clients are, and add up to -n exactly.
ctl tcp-stream --clients 3 --clients-on "$hosts" -n 300000001 --warmup 0.3 --json >"$TMP/n.json" ||
	fail "tcp-stream -n across 3 client hosts"
jassert "$TMP/n.json" '.partial == false and .sides.client.bytes_sent == 300000001 and ([.hosts[].counters.tx_bytes] | add) == 300000001 and all(.hosts[]; .counters.tx_bytes > 0)' '[.partial_reason, .sides.client.bytes_sent, [.hosts[].counters.tx_bytes]]'

# --runs and sweep take a fanned-out run as any other: sweep --client-hosts sweeps the number
# of client hosts (1 and 2 here, 2 clients in all).
ctl udp-rr --clients 2 --clients-on "$hosts" --client-hosts 2 --duration 0.5 --warmup 0.2 --runs 2 --json >"$TMP/r.json" ||
	fail "--runs on a fanned-out run"
jassert "$TMP/r.json" '(.results | length) == 2 and all(.results[]; (.hosts | length) == 2 and .transactions > 0)' '[.results[] | {transactions, hosts: (.hosts | length)}]'
ip netns exec "${NS[4]}" "$SB" sweep udp-rr --server "$srv" --auth-file "$secret" --clients 2 --clients-on "$hosts" \
	--client-hosts 1,2 --duration 0.5 --warmup 0.2 --runs 1 --json >"$TMP/sw.json" 2>"$TMP/sw.err" ||
	fail "sweep --client-hosts: $(cat "$TMP/sw.err")"
jassert "$TMP/sw.json" '(.points | length) == 2' '.points'

# compare takes fanned-out runs as any other.
ip netns exec "${NS[4]}" "$SB" compare "udp-rr --server $srv --auth-file $secret --clients 2 --clients-on $hosts --client-hosts 2 --duration 0.5 --warmup 0.2" \
	"udp-rr --server $srv --auth-file $secret --clients 2 --clients-on $hosts --client-hosts 2 --duration 0.5 --warmup 0.2 --batch 8" \
	--runs 2 --json >"$TMP/cmp.json" 2>"$TMP/cmp.err" || fail "compare of fanned-out runs: $(tail -3 "$TMP/cmp.err")"
jassert "$TMP/cmp.json" '.kind == "compare" and .partial == false and .runs_a == 2 and .runs_b == 2 and (.figures[0].ratio > 0)' '{kind, partial, verdict, runs_a, runs_b, f: .figures[0]}'

# The server agent stopped for 2 s across the window's end (from 1.4 s of a 3 s window): the
# requests then in flight on every host are timed in the drain, the slowest the stop itself
# (before, the hosts' clients ended at the close and those requests went uncounted).
SOCKBENCH_PROGRESS=1 ctl tcp-rr --clients 2 --clients-on "${ADDR[1]}:${APORT[1]},${ADDR[2]}:${APORT[2]}" \
	--duration 3 --warmup 0.3 --json >"$TMP/dr.json" 2>"$TMP/dr.err" &
run=$!
PIDS+=("$run")
wait_window $run "$TMP/dr.err"
python3 "$(dirname "$0")/../helpers/pause.py" "${APID[0]}" 0.4 2 >"$TMP/dr.p" || fail "pause.py"
wait $run || fail "tcp-rr across 2 hosts, the server stopped: exit $?: $(tail -3 "$TMP/dr.err")"
P=$(cat "$TMP/dr.p")
jassert "$TMP/dr.json" '.drain_s > 0.2 and .latency_us.unanswered == 0 and ((.latency_us.max / 1e6 / '"$P"' - 1) | fabs) < 0.05' '{drain_s, partial_reason, latency_us: (.latency_us | del(.cdf))}'
echo "server stopped $P s across the end: $(jq -c '{drain_s, max_us: .latency_us.max}' "$TMP/dr.json")"

# A client agent stopped (SIGSTOP) mid-run: silent for 2 s, so the run ends, partial, naming it.
SOCKBENCH_PROGRESS=1 ctl udp-rr --clients 3 --clients-on "$hosts" --duration 30 --warmup 0.2 --json >"$TMP/st.json" 2>"$TMP/st.err" &
run=$!
wait_window $run "$TMP/st.err" 0.3
kill -STOP "${APID[1]}"
for _ in $(seq 120); do kill -0 $run 2>/dev/null || break; sleep 0.05; done
kill -CONT "${APID[1]}"
kill -0 $run 2>/dev/null && fail "the controller still runs 6 s after a client agent stopped"
wait $run
[ $? -eq 1 ] || fail "exit status after a client agent stopped, not 1"
jassert "$TMP/st.json" ".partial == true and (.partial_reason | contains(\"${ADDR[1]}\")) and (.partial_reason | contains(\"sent nothing\"))" '{partial_reason}'
sleep 1 # the agent, running again, sees its controller gone and frees its slot

# A client agent with the wrong secret: refused before the run, naming the host.
kill -9 "${APID[3]}"
other=$TMP/other
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$other"
chmod 600 "$other"
ns_agent 3 --auth-file "$other"
hosts3=${ADDR[1]}:${APORT[1]},${ADDR[2]}:${APORT[2]},${ADDR[3]}:${APORT[3]}
ctl udp-rr --clients 3 --clients-on "$hosts3" --duration 1 >"$TMP/w.out" 2>"$TMP/w.err" &&
	fail "ran with a client agent that holds another secret"
grep -q "${ADDR[3]}" "$TMP/w.err" || fail "the refusal does not name the host: $(cat "$TMP/w.err")"
[ -s "$TMP/w.out" ] && fail "a report was printed for a refused run: $(cat "$TMP/w.out")"
# An agent that runs clients only refuses to be the server.
kill -9 "${APID[1]}"
ns_agent 1 --auth-file "$secret" --role client
hosts=${ADDR[1]}:${APORT[1]},${ADDR[2]}:${APORT[2]},${ADDR[3]}:${APORT[3]}
ip netns exec "${NS[4]}" "$SB" udp-rr --server "${ADDR[1]}:${APORT[1]}" --auth-file "$secret" --duration 1 2>"$TMP/rc.err" >/dev/null &&
	fail "a --role client agent ran a server side"
grep -q "client side only" "$TMP/rc.err" || fail "no role refusal: $(cat "$TMP/rc.err")"
# ... and runs its clients for another server all the same.
ctl udp-rr --clients 2 --clients-on "$hosts" --client-hosts 1 --duration 0.5 --warmup 0.2 --json >"$TMP/rc.json" ||
	fail "a --role client agent refused its clients"
# One that runs servers only says so.
kill -9 "${APID[3]}"
ns_agent 3 --auth-file "$secret" --role server
hosts3=${ADDR[1]}:${APORT[1]},${ADDR[2]}:${APORT[2]},${ADDR[3]}:${APORT[3]}
ctl udp-rr --clients 3 --clients-on "$hosts3" --duration 1 2>"$TMP/r.err" >/dev/null &&
	fail "a --role server agent ran clients"
grep -q "server side only" "$TMP/r.err" || fail "no role refusal: $(cat "$TMP/r.err")"
kill -9 "${APID[3]}"
ns_agent 3 --auth-file "$secret"
hosts3=${ADDR[1]}:${APORT[1]},${ADDR[2]}:${APORT[2]},${ADDR[3]}:${APORT[3]}

# One client process of a client host killed mid-run, its agent alive: that host is short of a
# client, so the run is partial and names the host, exit 1, within 5 s.
descendants() { local c; for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done; }
SOCKBENCH_PROGRESS=1 ctl udp-rr --clients 6 --clients-on "$hosts3" --duration 30 --warmup 0.2 --json >"$TMP/m.json" 2>"$TMP/m.err" &
run=$!
wait_window $run "$TMP/m.err" 0.3
victim=$(descendants "${APID[1]}" | tail -1)
[ -n "$victim" ] || fail "no client process under the agent of ${ADDR[1]}"
kill -9 "$victim"
for _ in $(seq 100); do kill -0 $run 2>/dev/null || break; sleep 0.05; done
kill -0 $run 2>/dev/null && fail "the controller still runs 5 s after a client of ${ADDR[1]} died"
wait $run
rc=$?
[ $rc -eq 1 ] || fail "exit status $rc after a client of a client host died, not 1"
echo "a client of ${ADDR[1]} killed: $(jq -r .partial_reason "$TMP/m.json")"
jassert "$TMP/m.json" ".partial == true and (.partial_reason | contains(\"${ADDR[1]}\"))" '{partial, partial_reason}'
for _ in $(seq 50); do [ -z "$(descendants "${APID[1]}")" ] && break; sleep 0.1; done

# kill -9 of one client agent mid-run: the other two are reported, partial, exit 1, < 5 s.
SOCKBENCH_PROGRESS=1 ctl udp-rr --clients 6 --clients-on "$hosts3" --duration 30 --warmup 0.2 --json >"$TMP/k.json" 2>"$TMP/k.err" &
run=$!
wait_window $run "$TMP/k.err" 0.3
kill -9 "${APID[2]}"
t0=$(date +%s.%N)
for _ in $(seq 100); do kill -0 $run 2>/dev/null || break; sleep 0.05; done
kill -0 $run 2>/dev/null && fail "the controller still runs 5 s after a client agent died"
wait $run
rc=$?
[ $rc -eq 1 ] || fail "exit status $rc after a client agent died, not 1"
echo "a client agent killed: the controller ended $(awk -v t0="$t0" -v t="$(date +%s.%N)" 'BEGIN {printf "%.2f", t - t0}') s later"
jassert "$TMP/k.json" ".partial == true and (.partial_reason | contains(\"${ADDR[2]}\"))" '{partial, partial_reason}'
jassert "$TMP/k.json" "([.hosts[] | select(.present)] | length) == 2 and (.hosts[] | select(.host | startswith(\"${ADDR[2]}\")) | .present == false)" '.hosts'
jassert "$TMP/k.json" '.transactions > 0 and .transactions == ([.hosts[] | select(.present) | .counters.transactions] | add)' '[.transactions, [.hosts[].counters.transactions]]'
# The server served the lost host's clients too, whose units are not counted: its per-unit
# figures are withheld (null, with the reason), not the work of three hosts over two's units.
jassert "$TMP/k.json" ".sides.server | (.cpu_us_per_unit == null and .user_us_per_unit == null and .sys_us_per_unit == null and .syscalls_per_unit == null and (.per_unit_withheld | contains(\"${ADDR[2]}\")))" '.sides.server'
jassert "$TMP/k.json" '.sides.client.cpu_us_per_unit > 0' '.sides.client'
echo "fanout: $(jq -r '"udp-rr over 3 client hosts: \(.transactions_per_s | round)/s merged; per host \([.hosts[].rate | round])"' "$TMP/u.json")"
