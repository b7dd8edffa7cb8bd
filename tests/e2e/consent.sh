# A client agent sends test traffic only to a test a sockbench server agent runs and vouches
# for (src/link/vouch.h). Hand-made client-role SETUPs (tests/helpers/ctl_client.py) aim an
# agent at plain UDP and TCP sinks on loopback: with no server agent named (the SETUP of an
# older controller, which any client could send), with a port where no agent listens, with a
# listener that is not an agent, with a real agent that runs no test, with a real agent's test
# but another port or a wrong token, and at another address than the agent's: each is refused
# and the sinks see nothing. The real test's own target is taken (consent), the server agent
# answers VOUCH while its slot is busy, secrets must match on both agents, and an agent with no
# secret on a non-loopback address (a network namespace of its own) runs no clients unless
# --allow-unauthenticated-clients says so.
. "$(dirname "$0")/lib.sh"
need python3
need jq
HERE=$(cd "$(dirname "$0")/.." && pwd)
CTL="python3 $HERE/helpers/ctl_client.py"

# agent NAME [ARGS]: a serve agent on a free loopback control port; sets PORT_NAME.
agent() {
	local name=$1 port
	shift
	mkfifo "$TMP/ready.$name"
	"$SB" serve --port 0 --ready-fd 9 "$@" 9>"$TMP/ready.$name" 2>"$TMP/$name.log" &
	PIDS+=($!)
	read -r -t 5 port <"$TMP/ready.$name" || fail "agent $name did not start: $(cat "$TMP/$name.log")"
	eval "PORT_$name=$port"
}
agent A --role client
agent B --role server

# The sinks: UDP and TCP on 127.0.0.1, UDP on 127.0.0.2, and a TCP listener that answers
# like a web server (not an agent). Each count is written as it changes; 150 s at most. Their
# ports lie below the ephemeral range (as lib.sh's free_port): a test's server later listens
# on the UDP sink's number over TCP, which a connection's ephemeral port once held ("TCP port
# 35563 is busy").
python3 - "$TMP/sinks" >"$TMP/sink.ports" <<'EOF' &
import random, select, socket, sys, time
out = sys.argv[1]
lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
lo = lo if lo > 20100 else 40000
def bound(kind, addr):
    while True:
        s = socket.socket(socket.AF_INET, kind)
        try:
            s.bind((addr, random.randrange(20000, lo)))
            return s
        except OSError:
            s.close()
u = bound(socket.SOCK_DGRAM, "127.0.0.1")
u2 = bound(socket.SOCK_DGRAM, "127.0.0.2")
t = bound(socket.SOCK_STREAM, "127.0.0.1"); t.listen(64)
z = bound(socket.SOCK_STREAM, "127.0.0.1"); z.listen(64)
print(u.getsockname()[1], u2.getsockname()[1], t.getsockname()[1], z.getsockname()[1], flush=True)
n = {"udp": 0, "udp2": 0, "tcp": 0}
def save():
    with open(out, "w") as f:
        f.write(" ".join(f"{k}={v}" for k, v in n.items()) + "\n")
save()
end = time.monotonic() + 150
while time.monotonic() < end:
    for s in select.select([u, u2, t, z], [], [], 0.2)[0]:
        if s is z:
            c, _ = s.accept(); c.sendall(b"HTTP/1.0 200 OK\r\n\r\n"); c.close(); continue
        if s is t:
            s.accept()[0].close(); n["tcp"] += 1
        else:
            s.recv(65536); n["udp" if s is u else "udp2"] += 1
        save()
EOF
PIDS+=($!)
for _ in $(seq 150); do [ -s "$TMP/sink.ports" ] && break; sleep 0.1; done
read -r UPORT U2PORT TPORT ZPORT <"$TMP/sink.ports" || fail "the sinks did not start"
FREE=$(free_port)

