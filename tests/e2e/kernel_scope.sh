# Where the kernel-counter check counts both sides comes from where the server is, not from how
# it was reached: an agent listening on an address of this host that is not loopback (a dummy
# veth's 198.18.99.1, made here in this namespace) shares this network stack, so the kernel's counters count
# its side too, the scope says "client+server" and ours match theirs; an agent in another
# network namespace (netns.sh) is the client-only case.
. "$(dirname "$0")/lib.sh"
need jq
need ip
[ "$(id -u)" -eq 0 ] || skip "needs root to add an interface"
IF=sbsc$$
ip link add "$IF" type veth peer name "${IF}p" 2>/dev/null || skip "cannot add a veth pair here"
cleanup_if() { ip link del "$IF" 2>/dev/null; cleanup; }
trap cleanup_if EXIT
ip addr add 198.18.99.1/32 dev "$IF" && ip link set "$IF" up && ip link set "${IF}p" up ||
	fail "cannot address $IF"
start_agent --listen 198.18.99.1
for w in udp-rr tcp-rr; do
	"$SB" $w --server 198.18.99.1:$AGENT_PORT --duration 1 --warmup 0.2 --json >"$TMP/$w.json" \
		2>"$TMP/$w.err" || fail "$w against this host's 198.18.99.1: $(cat "$TMP/$w.err")"
	jassert "$TMP/$w.json" '.kernel_check.scope == "client+server"' '.kernel_check'
done
# Both ends counted: ours (both sides' datagrams) within 2% of the kernel's, as udp_rr_json.sh
# holds on loopback; the client side alone would be half of the kernel's (-50%).
jassert "$TMP/udp-rr.json" "$KOK"' kall and (.kernel_check.counters | has("InDatagrams") and has("OutDatagrams"))' '.kernel_check'
echo ok
