# tcp-stream -n BYTES (iperf3 -n): the clients send exactly that many bytes in the window, and
# the kernel's own count of bytes in (loopback: every byte sent is received here) holds them
# plus only the headers; --duration bounds it (partial); bad combinations exit 2.
# aside: its runs are bounded by bytes, not time, and it checks counts only (7 s, 2 s of CPU)
. "$(dirname "$0")/lib.sh"
need jq
expect_usage "not with --reverse" tcp-stream -n 1000000 --reverse
expect_usage "not with --bidir" tcp-stream --bytes 1000000 --bidir

n=1500000001 # not a multiple of anything: the last send of each connection is cut to fit
"$SB" tcp-stream -n $n --clients 2 --flows 2 --warmup 0.3 --json >"$TMP/a.json" || fail "tcp-stream -n"
jassert "$TMP/a.json" ".partial == false and .sides.client.bytes_sent == $n and .config.bytes == $n" \
	'[.partial_reason, .sides.client.bytes_sent]'
# InOctets over the window: the n bytes, plus IP and TCP headers of every segment in (at most
# 20 + 60 bytes each, the data's and the ACKs': InSegs), plus every retransmitted segment
# received again (loopback's segments hold up to 64 KB: a few dozen RetransSegs were seen in
# a window), plus the control connection's few messages (BEGIN, END and their answers: 64 KB
# allows for them). A sender that went on past n, or whose warm-up data was still crossing
# the edge, is caught here.
jassert "$TMP/a.json" ".kernel.InOctets >= $n and .kernel.InOctets - $n <= 80 * .kernel.InSegs + 65616 * .kernel.RetransSegs + 65536" \
	'{k: .kernel | {InOctets, InSegs, RetransSegs}, d: (.kernel.InOctets - '$n')}'
# The server reads what is in its buffers between its own edges: warm-up data still unread
# when its window opened, less what it had not read yet when it closed; either at most what
# its receive buffers hold (lib.sh rbuf). 1,504,197,975 for 1,500,000,001 was seen here.
jassert "$TMP/a.json" "$KOK"' (.sides.server.bytes_received - '$n' | fabs) <= rbuf' \
	'[.sides.server.bytes_received, rbuf]'
# A window shorter than the bytes need: cut by --duration, partial, and said so.
"$SB" tcp-stream -n 1000000000000000 --duration 0.5 --warmup 0.1 --json >"$TMP/p.json" 2>"$TMP/p.err"
jassert "$TMP/p.json" '.partial == true and (.partial_reason | test("--duration")) and .duration_s < 1.5' \
	'[.partial_reason, .duration_s]'
echo ok
