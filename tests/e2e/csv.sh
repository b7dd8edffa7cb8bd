# --format csv and --fields: Python's csv module reads what sockbench writes, and every value
# equals the JSON's of the same result (a run saved with --json, rendered by `sockbench report
# --format csv`, the code a live --format csv runs); a live run's CSV has the same columns and
# its rate is its own transactions over its own window; --runs adds the summary's rows, each the
# summary's figure; an unknown field is a usage error that lists the valid ones.
. "$(dirname "$0")/lib.sh"
need python3
short=(--duration 0.5 --warmup 0.2)

# csv FILE.json FILE.csv: every cell of the CSV's rows equals the JSON's member at its column's
# path (a --runs document: row i is results[i-1]; a statistic's row is summary[key][stat]).
check_csv() {
	python3 - "$1" "$2" <<'EOF' || fail "$2 does not match $1: see above"
import csv, json, sys
doc = json.load(open(sys.argv[1]))
rows = list(csv.reader(open(sys.argv[2])))
head, body = rows[0], rows[1:]
# The summary's keys of the figures the --runs case asks for (report/figures.c).
keys = {"rate": "rate", "latency_us.p99": "latency_p99_us"}
def at(d, path):
    for k in path.split("."):
        d = d.get(k) if isinstance(d, dict) else None
    return d
def same(cell, v):
    if v is None:
        return cell == ""
    if isinstance(v, bool):
        return cell == ("true" if v else "false")
    if isinstance(v, (int, float)):
        return cell != "" and float(cell) == float(v)
    return cell == v
runs = doc.get("kind") == "runs"
docs = doc["results"] if runs else [doc]
assert len(head) == len(set(head)), f"a column twice: {head}"
n = 0
for r in body:
    assert len(r) == len(head), f"row of {len(r)} cells under {len(head)} columns: {r}"
    run = r[head.index("run")] if "run" in head else "1"
    if run.isdigit():
        d = docs[int(run) - 1]
        n += 1
        for c, cell in zip(head, r):
            if c != "run":
                assert same(cell, at(d, c)), f"run {run} {c}: csv {cell!r}, json {at(d, c)!r}"
    else:
        for c, cell in zip(head, r):
            if c in ("run", "workload"):
                continue
            want = doc["summary"][keys[c]][run] if c in keys else None
            assert same(cell, want), f"{run} {c}: csv {cell!r}, summary {want!r}"
assert n == len(docs), f"{n} run rows for {len(docs)} runs"
print(len(body), "rows,", len(head), "columns checked")
EOF
}

# A single run: saved, then rendered; every default column, then --fields in its order.
"$SB" udp-rr "${short[@]}" --json >"$TMP/r.json" || fail "udp-rr --json"
"$SB" report --format csv "$TMP/r.json" >"$TMP/r.csv" || fail "report --format csv"
check_csv "$TMP/r.json" "$TMP/r.csv"
head -n 1 "$TMP/r.csv" | grep -q '^run,workload,partial,duration_s,unit,rate,loss_pct,latency_us.p50,' ||
	fail "default columns: $(head -n 1 "$TMP/r.csv")"
grep -q 'sides.client.cpu_us_per_unit,sides.server.cpu_us_per_unit' "$TMP/r.csv" ||
	fail "no CPU per side in the default columns: $(head -n 1 "$TMP/r.csv")"
f=latency_us.p99,rate,sides.server.packets_received,partial
"$SB" report --format csv --fields $f "$TMP/r.json" >"$TMP/f.csv" || fail "--fields"
[ "$(head -n 1 "$TMP/f.csv")" = "$f" ] || fail "--fields $f gave columns $(head -n 1 "$TMP/f.csv")"
check_csv "$TMP/r.json" "$TMP/f.csv"

