# Every --recv call and read size receives the same bytes.
. "$(dirname "$0")/lib.sh"
need jq
for call in recv read recvmsg readv waitall; do
	for rs in 0 1000; do
		"$SB" tcp-crr --conns 300 --warmup-conns 10 --recv $call --read-size $rs --json >"$TMP/r.json" \
			|| fail "--recv $call failed"
		jassert "$TMP/r.json" '.connections == 300 and .bytes_received == 300 * 20000 and .errors == 0' \
			'{connections, bytes_received, errors, config}'
		# Smaller reads mean more calls: at least one per 1000 bytes.
		[ $rs = 1000 ] && [ $call != waitall ] && jassert "$TMP/r.json" '.sides.client.packets_received >= 300 * 20'
	done
done
echo ok
