# --flamegraph and `sockbench report`. The flame graph's frames carry the samples of the
# folded stacks the same run wrote (each side's total, the whole); the report page, drawn from
# saved results of every kind, holds their own figures (a run's rate, explore's order and
# intervals, compare's ratios, a sweep's medians), needs no network, and in headless Chromium
# runs its script to the end with no console message, finds what its flame graph search is
# asked (the share the stacks give) and renders a picture that is not blank.
. "$(dirname "$0")/lib.sh"
need jq
need python3
run="--duration 0.4 --warmup 0.1"
expect_usage "--flamegraph draws the stacks --profile samples: add --profile" udp-rr --flamegraph "$TMP/x.svg"
expect_usage "--flamegraph $TMP/no/f.svg: No such file or directory" udp-rr --profile --flamegraph "$TMP/no/f.svg"
expect_usage "--flamegraph draws one run" udp-rr --profile --runs 2 --flamegraph "$TMP/x.svg"
expect_usage "no result given" report
expect_usage "cannot read $TMP/none.json" report "$TMP/none.json"
echo '{"a": 1}' >"$TMP/other.json"
expect_usage "$TMP/other.json is not a sockbench result" report "$TMP/other.json"
echo 'nope' >"$TMP/text.json"
expect_usage "$TMP/text.json is not JSON" report "$TMP/text.json"

docs=()
if [ "$(id -u)" -eq 0 ]; then
	"$SB" udp-rr $run --profile --flamegraph "$TMP/f.svg" --profile-folded "$TMP/f.folded" \
		--json >"$TMP/run.json" 2>"$TMP/err" || fail "udp-rr --flamegraph: $(cat "$TMP/err")"
	jassert "$TMP/run.json" '.profile.available and (.profile.stacks | length) > 10'
	# The JSON's stacks are the folded file's, most samples first (the rest: stacks_left_out).
	folded=$(awk '{n += $NF} END {print n}' "$TMP/f.folded")
	jassert "$TMP/run.json" "([.profile.stacks[].samples] | add) + .profile.stacks_left_out - .profile.folded_overflow == $folded" \
		'{stacks: ([.profile.stacks[].samples] | add), left: .profile.stacks_left_out}'
	# Each side's frame in the flame graph holds that side's samples of the folded stacks, and
	# is as wide as its share.
	python3 - "$TMP/f.svg" "$TMP/run.json" <<'EOF' || fail "the flame graph does not hold the stacks' samples"
import json, re, sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
doc = json.load(open(sys.argv[2]))
stacks = doc["profile"]["stacks"]
total = sum(s["samples"] for s in stacks)
side = {}
for s in stacks:
    k = s["stack"].split(";")[0]
    side[k] = side.get(k, 0) + s["samples"]
frames = {}
for g in root.iter("{http://www.w3.org/2000/svg}g"):
    if g.get("class") == "f" and g.get("data-d") in ("0", "1"):
        frames[g.get("data-n")] = g
assert int(frames["all"].get("data-s")) == total, (frames["all"].get("data-s"), total)
for k, n in side.items():
    g = frames[k]
    title = g.find("s:title", ns).text
    got = int(re.search(r"\((\d+) samples", title).group(1))
    assert got == n, (k, got, n)
    w = float(g.get("data-w"))
    assert abs(w - n / total) < 1e-6, (k, w, n / total)
    rect = float(g.find("s:rect", ns).get("width"))
    assert abs(rect - 1200 * n / total) < 1.0, (k, rect, 1200 * n / total)
assert root.find("s:script", ns) is not None
EOF
	docs+=("$TMP/run.json")
else
	"$SB" udp-rr $run --json >"$TMP/run.json" || fail "udp-rr"
	docs+=("$TMP/run.json")
fi
# The CDF the report draws: rising to 1, its 50% crossing at the run's p50 (bucket precision).
# The CDF ends at 1, or below it by at least the unanswered share (those are not drawn).
jassert "$TMP/run.json" '.latency_us.unanswered_share as $u | .latency_us.cdf | (length > 5) and (if $u == 0 then .[-1][1] == 1 else .[-1][1] <= 1 - $u + 1e-6 end) and ([.[][1]] == ([.[][1]] | sort)) and ([.[][0]] == ([.[][0]] | sort))'
jassert "$TMP/run.json" '(.latency_us.cdf | map(select(.[1] >= 0.5)) | .[0][0]) as $x | ($x / .latency_us.p50 - 1 | fabs) < 0.04' \
	'{cdf50: (.latency_us.cdf | map(select(.[1] >= 0.5)) | .[0]), p50: .latency_us.p50}'
