# Shared helpers for the end-to-end tests (sourced). Exit codes: 0 pass, 1 fail, 77 skip.
set -u
SB=${SOCKBENCH:?}
TMP=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
# The binary under test is a sanitizer build (2-3x slower: the window's edges lag further).
sanitized() { ldd "$SB" 2>/dev/null | grep -q libasan; }
skip() { echo "SKIP: $*"; exit 77; }
# clients_for N HARD: as few client processes as hold N descriptors between them, each under
# the open-file hard limit HARD (200 kept for the rest of a process), N a multiple of them.
clients_for() {
	local c=$((($1 + $2 - 201) / ($2 - 200)))
	while [ $(($1 % c)) != 0 ]; do c=$((c + 1)); done
	echo $c
}
# nobody_sb: a copy of $SB that user nobody can run, its path on stdout (a clone may sit in a
# folder only root can enter: mktemp -d makes it 0700); nothing, status 1, where nobody cannot.
nobody_sb() {
	command -v setpriv >/dev/null && [ "$(id -u)" = 0 ] || return 1
	mkdir -p "$TMP/nb" && cp "$SB" "$TMP/nb/sb" && chmod 755 "$TMP" "$TMP/nb" "$TMP/nb/sb" || return 1
	setpriv --reuid 65534 --regid 65534 --clear-groups "$TMP/nb/sb" version >/dev/null 2>&1 || return 1
	echo "$TMP/nb/sb"
}
need() { command -v "$1" >/dev/null || skip "$1 is not installed"; }

# jq expression on a JSON file, printed raw.
jget() { jq -r "$2" "$1"; }

