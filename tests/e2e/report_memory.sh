# `sockbench report` and `compare` read a result file within a memory bound (issue 39): its
# parsed tree may take 16 times the file's size and 1 MiB (base/result_file.h), the text beside
# it while parsing. Under `ulimit -v` of that past the base (the least a tiny result's page
# takes, measured here), with 4 MiB for the heap's rounding: a result with a CDF of 200,000
# points (12.3 times its size parsed, the densest thing sockbench writes) makes its page; files
# as large of small numbers (40 times: refused before parsing) and of one-letter keys (18.7
# times: the parse stops at its budget) are refused for what they would need, within that bound
# and in little CPU; and under a limit that holds the text but not the tree, the error says
# memory, never "is not JSON". Before: "is not JSON" for all three.
. "$(dirname "$0")/lib.sh"
need python3
sanitized && skip "a sanitizer build reserves terabytes of address space: ulimit -v cannot bound it"

"$SB" udp-rr --duration 0.3 --warmup 0.1 --json >"$TMP/run.json" 2>/dev/null || fail "udp-rr"
python3 - "$TMP" <<'PY' || fail "could not write the large results"
import json, sys
d = sys.argv[1]
run = json.load(open(d + "/run.json"))
size = 4 << 20
cdf = dict(run)
cdf["latency_us"] = dict(run["latency_us"])
n = size // 20
cdf["latency_us"]["cdf"] = [[round(10 + i * 0.013, 3), round((i + 1) / n, 6)] for i in range(n)]
open(d + "/cdf.json", "w").write(json.dumps(cdf, separators=(",", ":")))
zeros = dict(run)
zeros["pad"] = [0] * (size // 2)
open(d + "/zeros.json", "w").write(json.dumps(zeros, separators=(",", ":")))
t = json.dumps(run, separators=(",", ":"))
keys = '"pad":{' + ",".join(['"a":0'] * (size // 6)) + "}"
open(d + "/keys.json", "w").write(t[:-1] + "," + keys + "}")
PY

# report LIMIT_KB FILE: the page of FILE under ulimit -v LIMIT_KB; exit code in $rc.
report() {
	(ulimit -v "$1" && exec "$SB" report "$2" -o "$TMP/page.html") >"$TMP/out" 2>"$TMP/err"
	rc=$?
}
# The base: the least address space (to 1 MiB) a tiny result's page takes.
lo=0 hi=$((4 << 20))
report $hi "$TMP/run.json"
[ $rc -eq 0 ] || fail "a tiny result's page under 4 GiB: exit $rc: $(cat "$TMP/err")"
while [ $((hi - lo)) -gt 1024 ]; do
	mid=$(((lo + hi) / 2))
	report $mid "$TMP/run.json"
	if [ $rc -eq 0 ]; then hi=$mid; else lo=$mid; fi
done
base=$hi
kb() { echo $((($(stat -c %s "$1") + 1023) / 1024)); }
size=$(kb "$TMP/cdf.json")
echo "base $base KiB; the CDF result $size KiB, the small numbers' $(kb "$TMP/zeros.json") KiB, the keys' $(kb "$TMP/keys.json") KiB"

# The bound for a file: 17 times its size and 1 MiB (the budget's floor), past the base, with
# 4 MiB for the heap's own rounding (glibc grows it in steps).
bound() { echo $((base + 17 * $(kb "$1") + 1024 + 4096)); }

# Within the bound: the page is made.
report "$(bound "$TMP/cdf.json")" "$TMP/cdf.json"
[ $rc -eq 0 ] || fail "the CDF result under $(bound "$TMP/cdf.json") KiB (base $base + 17 x $size + 5 MiB): exit $rc: $(cat "$TMP/err")"
[ -s "$TMP/page.html" ] || fail "no page"

# Refused for what they need, within the same bound, in little CPU: 40 times its size before
# parsing, 18.7 times at the budget.
TIMEFORMAT=%U
for f in zeros keys; do
	{ time report "$(bound "$TMP/$f.json")" "$TMP/$f.json"; } 2>"$TMP/cpu"
	t=$(cat "$TMP/cpu")
	[ $rc -eq 2 ] || fail "$f: exit $rc, not 2: $(cat "$TMP/err")"
	grep -q "report: out of memory reading $TMP/$f.json: it needs more than [0-9]* MiB (16 times its size)" "$TMP/err" ||
		fail "$f: $(cat "$TMP/err")"
	awk -v t="$t" 'BEGIN { exit !(t < 2) }' || fail "$f: refused after $t s of CPU"
done
"$SB" compare "$TMP/zeros.json" "$TMP/run.json" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q "compare: out of memory reading $TMP/zeros.json: it needs more" "$TMP/err" ||
	fail "compare of small numbers: exit $rc: $(cat "$TMP/err")"

# Room for the text, not the tree: the system's refusal is said as memory, not as bad JSON.
tight=$((base + 3 * size))
report $tight "$TMP/cdf.json"
[ $rc -eq 1 ] || fail "the CDF result under $tight KiB: exit $rc, not 1: $(cat "$TMP/err")"
grep -q "is not JSON" "$TMP/err" && fail "under $tight KiB: $(cat "$TMP/err")"
grep -q "report: out of memory reading $TMP/cdf.json: the system gave no more memory after [0-9]* MiB" "$TMP/err" ||
	fail "under $tight KiB: $(cat "$TMP/err")"
exit 0