"$SB" udp-rr $run --runs 3 --json >"$TMP/runs.json" || fail "--runs 3"
"$SB" compare "udp-rr $run" "udp-rr $run --batch 16" --runs 3 --json >"$TMP/cmp.json" 2>/dev/null || fail "compare"
"$SB" sweep udp-rr --size 100,600 $run --runs 2 --compare "--connected" --json >"$TMP/sweep.json" 2>/dev/null || fail "sweep"
# (tcp-rr: 10 strategies, the shortest budget of the workloads: 15 s for 2 rounds)
"$SB" explore tcp-rr --budget 16 --runs 2 --json >"$TMP/explore.json" 2>/dev/null || fail "explore"
# A strategy of one pair (a round's other run failed) has no interval: explore writes its ends
# null (it wrote 1e308, which report then refused), and the page says "none". The last one is
# made so here, as explore would write it.
jq '.strategies[-1] |= (.pairs = 1 | .ci_low = null | .ci_high = null)' "$TMP/explore.json" >"$TMP/x1.json" &&
	mv "$TMP/x1.json" "$TMP/explore.json"
docs+=("$TMP/runs.json" "$TMP/cmp.json" "$TMP/sweep.json" "$TMP/explore.json")
"$SB" report "${docs[@]}" -o "$TMP/report.html" || fail "report failed"
expect_usage "-o $TMP/no/r.html: No such file or directory" report "$TMP/run.json" -o "$TMP/no/r.html"
"$SB" report "$TMP/run.json" >"$TMP/stdout.html" || fail "report to standard output"
grep -q "</html>" "$TMP/stdout.html" || fail "report to standard output wrote no page"

# The pictures (issue 43): results of different units (transactions, megabytes) get a rate
# chart each, never one axis; each result its own colour, the same in its bar and its CDF;
# counts whole ("0", not "0.00"); no kernel-counter table where there are no counters
# (tcp-rr's); every line chart's series inside its frame (a clipping svg).
"$SB" tcp-rr $run --json >"$TMP/rr.json" || fail "tcp-rr"
"$SB" tcp-stream $run --json >"$TMP/st.json" || fail "tcp-stream"
"$SB" report "$TMP/run.json" "$TMP/rr.json" "$TMP/st.json" "$TMP/runs.json" -o "$TMP/mixed.html" || fail "report of mixed units"
python3 - "$TMP/mixed.html" "$TMP/rr.json" <<'EOF' || fail "the pictures of a mixed report"
import json, re, sys
page = open(sys.argv[1]).read()
rr = json.load(open(sys.argv[2]))
start = page.index("<h2>Overview</h2>")
ov = page[start:page.index("</section>", start)]
charts = re.findall(r"Rate of each result in ([a-z]+)s/s", ov)
assert sorted(charts) == ["megabyte", "transaction"], charts
bars = re.findall(r'<g class="bar"><title>([^:<]+):.*?fill="(#[0-9a-f]+)"', ov)
assert len(bars) == 4, bars
cols = [c for _, c in bars]
assert len(set(cols)) == len(cols), "two results share a colour: %s" % bars
for name, col in bars:  # a result's CDF takes its bar's colour
    if not name.endswith("st.json"):
        assert re.search(r'fill="%s"/><text[^>]*>%s<' % (col, re.escape(name)), ov), (name, col)
assert not re.search(r"<th>(errors|unanswered or failed)</th><td>[0-9]+\.[0-9]", page), "a count printed with decimals"
rrsec = page[page.index('<section id="doc2"'):page.index('<section id="doc3"')]
if not rr["kernel_check"]["counters"]:
    assert "our counts beside the kernel" not in rrsec, "an empty kernel-counter table"
assert page.count('<svg class="frame"') >= 6, "series not clipped to their frames"
EOF
h=$TMP/report.html
# Self-contained: nothing fetched (the SVG namespace is a name, not a fetch).
if grep -oE '(src|href)="[^"#][^"]*"|<link|@import|url\(' "$h" | grep -q .; then
	fail "the page loads something: $(grep -oE '(src|href)="[^"#][^"]*"|<link|@import|url\(' "$h" | head -3)"
