# One name per figure (docs/json.md, "Figures: one name each"): the names the binary knows for
# each workload (compare --primary's error lists them) are the documented table's; for a saved
# run of each workload, --fields NAME and --fields PATH give the JSON's value at the table's
# path; compare --primary takes the name and the path alike and names the figure by its name,
# and a connection test's rate is "rate" (it was "transactions_per_s").
. "$(dirname "$0")/lib.sh"
need jq
need python3
doc=$(dirname "$0")/../../docs/json.md

# The table: "name path" lines.
python3 - "$doc" >"$TMP/table" <<'EOF' || fail "docs/json.md: no figure table"
import re, sys
text = open(sys.argv[1]).read()
sec = text.split("## Figures: one name each", 1)[1].split("\n## ", 1)[0]
rows = re.findall(r"^\| `([a-z0-9_]+)` \| [^|]+ \| `([a-z0-9_.]+)`", sec, re.M)
if len(rows) < 10:
    sys.exit(1)
for name, path in rows:
    print(name, path)
EOF
path_of() { awk -v n="$1" '$1 == n { print $2 }' "$TMP/table"; }

for wl in udp-rr tcp-rr tcp-crr tcp-stream udp-stream; do
	"$SB" compare "$wl" "$wl" --primary no_such_figure >/dev/null 2>"$TMP/err"
	[ $? -eq 2 ] || fail "compare --primary no_such_figure: not a usage error: $(cat "$TMP/err")"
	names=$(sed -n 's/.*docs\/json.md): //p' "$TMP/err" | tr -d ',')
	[ -n "$names" ] || fail "$wl: --primary's error lists no figures: $(cat "$TMP/err")"
	echo "$names" | grep -qw rate || fail "$wl: its figures lack rate: $names"
	for n in $names; do
		[ -n "$(path_of "$n")" ] || fail "$wl's figure $n is not in docs/json.md's table"
	done
	echo "$names" >"$TMP/names.$wl"
done
# Every documented figure belongs to some workload.
while read -r n _; do
	cat "$TMP"/names.* | grep -qw -- "$n" || fail "docs/json.md names $n, which no workload has"
done <"$TMP/table"

short=(--duration 0.5 --warmup 0.2 --json)
"$SB" tcp-crr "${short[@]}" >"$TMP/c1.json" || fail "tcp-crr run failed"
"$SB" tcp-crr "${short[@]}" >"$TMP/c2.json" || fail "tcp-crr run failed"
"$SB" udp-rr "${short[@]}" >"$TMP/u.json" || fail "udp-rr run failed"

# --fields NAME and --fields PATH: the same column of values, the JSON's at the path.
for f in "$TMP/c1.json" "$TMP/u.json"; do
	wl=$(jq -r .workload "$f")
	for n in $(cat "$TMP/names.$wl"); do
		p=$(path_of "$n")
		a=$("$SB" report "$f" --format csv --fields "$n" | sed -n 2p)
		b=$("$SB" report "$f" --format csv --fields "$p" | sed -n 2p)
		want=$(jq -r ".$p // \"\"" "$f")
		[ "$a" = "$b" ] || fail "$wl: --fields $n gave '$a', --fields $p '$b'"
		python3 -c 'import sys; a, w = sys.argv[1:]; sys.exit(0 if (a == w == "") or (a != "" and w != "" and float(a) == float(w)) else 1)' "$a" "$want" ||
			fail "$wl: --fields $n gave '$a', the JSON's $p is '$want'"
	done
done

# compare: by name or path, named by its name; the rate of connections is "rate".
"$SB" compare "$TMP/c1.json" "$TMP/c2.json" --json >"$TMP/cmp.json" 2>/dev/null
jassert "$TMP/cmp.json" '.figures[0].key == "rate" and .verdicts.primary == "rate" and ([.figures[].key] | index("transactions_per_s") == null)' '[.figures[].key]'
for arg in server_syscalls sides.server.syscalls_per_unit sides.server.syscalls_per_transaction; do
	"$SB" compare "$TMP/c1.json" "$TMP/c2.json" --primary "$arg" --json >"$TMP/cmp.json" 2>/dev/null
	jassert "$TMP/cmp.json" '.verdicts.primary == "server_syscalls"' '.verdicts'
done
# A figure another workload has is not one of this workload's.
expect_usage "is not a figure of udp-rr" compare "$TMP/u.json" "$TMP/u.json" --primary gbit_per_s
expect_usage "--fields: gbit_per_s is not a field of udp-rr" udp-rr --fields gbit_per_s --format csv
echo "ok: $(wc -l <"$TMP/table") figures, one name each"
