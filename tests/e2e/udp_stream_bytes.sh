# udp-stream -n BYTES (iperf3 -n): the clients send N bytes in whole datagrams, each client at
# most one message over its share (a datagram; with --gso, one send's segments), and the
# window ends there; the kernel's own count of datagrams sent, read around the whole run,
# holds exactly those (plus what else this host sent meanwhile); --duration bounds it
# (partial); -n with --reverse or --bidir exits 2, as tcp-stream's.
. "$(dirname "$0")/lib.sh"
need jq
out_datagrams() { awk '/^Udp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c["OutDatagrams"] }' /proc/net/snmp; }
expect_usage "not with --reverse" udp-stream -n 1000000 --reverse
expect_usage "not with --bidir" udp-stream --bytes 1M --bidir

# One client, no warm-up: every datagram the run sends is the window's (the server sends none,
# the control connection is TCP). N is not a multiple of the size: the last datagram goes over.
n=20000001 m=1400
k0=$(out_datagrams)
"$SB" udp-stream -n $n --size $m --warmup 0 --json >"$TMP/a.json" || fail "udp-stream -n"
k1=$(out_datagrams)
d=$((k1 - k0))
jassert "$TMP/a.json" ".partial == false and .config.bytes == $n and .sides.client.bytes_sent >= $n and
	.sides.client.bytes_sent < $n + $m and .sides.client.bytes_sent == .sides.client.packets_sent * $m" \
	'[.partial_reason, .sides.client.bytes_sent, .sides.client.packets_sent]'
# The kernel's datagrams out over the run against ours: never fewer (a sender that counted more
# than it sent), and more only by what other programs of this host sent in that second (a
# resolver, NTP: 16 allowed; the tests that send run one at a time, under a lock).
jassert "$TMP/a.json" "$d * $m >= .sides.client.bytes_sent and $d - .sides.client.packets_sent <= 16" \
	"[$d, .sides.client.packets_sent]"
# The window's length: the coordinator's, which holds the client's own (it closes once the
# client says it is done), and the rate is what went in it.
jassert "$TMP/a.json" '.duration_s > 0 and .sides.client.window_s.max <= .duration_s + 0.001 and
	(.packets_sent_per_s - .sides.client.packets_sent / .duration_s | fabs) <= 0.001 * .packets_sent_per_s + 1' \
	'[.duration_s, .sides.client.window_s, .packets_sent_per_s]'

# Two clients with their warm-up, 4 datagrams a send (GSO, which the kernel counts once a send):
# each client's share is N / 2, each at most one send's 4 datagrams over.
"$SB" udp-stream -n $n --size $m --clients 2 --gso 4 --batch 2 --warmup 0.2 --json >"$TMP/g.json" ||
	fail "udp-stream -n --gso"
jassert "$TMP/g.json" ".partial == false and .sides.client.bytes_sent >= $n and
	.sides.client.bytes_sent < $n + 2 * 4 * $m and .sides.client.bytes_sent == .sides.client.packets_sent * $m" \
	'[.partial_reason, .sides.client.bytes_sent]'

# A window shorter than the bytes need: cut by --duration, partial, and said so.
"$SB" udp-stream -n 1000000000000000 --rate 1000 --duration 0.5 --warmup 0.1 --json >"$TMP/p.json" 2>"$TMP/p.err"
jassert "$TMP/p.json" '.partial == true and (.partial_reason | test("--duration")) and .duration_s < 1.5 and
	.sides.client.bytes_sent < 1000000000000000' '[.partial_reason, .duration_s]'
echo ok