fi
[ "$(grep -c 'data-kind=' "$h")" -eq 5 ] || fail "not one section per result"
python3 - "$h" "${docs[@]}" <<'EOF' || fail "the page does not hold the results' own figures"
import html, json, re, sys
page = html.unescape(open(sys.argv[1]).read())
run, runs, cmp, sweep, explore = (json.load(open(p)) for p in sys.argv[2:7])
def has(text, what):
    assert text in page, "%s: %r not in the page" % (what, text)
has("%.0f transactions/s" % run["rate"], "the run's rate")
def num(v):
    a = abs(v)
    return "%.0f" % v if a >= 1000 else "%.1f" % v if a >= 100 else "%.2f" % v if a >= 1 or a == 0 else "%.3g" % v
# A lower bound (its rank among unanswered requests) is marked so on the page.
bound = "\u2265 " if "p9999" in run["latency_us"]["at_least"] else ""
has("<td>%s%s us</td>" % (bound, num(run["latency_us"]["p9999"])), "p99.99")
for k, v in runs["summary"].items():
    has("<td>%s</td><td>%s</td>" % (k, num(v["median"])), "a --runs figure's row")
for fgr in cmp["figures"]:
    if fgr.get("ratio") is not None:
        has("<td>%.3f</td><td>%.3f to %.3f</td>" % (fgr["ratio"], fgr["ci_low"], fgr["ci_high"]), "compare's " + fgr["label"])
has(cmp["verdict"], "compare's verdict")
# compare keeps every run's CDF, A's and B's: each run's median read off its CDF, their
# geometric mean per side, is the side's latency p50 in the table (the buckets are 3% wide);
# the page draws one line per run, the runs of a side in the colour its legend shows.
import math
p50 = next(f for f in cmp["figures"] if f["key"] == "latency_p50_us")
svg = page[page.index("Latency of every run of A and of B: the distribution"):]
svg = svg[:svg.index("</svg>", svg.index("</svg>") + 1)]  # past the frame's own (a clip)
lines = re.findall(r'<polyline class="series" fill="none" stroke="(#[0-9a-f]+)"', svg)
for i, side in enumerate("ab"):
    cdfs = [c for c in cmp["latency_cdfs"][side] if c]
    assert len(cdfs) == cmp["runs_" + side], "%s: %d CDFs for %d runs" % (side, len(cdfs), cmp["runs_" + side])
    # Each ends at 1, or below it by the run's unanswered share (those are not drawn): a
    # loaded machine's udp-rr drops a few; not under half, which no run here comes near.
    assert all(0.5 < c[-1][1] <= 1 + 1e-9 for c in cdfs), side + ": a CDF ends off its range"
    x50 = [next(p[0] for p in c if p[1] >= 0.5) for c in cdfs]
    g = math.exp(sum(map(math.log, x50)) / len(x50))
    assert abs(g / p50[side + "_geomean"] - 1) < 0.04, "%s: CDFs' medians %s, geomean %.2f, p50 %.2f" % (side, x50, g, p50[side + "_geomean"])
    colour = re.search(r'fill="(#[0-9a-f]+)"/><text[^>]*>%s \(each run\)' % side.upper(), svg).group(1)
    assert lines.count(colour) == cmp["runs_" + side], "%s: %d lines in %s" % (side, lines.count(colour), colour)
assert len(lines) == cmp["runs_a"] + cmp["runs_b"], "compare's CDF chart: %d lines" % len(lines)
# explore: the ranking in its order, each bar's whisker at its interval
pos = [page.index("%d. %s" % (s["rank"], s["name"])) for s in explore["strategies"]]
assert pos == sorted(pos), "explore's strategies out of rank order"
for s in explore["strategies"]:
    if s["ci_low"] is None:
        bar = "%d. %s: %.4g" % (s["rank"], s["name"], s["speedup"])
        has(bar, "explore's bar of " + s["name"])
        assert bar + " (interval" not in page, "an interval on the bar of " + s["name"]
        has("%.3fx</td><td>none</td>" % s["speedup"], "no interval in the row of " + s["name"])
    else:
        has("%d. %s: %.4g (interval %.4g to %.4g)" % (s["rank"], s["name"], s["speedup"], s["ci_low"], s["ci_high"]), "explore's bar of " + s["name"])