# A stream and tcp-crr: their own figures (gbit_per_s, connect()) are columns too.
"$SB" tcp-stream "${short[@]}" --json >"$TMP/s.json" || fail "tcp-stream --json"
"$SB" report --format csv "$TMP/s.json" >"$TMP/s.csv" || fail "report tcp-stream"
check_csv "$TMP/s.json" "$TMP/s.csv"
grep -q ',gbit_per_s,' "$TMP/s.csv" || fail "tcp-stream: no gbit_per_s: $(head -n 1 "$TMP/s.csv")"
"$SB" tcp-crr --conns 2000 --warmup-conns 200 --json >"$TMP/c.json" || fail "tcp-crr --json"
"$SB" report --format csv "$TMP/c.json" >"$TMP/c.csv" || fail "report tcp-crr"
check_csv "$TMP/c.json" "$TMP/c.csv"
grep -q 'connect_latency_us.p50' "$TMP/c.csv" || fail "tcp-crr: no connect() column"

# Live: the columns the saved run's rendering has, and a rate that is the row's own count over
# its own window.
"$SB" udp-rr "${short[@]}" --format csv >"$TMP/live.csv" || fail "udp-rr --format csv"
[ "$(head -n 1 "$TMP/live.csv")" = "$(head -n 1 "$TMP/r.csv")" ] ||
	fail "live columns $(head -n 1 "$TMP/live.csv") differ from the saved run's"
"$SB" udp-rr "${short[@]}" --format csv --fields transactions,duration_s,rate,workload >"$TMP/l2.csv" ||
	fail "udp-rr --format csv --fields"
python3 - "$TMP/l2.csv" <<'EOF' || fail "live CSV: see above"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1 and rows[0]["workload"] == "udp-rr", rows
t, d, r = (float(rows[0][k]) for k in ("transactions", "duration_s", "rate"))
# The JSON rounds the rate to 3 places and the window to 6: the rate may differ by that much.
assert t > 0 and abs(r - t / d) <= 0.0005 + (t / d) * 5e-7 / d + 1e-9 * r, f"rate {r} is not {t} / {d}"
EOF

# --runs: a row per run, then the summary's; live, the same shape.
"$SB" udp-rr "${short[@]}" --runs 2 --json >"$TMP/runs.json" || fail "--runs --json"
"$SB" report --format csv --fields rate,latency_us.p99,workload "$TMP/runs.json" >"$TMP/runs.csv" ||
	fail "report --format csv of --runs"
check_csv "$TMP/runs.json" "$TMP/runs.csv"
[ "$(cut -d, -f1 "$TMP/runs.csv" | tr '\n' ' ')" = "run 1 2 median min max stddev ci_low ci_high " ] ||
	fail "--runs rows: $(cut -d, -f1 "$TMP/runs.csv" | tr '\n' ' ')"
"$SB" tcp-rr "${short[@]}" --runs 2 --format csv --fields rate,latency_us.p50 >"$TMP/lr.csv" ||
	fail "tcp-rr --runs 2 --format csv"
python3 - "$TMP/lr.csv" <<'EOF' || fail "live --runs CSV: see above"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["run"] for r in rows] == ["1", "2", "median", "min", "max", "stddev", "ci_low", "ci_high"], rows
v = [float(rows[i]["rate"]) for i in (0, 1)]
s = {r["run"]: float(r["rate"]) for r in rows[2:]}
assert s["min"] == min(v) and s["max"] == max(v) and abs(s["median"] - statistics.median(v)) < 1e-6, (v, s)
EOF

# The text report with --fields: those lines, those values.
"$SB" report --format csv --fields rate "$TMP/r.json" >/dev/null || fail "report --fields"
"$SB" udp-rr "${short[@]}" --fields rate,latency_us.p99 >"$TMP/t.txt" || fail "--fields text"
[ "$(awk '{print $1}' "$TMP/t.txt" | tr '\n' ' ')" = "rate latency_us.p99 " ] ||
	fail "--fields text: $(cat "$TMP/t.txt")"

