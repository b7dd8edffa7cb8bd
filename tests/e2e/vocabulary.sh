# The flag vocabulary (docs/vocabulary.md): each habit of an iperf3 or netperf
# user either means what it means there (checked in the run's JSON config) or is a one-line
# usage error, exit 2, that names the new spelling. Never a silent change of meaning: each row
# fails if the flag were still read the old way (-t 10 as 10 ms, -R 2 as two runs, ...), and a
# long option is taken only whole (getopt's prefixes made iperf3's --time our --timeout).
. "$(dirname "$0")/lib.sh"
need jq

# expect  words...           (error rows: the message must hold the needle)
while IFS='|' read -r needle args; do
	[ -z "$needle" ] && continue
	# shellcheck disable=SC2086 # the words are split on purpose
	expect_usage "$needle" $args
done <<'ROWS'
-t is the duration now|tcp-stream -t 10
--timeout 10 (milliseconds)|tcp-rr -t 10
--runs 2|tcp-stream -R 2
--runs 2|udp-stream -R2
-R is --reverse|tcp-rr -R
--server HOST|tcp-stream -s 192.0.2.1
--server HOST|tcp-stream -c 192.0.2.1
--warmup S|tcp-stream -w 64K
--peers N|udp-rr -P 4
--flows N|tcp-stream -P 4
--batch N|udp-rr -b 8
--server-threads N|udp-rr -T 2
--concurrency N|tcp-crr -C 2
unknown unit K|tcp-stream -l 64K
unknown unit Q; use K, M, G, KiB, MiB or GiB|tcp-stream -m 64Q
--timeout is not applicable to udp-stream|udp-stream --timeout 5
did you mean 'tcp-stream'|tcp-strem
did you mean '--flows'|tcp-rr --flwos 2
unknown option '--time': the run's length is -l/--duration|tcp-stream --time 10
unknown option '--time'|tcp-rr --time 10
did you mean '--flows'|tcp-rr --flow 3
unknown option '--w'|udp-rr --w 1
--reverse takes no value: give --reverse alone; did you mean --runs 2?|tcp-stream --reverse=2
--size '0x10' is not a size|tcp-stream -m 0x10
--size '1e3' is not a size|udp-rr --size 1e3
--duration '1e1' is not a time|udp-rr -l 1e1
--size 0 is out of range: use 1 to 65,507 bytes|udp-rr -m 0
--size 64K (65,536 bytes) is out of range: use 1 to 65,507 bytes|udp-rr -m 64K
--duration 0 is out of range: use 0.1 to 86,400 seconds|udp-rr --duration 0
--window 0 is out of range: use 1 to 65,536 (requests outstanding per client)|udp-rr --window 0
'client=0,client=1' gives client= twice|tcp-rr --cpus client=0,client=1
ROWS
# A long value: its first 40 bytes and "...", then the reason whole (it was cut off before).
long=$(printf 'w%.0s' $(seq 300))
expect_usage "--wait ${long:0:40}... is not one of auto|poll|epoll|busy|block" udp-rr --wait "$long"
expect_usage "x...: unknown unit xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...; use K, M, G, KiB, MiB or GiB (1024-based, as iperf3), or a bare number of bytes" udp-rr --size "1$(printf 'x%.0s' $(seq 300))"

# Common meanings, read back from the config of a short real run: jq test on config.
while IFS='|' read -r test args; do
	[ -z "$test" ] && continue
	# shellcheck disable=SC2086
	timeout 60 "$SB" $args --warmup 0 --json >"$TMP/r.json" 2>"$TMP/err" ||
		fail "sockbench $args: exit $? ($(tail -3 "$TMP/err"))"
	jq -e ".config | $test" "$TMP/r.json" >/dev/null ||
		fail "sockbench $args: config fails '$test': $(jq -c .config "$TMP/r.json")"
done <<'ROWS'
.duration == 0.3 and .timeout == 5000|tcp-stream -t 300ms
.duration == 0.25|udp-rr -l 0.25
.duration == 0.3 and .reverse == true and .size == 65536|tcp-stream -l 0.3 -R -m 64K
.request == 2048 and .response == 2048|tcp-rr -l 300ms -m 2K
.request == 2048 and .response == 7|tcp-rr -l 300ms -m 2K -r 7
.timeout == 1000 and .ipv4 == true and .io == "msg"|udp-rr -l 300ms --timeout 1s
.io == "mmsg" and .batch == 8|udp-rr -l 300ms --batch 8
.reverse == true and .duration == 0.3|udp-stream -R -t 0.3s
ROWS
# A swept size with a unit: the table, CSV and JSON give what ran (2048), not atof's 2.
"$SB" sweep tcp-rr --size 1,2K --runs 1 -l 200ms --warmup 0 --json >"$TMP/sw.json" 2>"$TMP/err" ||
	fail "sweep with units: $(tail -3 "$TMP/err")"
jassert "$TMP/sw.json" '[.points[].values.size] | sort == [1, 2048]' '[.points[].values]'
echo ok
