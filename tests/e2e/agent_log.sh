# The agent's log takes what a controller sent as text, never as lines or terminal controls
# (issue 39): anyone who reaches the control port of an agent without a secret can send a
# SETUP, and its refusal is logged with the controller's config key, value or peer in it. Three
# SETUPs (tests/helpers/ctl_client.py) carry a newline and a forged log line, an escape that
# retitles a terminal (ESC ] 0; ... BEL) and a C1 CSI: each is refused in one log line, with
# the newline written \n and the controls \xNN, and no line of the log is the forged one.
# aside: it checks what the agent logs of three refused SETUPs, no time or rate (4 s, 1.8 s of CPU)
. "$(dirname "$0")/lib.sh"
need python3
need jq
CTL="python3 $(dirname "$0")/../helpers/ctl_client.py"
start_agent

# forge PAYLOAD NEEDLE: the agent refuses the SETUP, naming NEEDLE (in its JSON answer).
forge() {
	$CTL "$AGENT_PORT" "$1" >"$TMP/ans" || fail "ctl_client: $(cat "$TMP/ans")"
	jq -e '.type == "ERROR"' "$TMP/ans" >/dev/null || fail "not refused: $1 -> $(cat "$TMP/ans")"
	jq -e --arg n "$2" '.payload.error | contains($n)' "$TMP/ans" >/dev/null ||
		fail "the refusal lacks '$2': $(cat "$TMP/ans")"
}
line='\nsockbench serve: 127.0.0.1: authenticated, running tcp-rr'
esc='\u001b]0;pwned\u0007\u009b2J'
# A config key, a config value (40 bytes of it are shown), a peer.
forge "{\"workload\":\"udp-rr\",\"config\":{\"x$line$esc\":1}}" "unknown config key"
forge "{\"workload\":\"udp-rr\",\"config\":{\"io\":\"m\nsockbench serve: 127.0.0.1: FORGED\"}}" \
	"is not one of"
forge "{\"workload\":\"udp-rr\",\"config\":{},\"peers\":[\"1.2.3.4$line$esc\"]}" \
	"is not a numeric address"
for _ in $(seq 50); do [ "$(grep -c 'refused' "$TMP/agent.log")" -ge 3 ] && break; sleep 0.1; done
log=$TMP/agent.log

# Each refusal is one line of its own, and every line of the log is the agent's: the line it
# listens with, then the three refusals.
[ "$(grep -vc '^sockbench serve: listening on ' "$log")" -eq 3 ] ||
	fail "3 refusals, not 3 lines: $(cat -A "$log")"
[ "$(grep -c '^sockbench serve: 127\.0\.0\.1: refused: ' "$log")" -eq 3 ] ||
	fail "a line of the log is not a refusal: $(cat -A "$log")"
grep -E '^(sockbench serve: 127\.0\.0\.1: )?(authenticated|FORGED)' "$log" &&
	fail "a forged line in the log: $(cat -A "$log")"
# No control byte (but the newlines that end the agent's own lines), no C1 CSI.
LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$log" && fail "control bytes in the log: $(cat -A "$log")"
LC_ALL=C grep -q $'\xc2\x9b' "$log" && fail "a C1 CSI in the log: $(cat -A "$log")"
# What was sent is there, escaped: a newline as \n, ESC, BEL and CSI as \xNN.
for want in "refused: unknown config key 'x\\nsockbench serve: 127.0.0.1: authenticated, running tcp-rr\\x1b]0;pwned\\x07\\xc2\\x9b2J'" \
	"refused: --io m\\nsockbench serve: 127.0.0.1: FORGED is not one of" \
	"refused: SETUP peers: 1.2.3.4\\nsockbench serve: 127.0.0.1: authenticated, running tcp-rr\\x1b]0;pwned\\x07\\xc2\\x9b2J is not a numeric address"; do
	grep -qF -- "$want" "$log" || fail "the log lacks: $want; it holds: $(cat -A "$log")"
done
# The agent still serves a test after them.
"$SB" udp-rr --server 127.0.0.1:$AGENT_PORT --duration 0.3 --warmup 0.1 --json >"$TMP/ok.json" ||
	fail "the agent serves no test after the forged SETUPs"
jassert "$TMP/ok.json" '.transactions > 0'
exit 0