# A saved result is untrusted: a string with a control character and CSV's own characters
# comes out quoted, the control character as \x1b text, never the byte.
jq '.unit = "x\u001b[2J,\"y"' "$TMP/r.json" >"$TMP/esc.json"
"$SB" report --format csv --fields unit,rate "$TMP/esc.json" >"$TMP/esc.csv" || fail "report of esc.json"
LC_ALL=C grep -q $'\x1b' "$TMP/esc.csv" && fail "a raw escape byte in the CSV"
python3 - "$TMP/esc.csv" <<'EOF' || fail "the escaped cell: $(cat "$TMP/esc.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows[0]["unit"] == 'x\\x1b[2J,"y', rows
EOF

# Spreadsheet formulas (issue 39, OWASP's CSV injection): a text cell that starts with = + - @
# (a space before, or after a , or ; inside it, where a reader that splits on ; starts a cell)
# gets a ' before that start, so it reads as text, and is quoted; a cell with a separator is
# quoted; a number, text or JSON's, stays a plain number (-1.5 is no formula). The file column
# of several results too (a name is text).
cells=("x;=cmd|' /C calc'!A0" "=2+5" "@SUM(A1)" " =1" "a,+1" "a;-1" "a;-1+A1" "-1.5" "-" "k;v")
for i in "${!cells[@]}"; do
	jq --arg u "${cells[$i]}" '.unit = $u | .latency_us.min = -1.5' "$TMP/r.json" >"$TMP/f$i.json"
done
(cd "$TMP" && cp r.json "=HYPERLINK(1).json" && "$SB" report --format csv --fields unit,latency_us.min \
	f?.json "=HYPERLINK(1).json") >"$TMP/f.csv" || fail "report --format csv of forged cells"
python3 - "$TMP/f.csv" <<'EOF' || fail "formula cells: $(cat "$TMP/f.csv")"
import csv, re, sys
path = sys.argv[1]
want = ["\"x;'=cmd|' /C calc'!A0\"", "\"'=2+5\"", "\"'@SUM(A1)\"", "\"' =1\"", "\"a,'+1\"",
        "\"a;-1\"", "\"a;'-1+A1\"", "-1.5", "\"'-\"", "\"k;v\""]
lines = open(path).read().splitlines()
assert lines[0] == "file,unit,latency_us.min", lines[0]
# As written: quoted and neutralised, the JSON's number plain.
for i, w in enumerate(want):
    assert lines[1 + i] == f"f{i}.json,{w},-1.5", (lines[1 + i], w)
assert lines[-1].startswith("\"'=HYPERLINK(1).json\",transaction,"), lines[-1]
# As an RFC 4180 reader reads it: the text, with the ' that keeps it text.
rows = list(csv.reader(open(path)))[1:]
assert [r[1] for r in rows[:-1]] == [w.strip('"') for w in want], rows
assert all(r[2] == "-1.5" for r in rows[:-1]), rows
# As a reader that splits on , or ; (a spreadsheet where ; separates a list) and takes a quote
# only at a cell's start: no cell starts a formula.
for sep in ",;":
    for line in lines[1:]:
        for c in line.split(sep):
            c = c.lstrip('" ')
            assert not re.match(r"[=+@]|-[^0-9]", c), (sep, line, c)
print(len(rows), "rows of formula cells checked")
EOF

expect_usage "bogus is not a field" udp-rr --fields rate,bogus
grep -q "latency_p99_us.*latency_us.count" "$TMP/err" || fail "the unknown-field error does not list the fields (figures by name, the others by path)"
expect_usage "two outputs" udp-rr --json --format csv
expect_usage "always whole" udp-rr --format json --fields rate
expect_usage "add --format csv" report --fields rate "$TMP/r.json"
expect_usage "not a field" report --format csv --fields nope "$TMP/r.json"
"$SB" compare "$TMP/r.json" "$TMP/r.json" --json >"$TMP/cmp.json" 2>/dev/null
"$SB" report --format csv "$TMP/cmp.json" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "single run or --runs" "$TMP/err" || fail "report --format csv of a compare: $(cat "$TMP/err")"
echo "csv: ok"
