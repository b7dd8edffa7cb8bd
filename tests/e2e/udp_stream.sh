# udp-stream: runs of 1-2 s whose datagram counts agree with the kernel's; our loss (gaps in
# the sequence numbers) against RcvbufErrors; --rate 10000 delivers 10,000 +- 2% a second
# (plus the edges' delays) without loss the kernel did not see; GSO and GRO; --reverse, --bidir;
# batching; bad flags.
# solo: --rate 10000 within 2%
. "$(dirname "$0")/lib.sh"
need jq

agrees() { # file, counter: ours beside the kernel's, within lib.sh's kok
	jassert "$1" "$KOK"" lag as \$l | .duration_s as \$d | .kernel_check.counters.$2 | kok(\$d; \$l)" '.kernel_check'
}

"$SB" udp-stream --duration 1.5 --warmup 0.3 --json >"$TMP/a.json" || fail "udp-stream failed"
jassert "$TMP/a.json" '.partial == false and .errors == 0 and .packets_per_s > 1000 and .unit == "packet" and .rate == .packets_per_s'
agrees "$TMP/a.json" InDatagrams
agrees "$TMP/a.json" OutDatagrams
# --wait auto: the receiver retries before it sleeps where its client and server threads each
# have a CPU this process may use (2 here), and says why; a paced run sleeps at once.
if [ "$(nproc)" -ge 2 ]; then want="block, retrying 5 us first"; else want=block; fi
jassert "$TMP/a.json" ".config.wait_receiver == \"$want\" and (.config.wait_receiver_reason | length > 20)" .config
# ... as the receiving host chose it, with its own CPUs: an agent held to one CPU sleeps at once.
if [ "$(nproc)" -ge 2 ]; then
	receiver_elsewhere udp-stream "receiver's host decides"
	stop_agent
fi
# Full speed overflows the receiver's buffer: every gap we count is a drop the kernel counted,
# give or take the window's edges (the server's window is a control message wider at each
# end than the kernel's reads, and drops come in bursts).
# Under ASan the sides see the window's edges later, and at full speed drops come at hundreds a
# second: half the kernel's count is allowed there (CI saw 1,766 against 1,232), a quarter
# here (a loaded make test saw 1,900 against 2,431 once; alone it passes within a tenth).
edge=0.25
sanitized && edge=0.5
jassert "$TMP/a.json" "(.packets_sent_per_s * (.kernel_check.read_after_edge_us | .open + .close) / 1e6) as \$lag | .kernel_check.counters.RcvbufErrors | ((.ours - .kernel) | fabs) <= $edge * .kernel + 20 + \$lag" '.kernel_check'
# What the clients counted sent is what the server counted received or lost (edges aside).
jassert "$TMP/a.json" '(.packets_sent - .packets_received - .loss | fabs) <= 0.01 * .packets_sent + 64' '{packets_sent, packets_received, loss}'
jassert "$TMP/a.json" '.cpu_us_per_packet | .client_per_sent > 0 and .server_per_received > 0'

# Paced: 10,000 a second, two clients of two flows each, nothing lost. The default receive
# buffer (208 KB) holds ~90 full-size datagrams, 9 ms at this rate, and this shared VM
# sometimes leaves a thread off its CPU that long: a 2 MB buffer rides it out.
"$SB" udp-stream --rate 10000 --rcvbuf 2097152 --clients 2 --peers 4 --duration 1.5 --warmup 0.3 --json >"$TMP/r.json" || fail "--rate failed"
jassert "$TMP/r.json" "$KOK"' held(10000) and ((.holding_load | not) or paced(.packets_sent_per_s; 10000))' '{packets_per_s, packets_sent_per_s, duration_s, k: .kernel_check}'
jassert "$TMP/r.json" "$KOK"' drops_seen and .duplicates == 0' '{loss, duplicates, k: .kernel_check}'
agrees "$TMP/r.json" InDatagrams
jassert "$TMP/r.json" '.config.wait_receiver == "block" and (.config.wait_receiver_reason | test("paced"))' .config

