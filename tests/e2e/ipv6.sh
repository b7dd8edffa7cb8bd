# Every workload over IPv6 (-6: the local agent and the data on ::1): it runs, and our counts
# agree with the kernel's IPv6 counters (/proc/net/snmp6 for UDP and IP bytes; TCP's row in
# /proc/net/snmp counts both families). -4 and -6 together are refused.
. "$(dirname "$0")/lib.sh"
need jq
[ -r /proc/net/snmp6 ] || skip "no IPv6 in this kernel"
ip -6 addr show dev lo | grep -q "::1" || skip "no ::1 on lo"
for w in udp-rr tcp-rr tcp-crr tcp-stream udp-stream; do
	extra=
	[ $w = tcp-crr ] && extra="--conns 1000 --warmup-conns 50"
	# shellcheck disable=SC2086
	"$SB" $w -6 --duration 1 --warmup 0.2 $extra --json >"$TMP/$w.json" 2>"$TMP/err" || fail "$w -6: $(cat "$TMP/err")"
	jassert "$TMP/$w.json" '.partial == false and .rate > 0' '{partial_reason}'
	# Within 2% and the edges' delays (lib.sh's kok); drops come in bursts at the edges, and
	# so do retransmits (3 + 10% of them, as tcp_stream.sh). tcp-rr has no pair to check.
	jassert "$TMP/$w.json" "$KOK"' lag as $l | .duration_s as $d | [.kernel_check.counters | to_entries[] | select(.key != "RcvbufErrors") | (.key == "RetransSegs") as $r | .value | (kok($d; $l) or ($r and ((.ours - .kernel) | fabs) <= 3 + 0.1 * .kernel))] | all' '.kernel_check'
	echo "$w -6: $(jq -c '.kernel_check.counters | map_values(.diff_pct)' "$TMP/$w.json")"
done
# udp-rr's pairs are the Udp6 counters: both of them, and they moved.
jassert "$TMP/udp-rr.json" '.kernel_check.counters | (.InDatagrams.kernel > 1000 and .OutDatagrams.kernel > 1000)' '.kernel_check'
jassert "$TMP/tcp-stream.json" '.kernel_check.counters.InOctets.kernel > 0' '.kernel_check'
expect_usage "give one" udp-rr -4 -6
echo ok
