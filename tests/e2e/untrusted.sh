# Result files are untrusted input (docs/profiles.md): `report` and `compare` read files anyone
# may have written. A string from a file never becomes markup in the page (headless Chromium
# finds no injected element or handler), nor a terminal escape on compare's output; a crafted
# file cannot hang or crash the report (a denormal CDF point, a 100,000-frame stack) or stall
# compare (two environments of 300,000 keys); a number out of range (1e400) is refused, exit 2,
# with the key named.
# aside: its bounds are CPU time, not wall time (5 s of wall a hang), and no rate (4 s, 3 s of CPU)
. "$(dirname "$0")/lib.sh"
need python3
need jq

"$SB" udp-rr --duration 0.3 --warmup 0.1 --json >"$TMP/run.json" 2>/dev/null || fail "udp-rr"

# The CPU ms (user and system) a command took, in $ms, its exit code in $rc; it must also end
# within 5 s of wall time (timeout: a hang). CPU time, not wall time: the tests share the
# machine's CPUs with each other.
# CPU-time limits below are for a plain build; a sanitizer build runs 2-3x slower (lib.sh).
slow=1
sanitized && slow=4
timed() {
	local TIMEFORMAT='%3U %3S'
	{ time timeout $((5 * slow)) "$@" 2>"$TMP/timed.err"; } 2>"$TMP/timed.t"
	rc=$?
	ms=$(awk '{printf "%d", ($1 + $2) * 1000}' "$TMP/timed.t")
}

python3 - "$TMP" <<'EOF' || fail "could not write the crafted files"
import copy, json, sys
d = sys.argv[1]
run = json.load(open(d + "/run.json"))
def save(name, doc, text=None):
    with open(d + "/" + name, "w") as f:
        f.write(text if text is not None else json.dumps(doc))
# Script in every string the report used to write raw, and in a hostname. A handler that ran
# marks the page (data-pwned).
inj = lambda n: '<img src=x onerror="document.body.setAttribute(\'data-pwned\',\'%d\')">' % n
x = copy.deepcopy(run)
x["config"][inj(1)] = 1
x["unit"] = inj(2)
x.setdefault("kernel_check", {})["scope"] = inj(3)
x["kernel_check"].setdefault("counters", {"c": {"ours": 1, "kernel": 1, "diff_pct": 0}})
x["environment"]["hostname"] = inj(4)
save("inject.json", x)
explore = {"tool": "sockbench", "schema": 1, "kind": "explore", "workload": "udp-rr",
           "unit": inj(5), "seed": inj(6), "runs": 3, "run_seconds": 1,
           "family_confidence": 0.95, "baseline": {"rate": 1000, "runs": 3},
           "strategies": [{"name": "batch", "flags": "--batch 8", "rank": 1, "rate": 1100,
                           "speedup": 1.1, "ci_low": 1.05, "ci_high": 1.15, "ci_level": 0.95,
                           "pairs": 3, "verdict": "faster", "verdict_text": "faster"}],
           "config": {inj(7): "x"}}
save("explore.json", explore)
# A CDF point whose decade is 0 (ticks() looped forever), and one stack of 100,000 frames.
x = copy.deepcopy(run)
x["latency_us"]["cdf"] = [[1e-323, 0.5], [5, 1]]
save("denormal.json", x)
x = copy.deepcopy(run)
x["profile"] = {"available": True, "hz": 99, "samples": 10,
                "stacks": [{"stack": ";".join("f%d" % i for i in range(100000)), "samples": 10}]}
save("deep.json", x)
# Two environments of 300,000 keys, some different, in other orders.
a = copy.deepcopy(run); b = copy.deepcopy(run)
a["environment"] = {"k%d" % i: i for i in range(300000)}
b["environment"] = {"k%d" % i: (i + 1 if i % 1000 == 0 else i) for i in reversed(range(300000))}
save("wide_a.json", a); save("wide_b.json", b)
# 1e400: read as infinity before.
t = json.dumps(run)
key = '"duration_s": '
i = t.index(key) + len(key)
j = i
while t[j] not in ",}":
    j += 1
save("inf.json", None, t[:i] + "1e400" + t[j:])
# A hostname that would erase the line before it and write a verdict of its own.
x = copy.deepcopy(run)
x["environment"]["hostname"] = "\x1b[1A\x1b[2K\rB is 3.00x faster\x9b31m\u009b2J"
save("esc.json", x)
EOF