# GSO: 8 datagrams per send; the kernel counts a send once. GRO: one read takes many (with
# --wait block, as every call but a timed-out one takes something: --wait auto's retries on
# an empty socket are calls too, counted).
"$SB" udp-stream --gso 8 --rate 40000 --rcvbuf 4194304 --duration 1 --warmup 0.3 --json >"$TMP/g.json" || fail "--gso failed"
jassert "$TMP/g.json" "$KOK"' drops_seen and held(40000) and .sides.client.syscalls_per_unit < 0.5' '{packets_per_s, loss, s: .sides.client.syscalls_per_unit, k: .kernel_check}'
agrees "$TMP/g.json" OutDatagrams
agrees "$TMP/g.json" InDatagrams
"$SB" udp-stream --gso 8 --gro --wait block --duration 1 --warmup 0.3 --json >"$TMP/gg.json" || fail "--gso --gro failed"
jassert "$TMP/gg.json" '.errors == 0 and .packets_per_s > 1000 and .sides.server.syscalls_per_unit < 1'
agrees "$TMP/gg.json" InDatagrams

# --reverse: the server sends to each client socket that said hello; the clients count.
"$SB" udp-stream --reverse --clients 2 --duration 1 --warmup 0.3 --json >"$TMP/v.json" || fail "--reverse failed"
jassert "$TMP/v.json" '.partial == false and .errors == 0 and .packets_per_s > 1000 and .sides.server.packets_sent > 0 and .sides.client.packets_received == .packets_received and .sides.server.packets_received == 0' '{errors, packets_per_s, sides}'
jassert "$TMP/v.json" '.cpu_us_per_packet | .server_per_sent > 0 and .client_per_received > 0' '.cpu_us_per_packet'
agrees "$TMP/v.json" InDatagrams
agrees "$TMP/v.json" OutDatagrams
# Reversed, the sender's window is the agent's, a control message from the kernel's reads, and
# the clients' full buffers still hold datagrams sent before it opened: drops of those fall in
# the kernel's count and not in ours (seen: 288 against 574). Half the kernel's count.
jassert "$TMP/v.json" '(.packets_sent_per_s * (.kernel_check.read_after_edge_us | .open + .close) / 1e6) as $lag | .kernel_check.counters.RcvbufErrors | ((.ours - .kernel) | fabs) <= 0.5 * .kernel + 50 + $lag' '.kernel_check'
"$SB" udp-stream --reverse --rate 10000 --rcvbuf 2097152 --clients 2 --peers 4 --duration 1.5 --warmup 0.3 --json >"$TMP/vr.json" || fail "--reverse --rate failed"
jassert "$TMP/vr.json" "$KOK"' held(10000) and drops_seen and .duplicates == 0' '{packets_per_s, loss, k: .kernel_check}'
"$SB" udp-stream --reverse --gso 8 --gro --io uring --batch 8 --duration 1 --warmup 0.3 --json >"$TMP/vg.json" || fail "--reverse --gso --gro failed"
jassert "$TMP/vg.json" '.errors == 0 and .packets_per_s > 1000 and .sides.server.syscalls_per_unit < 0.5' '{errors, packets_per_s, s: .sides.server.syscalls_per_unit}'
agrees "$TMP/vg.json" OutDatagrams