UDP_CFG='{"duration":1,"warmup":0.2,"rate":2000}'
CRR_CFG='{"conns":200,"warmup_conns":10,"time_limit":5}'
# setup WORKLOAD CONFIG TARGET: a client-role SETUP.
setup() { printf '{"workload":"%s","role":"client","config":%s,"target":%s}' "$1" "$2" "$3"; }
# refused AGENT_PORT PAYLOAD NEEDLE [ctl_client args]: the agent answers ERROR naming NEEDLE.
refused() {
	local port=$1 payload=$2 needle=$3
	shift 3
	$CTL "$port" "$payload" "$@" >"$TMP/ans" || fail "ctl_client: $(cat "$TMP/ans")"
	jq -e '.type == "ERROR"' "$TMP/ans" >/dev/null || fail "not refused: $payload -> $(cat "$TMP/ans")"
	grep -qF -- "$needle" "$TMP/ans" || fail "the refusal lacks '$needle': $(cat "$TMP/ans")"
}
tok=0123456789abcdef
# ready FILE: the answer there is READY (jq -e alone passes an empty file: a helper that died).
ready() { [ -s "$1" ] && jq -e '.type == "READY"' "$1" >/dev/null; }

# 1. The attack as it was: a SETUP naming any address, and no server agent. Refused.
refused "$PORT_A" "$(setup udp-stream "$UDP_CFG" "{\"addr\":\"127.0.0.1\",\"port\":$UPORT,\"token\":\"$tok\"}")" \
	"target.ctl_port"
# 2. A server agent where none listens.
refused "$PORT_A" "$(setup udp-stream "$UDP_CFG" "{\"addr\":\"127.0.0.1\",\"port\":$UPORT,\"token\":\"$tok\",\"ctl_addr\":\"127.0.0.1\",\"ctl_port\":$FREE}")" \
	"no sockbench agent answers there"
# 3. A listener that is not an agent.
refused "$PORT_A" "$(setup tcp-crr "$CRR_CFG" "{\"addr\":\"127.0.0.1\",\"port\":$TPORT,\"token\":\"$tok\",\"ctl_addr\":\"127.0.0.1\",\"ctl_port\":$ZPORT}")" \
	"no sockbench agent answers there"
# 4. A real agent that runs no test.
refused "$PORT_A" "$(setup tcp-crr "$CRR_CFG" "{\"addr\":\"127.0.0.1\",\"port\":$TPORT,\"token\":\"$tok\",\"ctl_addr\":\"127.0.0.1\",\"ctl_port\":$PORT_B}")" \
	"no test runs on this agent"

# 5. A real test on B, set up by a hand-made controller that holds it (to the end of this script).
$CTL "$PORT_B" '{"workload":"udp-stream","config":{"duration":1,"warmup":60}}' --hold 90 >"$TMP/srv" &
PIDS+=($!)
for _ in $(seq 150); do [ -s "$TMP/srv" ] && break; sleep 0.1; done
ready "$TMP/srv" || fail "B did not set up a test: $(cat "$TMP/srv") $(cat "$TMP/B.log")"
P=$(jq -r .payload.port "$TMP/srv") K=$(jq -r .payload.token "$TMP/srv")
bad=$(printf '%016x' $((0x$K ^ 1)))
# its token, but the sink's port; its port, but a wrong token; its port and token at another address
refused "$PORT_A" "$(setup udp-stream "$UDP_CFG" "{\"addr\":\"127.0.0.1\",\"port\":$UPORT,\"token\":\"$K\",\"ctl_addr\":\"127.0.0.1\",\"ctl_port\":$PORT_B}")" \
	"no test on this agent has data port $UPORT and that token"
refused "$PORT_A" "$(setup udp-stream "$UDP_CFG" "{\"addr\":\"127.0.0.1\",\"port\":$P,\"token\":\"$bad\",\"ctl_addr\":\"127.0.0.1\",\"ctl_port\":$PORT_B}")" \
	"no test on this agent has data port $P and that token"
refused "$PORT_A" "$(setup udp-stream "$UDP_CFG" "{\"addr\":\"127.0.0.2\",\"port\":$U2PORT,\"token\":\"$K\",\"ctl_addr\":\"127.0.0.1\",\"ctl_port\":$PORT_B}")" \
	"not the address of the server agent"