# 1e400 refused by both readers, the key named, exit 2.
expect_usage "$TMP/inf.json: duration_s is not a finite number >= 0" report "$TMP/inf.json"
expect_usage "$TMP/inf.json: duration_s is not a finite number >= 0" compare "$TMP/run.json" "$TMP/inf.json"

# The denormal CDF and the deep stack: a page, within a second.
for f in denormal deep; do
	timed "$SB" report "$TMP/$f.json" -o "$TMP/$f.html"
	[ "$rc" -eq 0 ] || fail "report of the $f file exited $rc (124: hung; 139: crashed)"
	[ "$ms" -lt $((1000 * slow)) ] || fail "report of the $f file took $ms ms"
	grep -q "</html>" "$TMP/$f.html" || fail "report of the $f file wrote no whole page"
	echo "report $f: $ms ms of CPU"
done
grep -q "stacks deeper than 512 frames cut" "$TMP/deep.html" || fail "the deep stack's cut is not said"

# Two environments of 300,000 keys: compared in under 2 s.
timed "$SB" compare "$TMP/wide_a.json" "$TMP/wide_b.json" >"$TMP/wide.out"
[ "$rc" -eq 0 ] || fail "compare of the wide environments exited $rc: $(tail -2 "$TMP/timed.err")"
[ "$ms" -lt $((2000 * slow)) ] || fail "compare of two 300,000-key environments took $ms ms"
grep -q "k1000 *1000 -> 1001" "$TMP/wide.out" || fail "the wide environments' difference is not shown"
echo "compare of 300,000-key environments: $ms ms of CPU"

# A hostname with escape sequences: no escape byte reaches compare's output, it is shown escaped.
"$SB" compare "$TMP/run.json" "$TMP/esc.json" >"$TMP/esc.out" 2>"$TMP/esc.err" ||
	fail "compare: $(cat "$TMP/esc.err")"
if LC_ALL=C grep -q $'\x1b\|\x9b' "$TMP/esc.out" "$TMP/esc.err"; then
	fail "compare printed a raw escape byte from the file"
fi
grep -qF 'hostname' "$TMP/esc.out" || fail "compare did not show the hostname difference"
grep -qF '\x1b[1A\x1b[2K\x0dB is 3.00x faster\xc2\x9b31m\xc2\x9b2J' "$TMP/esc.out" ||
	fail "the hostname is not shown escaped: $(grep hostname "$TMP/esc.out")"
"$SB" compare "$TMP/run.json" "$TMP/esc.json" --json >"$TMP/esc_j.out" || fail "compare --json"
LC_ALL=C grep -q $'\x1b' "$TMP/esc_j.out" && fail "compare --json printed a raw escape byte"

# The injections: escaped in the page, and in a browser no injected element or handler.
"$SB" report "$TMP/inject.json" "$TMP/explore.json" -o "$TMP/inject.html" || fail "report"
# No <img> and no on* attribute anywhere: what each injection would have made.
cat >"$TMP/no_markup.py" <<'EOF'
import sys
from html.parser import HTMLParser
bad = []
class P(HTMLParser):
    def handle_starttag(self, tag, attrs):
        if tag == "img" or any(k.startswith("on") for k, _ in attrs):
            bad.append((tag, attrs))
P().feed(open(sys.argv[1]).read())
assert not bad, bad[:3]
EOF
python3 "$TMP/no_markup.py" "$TMP/inject.html" || fail "a string from the file is markup in the page"
for n in 1 2 3 4 5 6 7; do
	grep -qF "&lt;img src=x onerror=&quot;document.body.setAttribute(&#39;data-pwned&#39;,&#39;$n&#39;)&quot;&gt;" \
		"$TMP/inject.html" || fail "injection $n is not in the page as text"
done
command -v chromium >/dev/null || skip "chromium is not installed: the page was checked, not opened"
timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chrome" \
	--dump-dom "file://$TMP/inject.html" >"$TMP/dom.html" 2>"$TMP/chrome.err" ||
	fail "chromium failed: $(tail -3 "$TMP/chrome.err")"
grep -q '<body data-ready="1"' "$TMP/dom.html" || fail "the page's script did not run to its end"
grep -q 'data-pwned="' "$TMP/dom.html" && fail "an injected handler ran: $(grep -o 'data-pwned="[0-9]"' "$TMP/dom.html" | head -1)"
python3 "$TMP/no_markup.py" "$TMP/dom.html" || fail "the browser's DOM holds an injected element or handler"
exit 0
