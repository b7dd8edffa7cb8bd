# The flag vocabulary (docs/vocabulary.md): each habit of an iperf3, netperf, sockperf or neper
# user either means what it means there (checked in the run's JSON config) or is a one-line
# usage error, exit 2, that names the new spelling. Never a silent change of meaning: each row
# fails if the flag were still read the old way (-t 10 as 10 ms, -R 2 as two runs, ...), and a
# long option is taken only whole (getopt's prefixes made iperf3's --time our --timeout).
# aside: it checks each flag's meaning in the run's config, no rate (7 s, 4.3 s of CPU)
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
# The peers' tables of docs/vocabulary.md, row by row: the command in the last column exits 2
# with a one-line message holding the spelling that starts the middle column. The doc and the
# binary drift apart only by failing here; a table emptied or a heading renamed fails too.
DOC=$(dirname "$0")/../../docs/vocabulary.md
for peer in iperf3 netperf sockperf neper; do
	awk -v h="### $peer users" '$0 == h {p = 1; next} /^#/ {p = 0} p && /^\| `/' "$DOC" \
		>"$TMP/rows.$peer"
	[ "$(wc -l <"$TMP/rows.$peer")" -ge 5 ] || fail "docs/vocabulary.md: '$peer users' has under 5 rows"
	while IFS='|' read -r _ they here tried _; do
		needle=$(printf '%s' "$here" | sed -n 's/^ *`\([^`]*\)`.*/\1/p')
		cmd=$(printf '%s' "$tried" | sed -n 's/^ *`sockbench \([^`]*\)` *$/\1/p')
		[ -n "$needle" ] && [ -n "$cmd" ] || fail "docs/vocabulary.md ($peer): unreadable row:$they|$here|$tried"
		# shellcheck disable=SC2086 # the words are split on purpose
		expect_usage "$needle" $cmd
	done <"$TMP/rows.$peer"
done
# udp-stream's bit rate: -b's k/M/G are 1000-based, the datagram rate is the bit rate over
# size x 8, and a rate given too is a conflict, not a silent choice.
expect_usage "--bitrate and --rate together" udp-stream --bitrate 100M --rate 5
expect_usage "unknown unit Q; use k, M or G" udp-stream --bitrate 100Q
expect_usage "--bitrate 1000 at --size 1472 is 0.0849" udp-stream --bitrate 1k
"$SB" udp-stream --bitrate 1.5M -m 1000 --help >/dev/null || fail "udp-stream --bitrate 1.5M: exit $?"
# A bare -l past 600 s asks for a unit; with one it is taken.
expect_usage "-l 1400 is 23 minutes; write -l 1400s if you mean it" tcp-stream -l 1400
"$SB" tcp-stream -l 1400s --help >/dev/null || fail "tcp-stream -l 1400s: exit $?"

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
.bitrate == 100000000 and .rate == 8492 and .size == 1472|udp-stream -l 300ms --bitrate 100M
.bitrate == 8000000 and .rate == 1000 and .size == 1000|udp-stream -l 300ms --bitrate 8M -m 1000
ROWS
# A swept size with a unit: the table, CSV and JSON give what ran (2048), not atof's 2.
"$SB" sweep tcp-rr --size 1,2K --runs 1 -l 200ms --warmup 0 --json >"$TMP/sw.json" 2>"$TMP/err" ||
	fail "sweep with units: $(tail -3 "$TMP/err")"
jassert "$TMP/sw.json" '[.points[].values.size] | sort == [1, 2048]' '[.points[].values]'
echo ok