# B answers VOUCH while its slot is taken: yes for its test, no for another token.
nonce=$(printf '%064d' 7)
$CTL "$PORT_B" "{\"token\":\"$K\",\"port\":$P,\"addr\":\"127.0.0.1\",\"workload\":\"udp-stream\",\"proto\":\"udp\",\"nonce\":\"$nonce\"}" --vouch >"$TMP/v"
[ -s "$TMP/v" ] && jq -e ".type == \"ACK\" and .payload.vouch == true and .payload.nonce == \"$nonce\"" "$TMP/v" >/dev/null ||
	fail "B did not vouch for its own test: $(cat "$TMP/v")"
refused "$PORT_B" "{\"token\":\"$bad\",\"port\":$P,\"addr\":\"127.0.0.1\",\"workload\":\"udp-stream\",\"proto\":\"udp\",\"nonce\":\"$nonce\"}" "that token" --vouch
refused "$PORT_B" "{\"token\":\"$K\",\"port\":$P,\"addr\":\"127.0.0.1\",\"workload\":\"tcp-crr\",\"proto\":\"tcp\",\"nonce\":\"$nonce\"}" "udp-stream over udp, not tcp-crr over tcp" --vouch
# Its own target is taken: the clients run.
$CTL "$PORT_A" "$(setup udp-stream "$UDP_CFG" "{\"addr\":\"127.0.0.1\",\"port\":$P,\"token\":\"$K\",\"ctl_addr\":\"127.0.0.1\",\"ctl_port\":$PORT_B}")" >"$TMP/ok"
ready "$TMP/ok" || fail "the vouched-for target was refused: $(cat "$TMP/ok")"

# 6. Secrets: both agents must hold the same one, and the answer is signed with it.
secret=$TMP/secret other=$TMP/other
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$secret"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$other"
chmod 600 "$secret" "$other"
agent C --role client --auth-file "$secret"
agent D --role server --auth-file "$secret"
agent E --role server --auth-file "$other"
$CTL "$PORT_D" '{"workload":"udp-stream","config":{"duration":1,"warmup":60}}' --auth "$secret" --hold 90 >"$TMP/srvD" &
PIDS+=($!)
$CTL "$PORT_E" '{"workload":"udp-stream","config":{"duration":1,"warmup":60}}' --auth "$other" --hold 90 >"$TMP/srvE" &
PIDS+=($!)
for _ in $(seq 150); do [ -s "$TMP/srvD" ] && [ -s "$TMP/srvE" ] && break; sleep 0.1; done
tgt() { jq -c "{addr: \"127.0.0.1\", port: .payload.port, token: .payload.token, ctl_addr: \"127.0.0.1\", ctl_port: $2}" "$1"; }
$CTL "$PORT_C" "$(setup udp-stream "$UDP_CFG" "$(tgt "$TMP/srvD" "$PORT_D")")" --auth "$secret" >"$TMP/okD"
ready "$TMP/okD" || fail "same secret, refused: $(cat "$TMP/okD")"
refused "$PORT_C" "$(setup udp-stream "$UDP_CFG" "$(tgt "$TMP/srvE" "$PORT_E")")" "did not take this agent's secret" --auth "$secret"
refused "$PORT_A" "$(setup udp-stream "$UDP_CFG" "$(tgt "$TMP/srvD" "$PORT_D")")" "has a secret and this agent has none"

# 7. Consent names the protocol and the workload. A tcp-rr test whose data port is the UDP
# sink's number vouches for no udp-stream there; a udp-rr test on the TCP sink's number for no
# tcp-crr: unsigned, and signed. The hand-made controller runs as user nobody (anyone who can
# reach the agents). Before, each was taken and flooded the sink (130,068 datagrams a run).
# (Debian's python3: another user may not run root's own, such as a pyenv shim.)
NOBODY=()
# The helpers copied where user nobody can read them (a clone may sit in a folder only root
# reads: mktemp -d is 0700).
NBH=$TMP/nb
chmod o+x "$TMP" && install -d -m 0755 "$NBH" &&
	install -m 0644 "$HERE/helpers/ctl_client.py" "$HERE/helpers/fake_agent.py" "$NBH/" ||
	fail "cannot copy the helpers for user nobody"
