# The command line's edges found by an attack on it (issue 31): help under a multi-run command,
# a command whose every run failed, --fields, several result files in one report. Each check
# fails on the behaviour it replaced (an error for `explore tcp-rr --help`, exit 0 after no run).
. "$(dirname "$0")/lib.sh"
need jq

# The version a result file records is the tree's it was built from, after a commit too (it
# was compiled in when json.c or main.c last changed: a build after other commits said an old
# one). `make test` builds first, so the binary here is this tree's.
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$SB" = "$src/build/sockbench" ] && tree=$(git -C "$src" describe --always --dirty 2>/dev/null); then
	[ "$("$SB" version)" = "sockbench $tree" ] || fail "version: $("$SB" version), the tree is at $tree"
	"$SB" udp-rr --duration 0.1 --warmup 0 --json >"$TMP/v.json" || fail "udp-rr for the version"
	jassert "$TMP/v.json" ".version == \"$tree\"" .version
fi

# WORKLOAD --help under explore, compare, sweep and knee: the workload's flags, exit 0.
# check_help CMD WORKLOAD WORDS...: sockbench CMD WORDS... prints WORKLOAD's flags under CMD.
check_help() {
	local cmd=$1 wl=$2
	shift 2
	"$SB" "$cmd" "$@" >"$TMP/help" 2>"$TMP/err" || fail "sockbench $cmd $*: exit $? ($(cat "$TMP/err"))"
	grep -qF "usage: sockbench $cmd $wl [options]" "$TMP/help" ||
		fail "sockbench $cmd $*: no usage line: $(head -3 "$TMP/help")"
	grep -qF -- "--duration S" "$TMP/help" || fail "sockbench $cmd $*: no option list"
	grep -qF "sockbench $cmd --help" "$TMP/help" || fail "sockbench $cmd $*: does not point at its own flags"
}
check_help explore tcp-rr tcp-rr --help
check_help compare tcp-rr tcp-rr --help
check_help compare udp-rr "udp-rr --help" udp-rr
check_help sweep tcp-rr tcp-rr --size 1,2 --help
check_help knee udp-rr udp-rr -h

# --fields: a name given twice, or a field of another workload, is a usage error that lists the
# workload's own fields (before any run).
expect_usage "--fields: rate is given twice" udp-rr --fields rate,latency_us.p99,rate --format csv
expect_usage "gbit_per_s is not a field of udp-rr; the fields of udp-rr" udp-rr --fields gbit_per_s
grep -qF "latency_p99_us" "$TMP/err" || fail "the error does not list udp-rr's fields: $(cat "$TMP/err")"
grep -qF "connect_latency_us" "$TMP/err" && fail "udp-rr's fields list tcp-crr's: $(cat "$TMP/err")"
expect_usage "latency_us.p99 is not a field of tcp-stream" tcp-stream --fields rate,latency_us.p99

# CSV of an untrusted saved result: a text cell that a spreadsheet would run (=, +, -, @ first) is
# quoted with a ' in front (OWASP), numbers stay numbers, and Python's csv module reads it back.
need python3
timeout 60 "$SB" udp-rr -l 0.2 --warmup 0 -c 1 --json >"$TMP/r.json" 2>"$TMP/err" || fail "udp-rr: $(tail -2 "$TMP/err")"
jq '.unit = "=HYPERLINK(\"http://x\",\"a,b\")" | .workload = "-1+2"' "$TMP/r.json" >"$TMP/evil.json"
"$SB" report --format csv --fields workload,unit,rate,duration_s "$TMP/evil.json" >"$TMP/evil.csv" ||
	fail "report --format csv of the edited result"
python3 - "$TMP/evil.csv" "$TMP/r.json" <<'PY' || fail "CSV cells: $(cat "$TMP/evil.csv")"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
doc = json.load(open(sys.argv[2]))
assert rows[0] == ["workload", "unit", "rate", "duration_s"], rows[0]
assert rows[1][0] == "'-1+2", rows[1]
assert rows[1][1] == "'=HYPERLINK(\"http://x\",\"a,b\")", rows[1]
assert float(rows[1][2]) == doc["rate"] and float(rows[1][3]) == doc["duration_s"], rows[1]
raw = open(sys.argv[1]).read().splitlines()[1]
assert raw.endswith("," + rows[1][2] + "," + rows[1][3]), raw  # numbers unquoted
PY

