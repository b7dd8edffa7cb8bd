# Socket knobs: --cc, --mss, --tos, --bind. Each is read back by an outside tool (ss) from a
# live connection of each side and compared with what the JSON says was in force
# (sides.*.socket); the usage errors exit 2 with a clear message.
. "$(dirname "$0")/lib.sh"
need jq
need ss
# A congestion control other than the kernel's default, so a knob never set reads differently.
def=$(cat /proc/sys/net/ipv4/tcp_congestion_control)
cc=$(tr ' ' '\n' </proc/sys/net/ipv4/tcp_available_congestion_control | grep -vx "$def" | head -1)
[ -n "$cc" ] || cc=$def
src=127.0.0.7

expect_usage "available here" tcp-rr --cc no-such-cc
expect_usage "88 to 32767" tcp-stream --mss 50
expect_usage "--cc is not applicable to udp-rr" udp-rr --cc "$cc"
expect_usage "--mss is not applicable to udp-stream" udp-stream --mss 1000
expect_usage "not an address of this host" tcp-crr --bind 198.18.255.254
expect_usage "no device" udp-rr --bind "$src%no-such-dev0"
expect_usage "add -6" tcp-rr --bind ::1
expect_usage "give one" tcp-crr --bind "$src" --src-addrs 4

# tcp-stream: ss reads a client connection (from $src) and a server one (to $src) mid-run.
"$SB" tcp-stream --duration 3 --warmup 0.2 --clients 1 --cc "$cc" --mss 1000 --tos 16 \
	--bind "$src" --json >"$TMP/s.json" 2>"$TMP/s.err" &
PIDS+=($!)
pid=$!
sleep 1.5
ss -tinH --tos state established "src $src" >"$TMP/ss.client"
ss -tinH --tos state established "dst $src" >"$TMP/ss.server"
wait $pid || fail "tcp-stream with knobs: $(cat "$TMP/s.err")"
for side in client server; do
	f=$TMP/ss.$side
	[ -s "$f" ] || fail "ss found no $side connection of $src mid-run"
	grep -qw "$cc" "$f" || fail "ss: the $side's connection is not on $cc: $(head -2 "$f")"
	grep -q 'tos:0x10' "$f" || fail "ss: the $side's connection has no tos 0x10: $(head -2 "$f")"
	mss=$(grep -o ' mss:[0-9]*' "$f" | head -1 | cut -d: -f2)
	[ -n "$mss" ] || fail "ss shows no mss for the $side: $(head -2 "$f")"
	# The JSON's MSS is the kernel's read-back (TCP options off the 1000 asked), the one ss shows.
	jassert "$TMP/s.json" ".sides.$side.socket | .cc == \"$cc\" and .mss == $mss and .tos == 16" \
		".sides.$side.socket"
done
jassert "$TMP/s.json" '.sides.client.socket.local == "'$src'" and .sides.server.socket.local == "127.0.0.1"' '.sides[].socket'
jassert "$TMP/s.json" '.config.cc == "'"$cc"'" and .config.mss == 1000 and .config.tos == 16 and .config.bind == "'$src'"' .config

# Without the knobs the kernel's own are what the JSON says: its default congestion control.
"$SB" tcp-rr --duration 0.3 --warmup 0.1 --json >"$TMP/d.json" || fail "tcp-rr"
jassert "$TMP/d.json" '.sides.client.socket.cc == "'"$def"'" and .config.cc == "'"$def"'" and .sides.client.socket.tos == 0 and .sides.client.socket.device == null and .config.bind == null' '[.config.cc, .sides.client.socket]'

# tcp-rr and tcp-crr (short connections: the JSON only), with a device as well.
"$SB" tcp-rr --duration 0.5 --warmup 0.1 --cc "$cc" --mss 600 --tos 8 --bind "$src%lo" --json \
	>"$TMP/r.json" || fail "tcp-rr with knobs"
"$SB" tcp-crr --conns 500 --warmup-conns 50 --cc "$cc" --mss 600 --tos 8 --bind "$src%lo" --json \
	>"$TMP/c.json" || fail "tcp-crr with knobs"
for f in r c; do
	jassert "$TMP/$f.json" '[.sides.client.socket, .sides.server.socket] | all(.cc == "'"$cc"'" and .mss <= 600 and .mss >= 500 and .tos == 8)' '.sides[].socket'
	jassert "$TMP/$f.json" '.sides.client.socket | .local == "'$src'" and .device == "lo"' '.sides.client.socket'
done

# udp-rr: ss reads a client socket bound to $src and its TOS mid-run.
"$SB" udp-rr --duration 3 --warmup 0.2 --clients 1 --tos 184 --bind "$src" --json >"$TMP/u.json" &
PIDS+=($!)
pid=$!
sleep 1.5
ss -uanH --tos "src $src" >"$TMP/ss.udp"
wait $pid || fail "udp-rr with knobs"
grep -q 'tos:0xb8' "$TMP/ss.udp" || fail "ss: no UDP socket of $src with tos 0xb8: $(cat "$TMP/ss.udp")"
jassert "$TMP/u.json" '.sides.client.socket | .local == "'$src'" and .tos == 184 and .cc == null and .mss == null' '.sides.client.socket'
jassert "$TMP/u.json" '.sides.server.socket.tos == 184' '.sides.server.socket'
"$SB" udp-stream --duration 0.3 --warmup 0.1 --tos 4 --bind "$src" --json >"$TMP/us.json" ||
	fail "udp-stream with knobs"
jassert "$TMP/us.json" '.sides.client.socket.local == "'$src'" and .sides.client.socket.tos == 4 and .sides.server.socket.tos == 4' '.sides[].socket'
echo ok