setpriv --reuid 65534 --regid 65534 --clear-groups /usr/bin/python3 -B "$NBH/ctl_client.py" -h >/dev/null 2>&1 &&
	NOBODY=(setpriv --reuid 65534 --regid 65534 --clear-groups /usr/bin/python3 -B)
agent F --role server
agent G --role server --auth-file "$secret"
$CTL "$PORT_F" "{\"workload\":\"tcp-rr\",\"config\":{\"port\":$UPORT,\"duration\":1,\"warmup\":60}}" --hold 90 >"$TMP/srvF" &
PIDS+=($!)
$CTL "$PORT_G" "{\"workload\":\"udp-rr\",\"config\":{\"port\":$TPORT,\"duration\":1,\"warmup\":60}}" --auth "$secret" --hold 90 >"$TMP/srvG" &
PIDS+=($!)
for _ in $(seq 150); do [ -s "$TMP/srvF" ] && [ -s "$TMP/srvG" ] && break; sleep 0.1; done
[ -s "$TMP/srvF" ] && jq -e ".type == \"READY\" and .payload.port == $UPORT" "$TMP/srvF" >/dev/null || fail "F: no tcp-rr test on $UPORT: $(cat "$TMP/srvF" "$TMP/F.log")"
[ -s "$TMP/srvG" ] && jq -e ".type == \"READY\" and .payload.port == $TPORT" "$TMP/srvG" >/dev/null || fail "G: no udp-rr test on $TPORT: $(cat "$TMP/srvG" "$TMP/G.log")"
CTL_NOBODY=$CTL NB_SECRET=$secret
if [ ${#NOBODY[@]} -gt 0 ]; then # the secret too, as in the finding (a shared one)
	CTL_NOBODY="${NOBODY[*]} $NBH/ctl_client.py" NB_SECRET=$NBH/secret
	install -m 0400 -o 65534 "$secret" "$NB_SECRET" ||
		fail "cannot give user nobody a copy of the secret"
fi
CTL="$CTL_NOBODY" refused "$PORT_A" "$(setup udp-stream "$UDP_CFG" "$(tgt "$TMP/srvF" "$PORT_F")")" \
	"this agent's test is tcp-rr over tcp, not udp-stream over udp"
CTL="$CTL_NOBODY" refused "$PORT_A" "$(setup tcp-crr "$CRR_CFG" "$(tgt "$TMP/srvF" "$PORT_F")")" \
	"this agent's test is tcp-rr over tcp, not tcp-crr over tcp"
CTL="$CTL_NOBODY" refused "$PORT_C" "$(setup tcp-crr "$CRR_CFG" "$(tgt "$TMP/srvG" "$PORT_G")")" \
	"this agent's test is udp-rr over udp, not tcp-crr over tcp" --auth "$NB_SECRET"
# Its own kind is taken, signed (the clients run toward G's test, not a sink).
$CTL "$PORT_C" "$(setup udp-rr "$UDP_CFG" "$(tgt "$TMP/srvG" "$PORT_G")")" --auth "$secret" >"$TMP/okG"
ready "$TMP/okG" || fail "udp-rr toward G's udp-rr test refused: $(cat "$TMP/okG")"

# 8. No secret, loopback: a fake "agent" that says yes to everything, started by another user
# (nobody) on 127.0.0.1, is not believed: the kernel's socket table names its user. The same
# fake run as root (this agent's user) is believed: the user is what is refused.
if [ ${#NOBODY[@]} -gt 0 ]; then
	"${NOBODY[@]}" "$NBH/fake_agent.py" >"$TMP/fake.port" &
	PIDS+=($!)
	for _ in $(seq 50); do [ -s "$TMP/fake.port" ] && break; sleep 0.1; done
	FAKE=$(cat "$TMP/fake.port")
	refused "$PORT_A" "$(setup udp-stream "$UDP_CFG" "{\"addr\":\"127.0.0.1\",\"port\":$UPORT,\"token\":\"$tok\",\"ctl_addr\":\"127.0.0.1\",\"ctl_port\":$FAKE}")" \
		"it runs as user 65534, neither root nor this agent's user"
	python3 -B "$HERE/helpers/fake_agent.py" >"$TMP/fake0.port" &
	PIDS+=($!)
	for _ in $(seq 50); do [ -s "$TMP/fake0.port" ] && break; sleep 0.1; done
	FREE_U=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	$CTL "$PORT_A" "$(setup udp-stream "$UDP_CFG" "{\"addr\":\"127.0.0.1\",\"port\":$FREE_U,\"token\":\"$tok\",\"ctl_addr\":\"127.0.0.1\",\"ctl_port\":$(cat "$TMP/fake0.port")}")" >"$TMP/fake0.ans"
	ready "$TMP/fake0.ans" || fail "root's own fake agent was not believed (the control): $(cat "$TMP/fake0.ans")"
else
	echo "consent: no setpriv here: the other user's cases not run"
fi

# Nothing reached a sink (the vouch's own HELLO went to the web-like listener only).
sleep 0.5
grep -qx "udp=0 udp2=0 tcp=0" "$TMP/sinks" || fail "traffic reached a sink: $(cat "$TMP/sinks")"
echo "consent: 13 aimed SETUPs and a VOUCH refused, sinks: $(cat "$TMP/sinks")"

# 9. No secret, not loopback: no client role unless the operator says so. An address of a
# network namespace of our own (198.18.0.0/15, on its lo), so nothing leaves this machine.
# Where no namespace can be made, the cases above still count: say so and pass.
if ! unshare -rn true 2>/dev/null; then
	echo "consent: no network namespace here (unshare -rn): the no-secret off-loopback case not run"
	exit 0
fi
SB=$SB CTL=$CTL T=$TMP PAY="$(setup udp-stream "$UDP_CFG" "{\"addr\":\"198.18.0.1\",\"port\":9,\"token\":\"$tok\"}")" \
	unshare -rn bash -c '
	set -u
	ip link set lo up && ip addr add 198.18.0.1/32 dev lo || exit 3
	mkfifo "$T/ready.x"
	"$SB" serve --listen 198.18.0.1 --port 0 --ready-fd 9 9>"$T/ready.x" 2>"$T/x.log" &
	pid=$!
	read -r -t 5 port <"$T/ready.x" || exit 4
	sleep 0.2
	grep -q "client role (--clients-on) is off" "$T/x.log" || exit 5
	$CTL "$port" "$PAY" --host 198.18.0.1 >"$T/x.ans"
	grep -q "allow-unauthenticated-clients" "$T/x.ans" || exit 6
	kill $pid
	"$SB" serve --listen 198.18.0.1 --port 0 --role client 2>"$T/y.log"
	[ $? -eq 2 ] && grep -q "allow-unauthenticated-clients" "$T/y.log" || exit 7
	"$SB" serve --listen 198.18.0.1 --port 0 --ready-fd 9 --allow-unauthenticated-clients \
		9>"$T/ready.x" 2>"$T/z.log" &
	pid=$!
	read -r -t 5 port <"$T/ready.x" || exit 8
	sleep 0.2
	grep -q "warning: --allow-unauthenticated-clients" "$T/z.log" || exit 9
	$CTL "$port" "$PAY" --host 198.18.0.1 >"$T/z.ans"
	grep -q "target.ctl_port" "$T/z.ans" || exit 10
	kill $pid
	'
rc=$?
[ $rc -eq 0 ] || fail "no-secret non-loopback agent: step $rc: $(cat "$TMP"/x.log "$TMP"/x.ans "$TMP"/y.log "$TMP"/z.log "$TMP"/z.ans 2>/dev/null)"
echo "consent: a no-secret agent on 198.18.0.1 refuses the client role, names the flag; with it, the vouch still applies"