# report --format csv of several results: one table, a `file` column first, the header once (a
# header again only before a file with other columns, here tcp-stream's).
cp "$TMP/r.json" "$TMP/r2.json"
timeout 60 "$SB" tcp-stream -l 0.2 --warmup 0 -c 1 --json >"$TMP/s.json" 2>"$TMP/err" || fail "tcp-stream: $(tail -2 "$TMP/err")"
"$SB" report --format csv "$TMP/r.json" "$TMP/r2.json" "$TMP/s.json" >"$TMP/many.csv" || fail "report of three files"
"$SB" report --format csv "$TMP/r.json" >"$TMP/one.csv" || fail "report of one file"
python3 - "$TMP/many.csv" "$TMP/one.csv" "$TMP" <<'PY' || fail "report of several files: $(cut -c1-80 "$TMP/many.csv")"
import csv, sys
many = list(csv.reader(open(sys.argv[1], newline="")))
one = list(csv.reader(open(sys.argv[2], newline="")))
t = sys.argv[3]
assert len(one) == 2 and one[0][0] == "run", one
assert many[0] == ["file"] + one[0], many[0]           # one header for the two udp-rr files
assert many[1] == [t + "/r.json"] + one[1], many[1]
assert many[2] == [t + "/r2.json"] + one[1], many[2]
assert many[3][0] == "file" and "gbit_per_s" in many[3], many[3]  # tcp-stream's own columns
assert many[4][0] == t + "/s.json" and len(many[4]) == len(many[3]), many[4]
assert len(many) == 5, many
PY

# The open-file limit, checked before the streams open their sockets as tcp-rr checks it: under a
# hard limit of 100, 200 flows need 200 descriptors + 64 spare (base/nofile.h) and say so, exit
# 2 (a run with zero throughput and exit 0 before); 10 flows still run.
for args in "tcp-stream --flows 200 -c 1|--clients x --flows 200 needs 264 open files" \
	"udp-stream --peers 200 -c 1|--peers 200 needs 264 open files" \
	"udp-stream --peers 100 -c 1 --bidir|--peers 100 x 2 (--bidir) needs 264 open files"; do
	# shellcheck disable=SC2086 # the words are split on purpose
	(ulimit -Sn 100 && ulimit -Hn 100 && expect_usage "${args#*|}" ${args%%|*} -l 0.2 --warmup 0) ||
		fail "open-file limit: ${args%%|*}"
	grep -qF 'ulimit -n 264' "$TMP/err" || fail "${args%%|*}: no ulimit hint: $(cat "$TMP/err")"
done
(ulimit -Sn 100 && ulimit -Hn 100 && timeout 60 "$SB" tcp-stream --flows 10 -c 1 -l 0.2 --warmup 0 \
	--json >"$TMP/few.json") || fail "tcp-stream with 10 flows under a limit of 100 failed"
jassert "$TMP/few.json" '.sides.client.bytes_sent > 0' '.sides.client'

# Every run failed (no agent on the port): no verdict and no ranking is a failure, exit 1, and
# stderr says that no run succeeded; a comparison whose runs were whole still exits 0.
port=$(free_port)
bad="udp-rr --server 127.0.0.1:$port -l 0.2 --warmup 0"
timeout 60 "$SB" compare "$bad" "$bad" --runs 2 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] || fail "compare of failing runs exited $rc, not 1"
grep -qF "compare: no run succeeded: all 4 failed (first: cannot reach the serve agent" "$TMP/err" ||
	fail "compare of failing runs: stderr '$(cat "$TMP/err")'"
timeout 120 "$SB" explore $bad --budget 30 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] || fail "explore of failing runs exited $rc, not 1"
grep -qF "explore: no run succeeded: none of the" "$TMP/err" ||
	fail "explore of failing runs: stderr '$(cat "$TMP/err")'"
# knee whose lowest rate fails already (no machine answers 50,000,000/s): it says so and which
# --min-rate to try, below the lowest, and exits 1; whose runs all failed (no agent): no
# --min-rate, the rate was not why.
timeout 60 "$SB" knee udp-rr --min-rate 50000000 --max-rate 50000000 --budget 5 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] || fail "knee at an impossible rate exited $rc, not 1"
lower=$(grep -o 'the lowest tried, 50,000,000/s, failed already.*try --min-rate [0-9]*$' "$TMP/out" | grep -o '[0-9]*$')
[ -n "$lower" ] && [ "$lower" -lt 50000000 ] && [ "$lower" -ge 5000000 ] ||
	fail "knee at an impossible rate: no lower --min-rate suggested: $(tail -3 "$TMP/out")"
timeout 60 "$SB" knee $bad --min-rate 1000 --budget 5 >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] || fail "knee of failing runs did not exit 1"
grep -q -- "try --min-rate" "$TMP/out" && fail "knee of failing runs suggests a lower rate: $(tail -2 "$TMP/out")"
good="udp-rr -l 0.2 --warmup 0 -c 1"
timeout 60 "$SB" compare "$good" "$good --window 1" --runs 2 >"$TMP/out" 2>"$TMP/err" ||
	fail "compare of whole runs exited $? ($(tail -2 "$TMP/err"))"
echo ok