# explore's search: each step of its path with its gain over the step before, why it stopped,
# and each phase of the budget
for p in explore["search"]["path"]:
    has("<td>%d</td><td>%s</td><td><code>%s</code></td>" % (p["step"], p["names"], p["flags"]), "the search's step %d" % p["step"])
    if p["gain"] and p["gain"]["ci_low"] is None:  # too few pairs for an interval: "none"
        has("<td>%.3fx</td><td>none</td>" % p["gain"]["speedup"], "step %d's gain" % p["step"])
    elif p["gain"]:
        has("<td>%.3fx</td><td>%.3f to %.3f</td>" % (p["gain"]["speedup"], p["gain"]["ci_low"], p["gain"]["ci_high"]), "step %d's gain" % p["step"])
has("The search stopped: %s." % explore["search"]["stopped"], "why the search stopped")
for ph in explore["budget"]["phases"]:
    has(" %s %s" % (ph["phase"], "skipped" if ph["skipped"] else "%d runs" % ph["runs"]), "the budget's " + ph["phase"])
for p in sweep["points"]:
    has("<td>%.3f</td><td>%.3f to %.3f" % (p["ratio"], p["ci_low"], p["ci_high"]), "a sweep point's B/A")
EOF

# In a browser. Chromium prints the page's console messages (an uncaught error among them).
if command -v chromium >/dev/null; then
	term=udp_sendmsg
	share=$(jq '([.profile.stacks[]? | select(.stack | test("udp_sendmsg")) | .samples] | add // 0) as $m | ([.profile.stacks[]?.samples] | add // 0) as $t | if $t > 0 then 100 * $m / $t else -1 end' "$TMP/run.json")
	chrome() { timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$TMP/chrome" --enable-logging=stderr --v=0 "$@"; }
	chrome --dump-dom "file://$h#search=$term" >"$TMP/dom.html" 2>"$TMP/chrome.err" || fail "chromium failed: $(tail -3 "$TMP/chrome.err")"
	grep -q '<body data-ready="1"' "$TMP/dom.html" || fail "the page's script did not run to its end"
	# The page's own messages only: Chromium's resources speak too on a busy machine ("Slow
	# network is detected", source chrome://resources), which is not the page's.
	if grep "CONSOLE" "$TMP/chrome.err" | grep -qv "source: chrome://"; then
		fail "console messages: $(grep CONSOLE "$TMP/chrome.err" | grep -v "source: chrome://" | head -3)"
	fi
	if [ "$share" != -1 ]; then
		got=$(grep -o 'matched: [0-9.]*% of the samples' "$TMP/dom.html" | head -1 | grep -o '[0-9.]*' | head -1)
		[ -n "$got" ] || fail "the flame graph's search found nothing for $term"
		awk -v a="$got" -v b="$share" 'BEGIN {exit !(a - b < 0.01 && b - a < 0.01)}' ||
			fail "search $term: the page says $got%, the stacks give $share%"
	fi
	# The page laid out 1000 px wide, drawn at half scale: a quarter of the pixels for the
	# plain-Python decoder below (4.4 s at full scale, 1.2 s at half).
	chrome --window-size=1000,2500 --force-device-scale-factor=0.5 --screenshot="$TMP/shot.png" \
		"file://$h" >/dev/null 2>&1 || fail "no screenshot"
	python3 - "$TMP/shot.png" <<'EOF' || fail "the screenshot is blank"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride = zlib.decompress(idat), w * bpp
prev, colours, inked, rows = bytearray(stride), set(), 0, 0
for y in range(h):
    ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if ft == 1: line[i] = (line[i] + a) & 255
        elif ft == 2: line[i] = (line[i] + b) & 255
        elif ft == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif ft == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 4 == 0:
        rows += 1
        for x in range(0, w, 4):
            px = bytes(line[x * bpp:x * bpp + 3])
            colours.add(px)
            inked += px[0] < 200 or px[1] < 200 or px[2] < 200
share = inked / (rows * ((w + 3) // 4))
assert len(colours) > 50 and share > 0.01, (len(colours), share)
print("screenshot: %d colours, %.1f%% inked" % (len(colours), 100 * share))
EOF
else
	skip "chromium is not installed (scripts/deps installs it): the page was checked, not opened in a browser"
fi
echo ok
