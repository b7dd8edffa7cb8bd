# What an agent says reaches the controller's terminal as text, never as controls (issue 39):
# a forged agent (tests/helpers/ctl_relay.py, a relay to a real one that rewrites its frames)
# puts terminal escapes (ESC ] 0; title BEL, ESC [ 2J, the C1 CSI, a newline) in the RESULT's
# socket read-back and environment, a NOTICE, and a refusal. The controller's -v report and
# its error output hold no control byte, and each forged string is there, written \xNN
# (src/base/safe_text.c); so does --json, where cJSON would write the C1 CSI as it is.
. "$(dirname "$0")/lib.sh"
need python3
need jq
RELAY=$(dirname "$0")/../helpers/ctl_relay.py
start_agent
run="--duration 0.5 --warmup 0.1"

# relay MODE: a forged agent in front of the real one; its control port in $RPORT.
relay() {
	exec {rfd}< <(python3 "$RELAY" "$AGENT_PORT" "$1")
	PIDS+=("$!")
	read -r -t 5 -u $rfd RPORT || fail "the relay ($1) did not start"
}
# clean FILE...: no control byte but newline, no C1 CSI.
clean() {
	for f in "$@"; do
		LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$f" && fail "control bytes in $f: $(cat -A "$f")"
		LC_ALL=C grep -q $'\xc2\x9b' "$f" && fail "a C1 CSI in $f: $(cat -A "$f")"
	done
	return 0
}
# has FILE NEEDLE...: each needle (fixed text) is in FILE.
has() {
	local f=$1 n
	shift
	for n in "$@"; do
		grep -qF -- "$n" "$f" || fail "$f lacks '$n': $(cat -A "$f")"
	done
}
e='\x1b]0;pwned\x07\x1b[2J\xc2\x9b1A\x0aend'

# The RESULT: the read-back of the agent's socket, its environment, a setting not put back.
relay result
"$SB" udp-rr --server 127.0.0.1:$RPORT $run -v >"$TMP/r.out" 2>"$TMP/r.err"
rc=$?
[ $rc -eq 1 ] || fail "a result with a sysctl_restore_error: exit $rc, not 1: $(cat -A "$TMP/r.err")"
clean "$TMP/r.out" "$TMP/r.err"
has "$TMP/r.out" "server cc c\\x1b]0;t\\x07, mss 1000, tos 0x00, local 127.0.0.1\\x1b[1A\\xc2\\x9b, device d\\x1b[2J\\x0a" \
	"agent's environment: Linux release$e, 2 CPUs online (model$e), hypervisor hypervisor$e, clocksource clock$e," \
	"governor governor$e, turbo turbo$e; interface ifname$e (driver driver$e, MTU 1500, qdisc qdisc$e, GRO gro$e, GSO on, TSO off)"
has "$TMP/r.err" "the agent's host keeps kernel settings changed: restore$e"
# --json: cJSON writes C1 controls and DEL as they are, so the agent's words are safe text
# there too (as a saved result read back is).
"$SB" udp-rr --server 127.0.0.1:$RPORT $run --json >"$TMP/r.json" 2>"$TMP/r.err"
LC_ALL=C grep -q $'\xc2\x9b' "$TMP/r.json" && fail "a C1 CSI in --json: $(grep -a pwned "$TMP/r.json" | head -c 400)"
jq -e --arg e "$e" '.environment.agent.hostname == "host" + $e and
	.environment.agent.interface.name == "ifname" + $e and
	.sides.server.socket.local == "127.0.0.1\\x1b[1A\\xc2\\x9b"' "$TMP/r.json" >/dev/null ||
	fail "--json: $(jq -c '[.environment.agent.hostname, .sides.server.socket]' "$TMP/r.json")"

# A NOTICE in the window, and a refusal at SETUP: the controller's error output.
relay notice
"$SB" udp-rr --server 127.0.0.1:$RPORT $run -v >"$TMP/n.out" 2>"$TMP/n.err"
rc=$?
[ $rc -eq 1 ] || fail "a NOTICE: exit $rc, not 1: $(cat -A "$TMP/n.err")"
clean "$TMP/n.out" "$TMP/n.err"
has "$TMP/n.err" "the serve agent stopped the test: notice$e"
relay refuse
"$SB" udp-rr --server 127.0.0.1:$RPORT $run -v >"$TMP/f.out" 2>"$TMP/f.err"
rc=$?
[ $rc -eq 1 ] || fail "a refusal: exit $rc, not 1: $(cat -A "$TMP/f.err")"
clean "$TMP/f.out" "$TMP/f.err"
has "$TMP/f.err" "the serve agent refused the test: refusal$e"
exit 0