# jq definitions for a kernel-counter check of a time-based run: kok($d; $lag) holds when a
# counter's ours and kernel agree within 2%, plus 3, plus what the counter moves (at its own
# rate over the window of $d s) in the delays between the window's edges and the counters'
# reads ($lag s: lag, from kernel_check.read_after_edge_us) and between the coordinator's window
# and each side's own (skew: the most a side's window, sides.*.window_s, differs from
# duration_s: at a steady rate a side counts that much more or less than the window's). A fixed
# 2% alone is 12-16 ms of edge delay on a short window, which one steal or a loaded CPU exceeds.
# kokx($d; $lag; $x): kok with $x more; rbuf: what the flows' receive queues can hold
# (tcp_rmem's largest, a flow): bytes the kernel counted in (InOctets) that the server had not
# read yet when a window's edge came, which a slow reader (a loaded CPU) leaves there.
# ulate: the datagrams a receiver that sees an edge late can read in that lag beyond the
# window's average rate of reads (InDatagrams counts a read): what its queues held (each
# receiving socket's buffer over the datagram's size, an upper bound) and what the senders
# sent meanwhile beyond what was read (OutDatagrams less InDatagrams, at the window's rate).
# An overloaded stream's receiver reads a full queue at its full speed: 0.3 s at 219,000 sent
# and 69,000 read a second, its close edge 4.2 ms late, read 1,260 beyond the kernel's count
# (CI), where the average rate's allowance was 715.
# paced($x; $r): a paced rate $x within 2% of its target $r, plus what the target moves in
# those delays (a sender that sees an edge late counts its packets over a shifted window).
# held($r): a paced run kept its pace $r and received it (paced), or said it could not: partial,
# its senders short of $r (a pacer kept off its CPU beside another test sent 18,712/s of 20,000).
# Received it: at $r, or its senders at $r and what it received off what they sent by no more
# than the kernel's own datagrams in less out over the window (kbacklog: datagrams the kernel
# held back at an edge, its softirq kept off a CPU by a neighbour: 16,033 in, 15,007 out, so a
# 1.5 s window at 10,000/s received 10,642/s beside a loopback flood) and what was lost.
# drops_seen: a paced run lost nothing unless the kernel dropped (a receiver kept off its CPU
# longer than its buffer lasts), and then every gap we counted is a drop the kernel counted.
KOK='def skew: .duration_s as $d | [(.sides // {})[] | objects | .window_s | objects | .min, .max | . - $d | fabs] | max // 0;
def lag: ((.kernel_check.read_after_edge_us // {}) | (.open // 0) + (.close // 0)) / 1e6 + skew;
def kok($d; $lag): ((.ours - .kernel) | fabs) <= 0.02 * .kernel + 3 + (.kernel / $d) * $lag;
def kall: lag as $l | .duration_s as $d | [.kernel_check.counters[] | kok($d; $l)] | length > 0 and all;
def kokx($d; $lag; $x): ((.ours - .kernel) | fabs) <= 0.02 * .kernel + 3 + (.kernel / $d) * $lag + $x;
def rbuf: ((.environment.sysctl // {})["net.ipv4.tcp_rmem"] // "0 0 0" | split(" ")[2] | tonumber) * (.config.clients // 1) * (.config.flows // 1);
def uqueue: (if (.config.rcvbuf // 0) > 0 then .config.rcvbuf * 2 else ((.environment.sysctl // {})["net.core.rmem_default"] // "212992" | tonumber) end) / ([.config.size // 1, 1] | max) * ((.config.clients // 1) + (.config.server_threads // 1)) | ceil;
def ulate: .kernel_check.counters as $c | .duration_s as $d | lag * ([(($c.OutDatagrams.kernel // 0) - ($c.InDatagrams.kernel // 0)) / $d, 0] | max) + uqueue;
def paced($x; $r): (($x - $r) | fabs) <= 0.02 * $r + $r * lag / .duration_s;
def kbacklog: .kernel_check.counters as $c | if $c.InDatagrams.kernel != null and $c.OutDatagrams.kernel != null
	then ($c.InDatagrams.kernel - $c.OutDatagrams.kernel) | fabs else 0 end;
def held($r): if .holding_load then (paced(.packets_per_s; $r) or (paced(.packets_sent_per_s; $r) and
	((.packets_received - .packets_sent) | fabs) <= 0.02 * .packets_sent + kbacklog + .loss)) and (.partial | not)
	else .partial and .packets_sent_per_s < $r and (.partial_reason | test("could not|kept off")) end;
def drops_seen: .kernel_check.counters.RcvbufErrors as $k | if $k.kernel == 0 then .loss == 0
	else lag as $l | .duration_s as $d | ($k | kok($d; $l)) end;'

# Assert a jq boolean expression holds on a file, which must hold JSON (jq -e exits 0 on an
# empty file: a run that wrote nothing would pass every assertion).
jassert() {
	[ -s "$1" ] || fail "$1: empty, where $2 was to hold"
	jq -e "$2" "$1" >/dev/null || fail "$1: expected $2, got: $(jq -c "${3:-.}" "$1")"
}

# Run sockbench expecting a usage error: exit 2 and a message containing $1.
expect_usage() {
	local needle=$1 rc
	shift
	"$SB" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "sockbench $* exited $rc, not 2 ($(cat "$TMP/err"))"
	grep -qF -- "$needle" "$TMP/err" || fail "sockbench $*: message '$(cat "$TMP/err")' lacks '$needle'"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "sockbench $*: error is not one line: $(cat "$TMP/err")"
}

# A data port for a test: below the ephemeral range (so no connection of ours can be holding
# it) and unused now by any TCP or UDP socket on this host.
free_port() {
	local lo p
	lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range)
	[ "$lo" -gt 20100 ] || lo=40000
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % (lo - 20000)))
		[ -z "$(ss -Htuan "sport = :$p" 2>/dev/null)" ] && { echo $p; return; }
	done
	fail "no free port found below $lo"
}

# Start a standalone agent on a free control port; sets AGENT_PID and AGENT_PORT.
start_agent() {
	exec {rfd}<> <(:)
	mkfifo "$TMP/ready"
	"$SB" serve --port 0 --ready-fd 9 "$@" 9>"$TMP/ready" 2>"$TMP/agent.log" &
	AGENT_PID=$!
	PIDS+=("$AGENT_PID")
	read -r -t 5 AGENT_PORT <"$TMP/ready" || fail "serve did not start: $(cat "$TMP/agent.log")"
}

# A stream's receiver on an agent held to one CPU of ours (taskset -a: its threads, and those
# they start): it chose to sleep at once, where this host (2 CPUs or more) would try again
# first. The config says what the receiving side chose and why; the header, written before
# it reports, says its host decides (grep pattern $2). The agent is left running: stop_agent.
receiver_elsewhere() { # workload header-pattern
	start_agent
	taskset -a -pc "$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')" "$AGENT_PID" >/dev/null ||
		fail "taskset of the agent"
	"$SB" "$1" --server 127.0.0.1:$AGENT_PORT --duration 0.5 --warmup 0.2 --json \
		>"$TMP/e.json" || fail "$1 against a one-CPU agent failed"
	jassert "$TMP/e.json" '.config.wait_receiver == "block" and (.config.wait_receiver_reason | test("receiving side.s host"))' .config
	"$SB" "$1" --server 127.0.0.1:$AGENT_PORT --duration 0.3 --warmup 0 >"$TMP/e.txt" ||
		fail "$1 (text) against a one-CPU agent failed"
	head -1 "$TMP/e.txt" | grep -q "$2" || fail "header: $(head -1 "$TMP/e.txt")"
}
stop_agent() {
	kill "$AGENT_PID"
	rm -f "$TMP/ready"
}

# A loopback agent to stop and start again (SIGSTOP: a stalled server): AGENT_PID, srv (its
# control address), and PAUSE, tests/helpers/pause.py (pause.py PID DELAY_S PAUSE_S prints the
# stop as it was, in seconds).
pausable_agent() {
	need jq
	need python3
	PAUSE=$(dirname "$0")/../helpers/pause.py
	start_agent
	srv=127.0.0.1:$AGENT_PORT
}

# A serve agent in namespace $1 listening on address $2: AGENT_PID, and AGENT_PORT its control
# port (within 5 s, or the test fails with its log).
ns_agent() {
	mkfifo "$TMP/ready"
	ip netns exec "$1" "$SB" serve --listen "$2" --port 0 --ready-fd 9 9>"$TMP/ready" 2>"$TMP/agent.log" &
	AGENT_PID=$!
	PIDS+=("$AGENT_PID")
	read -r -t 5 AGENT_PORT <"$TMP/ready" || fail "agent did not start: $(cat "$TMP/agent.log")"
}

# Wait until the run $1 (a pid) whose stderr goes to $2 (started with SOCKBENCH_PROGRESS=1)
# has had its window open $3 s (default 1): its progress line says when it opened (at the
# window's first tick, then each second), then $3 s. However slow this machine's set-up, a kill
# or Ctrl-C after this comes with that much measured. Up to 60 s for the window to open.
wait_window() {
	for _ in $(seq 600); do
		if grep -q "window: " "$2" 2>/dev/null; then
			sleep "${3:-1}"
			return 0
		fi
		kill -0 "$1" 2>/dev/null || fail "the run ended before its window opened: $(cat "$2")"
		sleep 0.1
	done
	fail "no window opened within 60 s: $(cat "$2")"
}

# Run a workload against the agent for up to 30 s, kill the agent (kill -9) 0.3 s into the
# window: the client must end within 3 s with exit 1. Its JSON goes to $1.
kill_agent_mid_run() {
	local out=$1 pid rc
	shift
	SOCKBENCH_PROGRESS=1 "$SB" "$@" --server 127.0.0.1:$AGENT_PORT --duration 30 --warmup 0.2 --json >"$out" 2>"$out.err" &
	pid=$!
	PIDS+=("$pid")
	wait_window "$pid" "$out.err" 0.3
	kill -9 "$AGENT_PID"
	for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$pid" 2>/dev/null && fail "$1 still running 3 s after the agent died"
	wait "$pid"
	rc=$?
	[ $rc -eq 1 ] || fail "$1: exit $rc, not 1, when the agent died"
}

# N hosts in network namespaces on one bridge (in a namespace of its own): host i is the
# namespace ${NS[i]} with address 198.18.1.$((i + 1))/24 (ADDR[i]). Root only; skips otherwise.
bridge_hosts() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
	local n=$1 i
	BR=sbR$$
	NS=() ADDR=()
	ip netns add $BR 2>/dev/null || skip "cannot create network namespaces"
	trap 'for ns in "${NS[@]}" $BR; do ip netns del $ns 2>/dev/null; done; cleanup' EXIT
	ip -n $BR link add br0 type bridge || skip "no bridge"
	ip -n $BR link set br0 up
	for i in $(seq 0 $((n - 1))); do
		NS[i]=sbH$$x$i
		ADDR[i]=198.18.1.$((i + 1))
		ip netns add ${NS[i]}
		ip link add h$i netns ${NS[i]} type veth peer name p$i netns $BR || skip "no veth"
		ip -n $BR link set p$i master br0
		ip -n $BR link set p$i up
		ip -n ${NS[i]} addr add ${ADDR[i]}/24 dev h$i
		ip -n ${NS[i]} link set lo up
		ip -n ${NS[i]} link set h$i up
	done
}

# Two hosts in network namespaces joined by veth, addresses $1 (HOST_A, on IF_A) and $2
# (HOST_B, on IF_B), /24. Skips where namespaces cannot be made; both go on exit.
two_hosts() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
	HOST_A=sbA$$ HOST_B=sbB$$ IF_A=va$$ IF_B=vb$$
	ip netns add $HOST_A 2>/dev/null || skip "cannot create network namespaces"
	ip netns add $HOST_B
	trap 'ip netns del $HOST_A 2>/dev/null; ip netns del $HOST_B 2>/dev/null; cleanup' EXIT
	ip link add $IF_A netns $HOST_A type veth peer name $IF_B netns $HOST_B || skip "no veth"
	ip -n $HOST_A addr add "$1/24" dev $IF_A
	ip -n $HOST_B addr add "$2/24" dev $IF_B
	for ns in $HOST_A $HOST_B; do ip -n $ns link set lo up; done
	ip -n $HOST_A link set $IF_A up
	ip -n $HOST_B link set $IF_B up
}

# A tcp-stream run's counts beside the kernel's (tcp_stream.sh, streams_tools.sh).
tcp_kernel_agrees() { # file [retransmit share]: our figures beside the kernel's over the window
	# Segments and bytes as lib.sh's kok (2% + the edges' delays at their rate). Retransmits
	# come in bursts (a loss on loopback takes several segments, and the retransmits of one
	# can fall on both sides of an edge, which the server sees a control message later than
	# the kernel's reads): 3 + 10% and the same delays (98 against 111 was seen under load).
	jassert "$1" "$KOK"' lag as $l | .duration_s as $d | .kernel_check.counters | (.OutSegs | kok($d; $l)) and (.RetransSegs | ((.ours - .kernel) | fabs) <= 3 + '"${2:-0.1}"' * .kernel + (.kernel / $d) * $l)' '.kernel_check'
	# InOctets adds 52 bytes of headers per packet (0.1% here), the edges lag a little, and what
	# sat unread in the receive queues at an edge the kernel counted and we had not (lib.sh's
	# rbuf: 24 MB of 569 MB in a 0.5 s window beside a CPU hog).
	jassert "$1" "$KOK"' rbuf as $q | lag as $l | .duration_s as $d | .kernel_check.counters.InOctets | kokx($d; $l; $q)' '.kernel_check'
}