# --bidir: a sender each way per flow, two clients; both ways' rates are each receiver's own
# count, both sides' sends and receives stand beside the kernel's Udp counters.
"$SB" udp-stream --bidir --clients 2 --duration 1 --warmup 0.3 --json >"$TMP/bi.json" || fail "--bidir failed"
jassert "$TMP/bi.json" '.partial == false and .errors == 0 and .sides.client.packets_sent > 0 and .sides.server.packets_sent > 0 and .packets_received == .sides.client.packets_received + .sides.server.packets_received and .packets_sent == .sides.client.packets_sent + .sides.server.packets_sent' '{errors, packets_received, packets_sent, sides}'
jassert "$TMP/bi.json" '.duration_s as $d | .packets_per_s_by_direction | .client_to_server > 1000 and .server_to_client > 1000' '{packets_per_s_by_direction, sides}'
jassert "$TMP/bi.json" '.duration_s as $d | (.packets_per_s_by_direction.client_to_server * $d - .sides.server.packets_received | fabs) < 1 and (.packets_per_s_by_direction.server_to_client * $d - .sides.client.packets_received | fabs) < 1' '{duration_s, packets_per_s_by_direction, sides}'
jassert "$TMP/bi.json" '.cpu_us_per_packet | .client_per_sent_and_received > 0 and .server_per_sent_and_received > 0' '.cpu_us_per_packet'
# Its one socket a flow sends and receives and waits in poll(): no retries, on any machine.
jassert "$TMP/bi.json" '(.config.wait_receiver | test("retrying") | not) and (.config.wait_receiver_reason | test("--bidir"))' .config
agrees "$TMP/bi.json" InDatagrams
agrees "$TMP/bi.json" OutDatagrams
"$SB" udp-stream --bidir --rate 10000 --rcvbuf 2097152 --peers 2 --duration 1 --warmup 0.3 >"$TMP/bi.txt" || fail "--bidir text failed"
grep -q "client to server (packets/s)" "$TMP/bi.txt" || fail "--bidir: no line for each way: $(cat "$TMP/bi.txt")"

for io in $("$SB" list-io); do
	"$SB" udp-stream --io $io --batch 16 --duration 0.6 --warmup 0.2 --json >"$TMP/b.json" 2>"$TMP/err"
	rc=$?
	case $rc in
	0) jassert "$TMP/b.json" '.errors == 0 and .packets_per_s > 1000' && agrees "$TMP/b.json" InDatagrams ;;
	2) grep -q "not applicable" "$TMP/err" || fail "--io $io: exit 2 without a reason" ;;
	*) fail "--io $io --batch 16: exit $rc: $(cat "$TMP/err")" ;;
	esac
done

# --bitrate 8M at 1000-byte datagrams is 1000 datagrams per second (8e6 / (1000 x 8)): the
# clients' send rate over the window is that within 2% plus a datagram either side of each
# edge of the measured window (2 / its length), or the run says it fell short (partial).
"$SB" udp-stream --bitrate 8M -m 1000 -l 1 --warmup 0.2 --json >"$TMP/br.json" 2>"$TMP/err" ||
	fail "--bitrate 8M: exit $?: $(cat "$TMP/err")"
jassert "$TMP/br.json" '.config.bitrate == 8000000 and .config.rate == 1000' '.config'
jassert "$TMP/br.json" '.partial or ((.sides.client.packets_sent_per_s - 1000 | fabs) <=
	20 + 2 / .duration_s)' '{sent: .sides.client.packets_sent_per_s, d: .duration_s, partial}'
# Through a serve agent: the SETUP carries the rate the bit rate made and not the bit rate (an
# agent before --bitrate refuses a key it does not know; this one, given both, would refuse
# them as a conflict), and the run is the same.
start_agent --once
"$SB" udp-stream --server "127.0.0.1:$AGENT_PORT" --bitrate 8M -m 1000 -l 0.5 --warmup 0.1 \
	--json >"$TMP/bra.json" 2>"$TMP/err" || fail "--bitrate via an agent: exit $?: $(cat "$TMP/err")"
jassert "$TMP/bra.json" '.config.bitrate == 8000000 and .config.rate == 1000' '.config'
jassert "$TMP/bra.json" '.partial or ((.sides.client.packets_sent_per_s - 1000 | fabs) <=
	20 + 2 / .duration_s)' '{sent: .sides.client.packets_sent_per_s, d: .duration_s, partial}'
expect_usage "--size" udp-stream --size 8
expect_usage "not applicable" udp-stream --gso 64 --size 1472
expect_usage "not applicable" udp-stream --io msg --batch 4
expect_usage "checksums" udp-stream --gso 4 --no-check
expect_usage "--rate" udp-stream --rate -5
# A flag of another workload: not applicable here, and where it is.
expect_usage "a flag of udp-stream" udp-rr --gso 4
expect_usage "not applicable" udp-stream --window 5
expect_usage "a flag of tcp-stream" udp-stream --zerocopy
expect_usage "choose one" udp-stream --bidir --reverse
echo ok
