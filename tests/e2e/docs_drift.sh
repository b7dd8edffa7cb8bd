# The docs against the binary (tests/helpers/docs_drift.py): a default the docs give is the
# one --help prints; every command of the command table is in the man page's SYNOPSIS, in
# `sockbench completion bash` and named in README.md or docs/; no doc names an internal issue
# number; the docs' compare tables have the columns compare prints; report --help names the
# kinds it draws, and a knee result is refused naming what draws it. Each check must also fail:
# a planted drift of each kind is named.
# aside: it checks the docs against --help and the man page, no run timed (3.5 s, 2.5 s of CPU)
. "$(dirname "$0")/lib.sh"
need python3
cd "$(dirname "$0")/../.."
CHK="python3 tests/helpers/docs_drift.py $SB"
$CHK . >"$TMP/out" || fail "the docs drift from the binary: $(cat "$TMP/out")"

# A copy of the docs to plant drifts in.
plant() {
	rm -rf "$TMP/p" && mkdir -p "$TMP/p/docs" && cp README.md "$TMP/p/" &&
		cp docs/*.md docs/sockbench.1 docs/sockbench.1.in "$TMP/p/docs/"
}
planted() { # what it must say, file, sed expression
	local say=$1 f=$2 expr=$3
	plant
	sed -i "$expr" "$TMP/p/$f"
	cmp -s "$f" "$TMP/p/$f" && fail "the planted drift in $f ($expr) changed nothing"
	$CHK "$TMP/p" >"$TMP/out" && fail "a planted drift in $f ($expr) passed"
	grep -qF -- "$say" "$TMP/out" || fail "planted in $f ($expr): not named: $(cat "$TMP/out")"
}
planted 'docs/hosts.md: `--max-flows` 1,024' docs/hosts.md 's/`--max-flows` (100,000/`--max-flows` (1,024/'
planted 'docs/openloop.md: `--max-rate` 2,000,000' docs/openloop.md 's/`--max-rate` (1,000,000/`--max-rate` (2,000,000/'
planted 'sockbench explore [--budget 120]' docs/analysis.md 's/\[--budget 180\]/[--budget 120]/'
planted 'the SYNOPSIS lacks knee' docs/sockbench.1 '/^\.B sockbench knee$/d'
planted 'names an internal issue number' docs/json.md '$a See issue 12.'
planted 'never name the command help' README.md '/sockbench help/d'
# A completion script that lacks a command.
"$SB" completion bash | sed 's/ knee / /g' >"$TMP/c.bash"
$CHK . "$TMP/c.bash" >"$TMP/out" && fail "a completion without knee passed"
grep -qF "does not offer knee" "$TMP/out" || fail "not named: $(cat "$TMP/out")"

# The compare tables of the docs have the header compare prints now (its p and Holm p columns).
run="udp-rr -l 0.2 --warmup 0 -c 1 --json"
"$SB" $run >"$TMP/a.json" 2>"$TMP/err" && "$SB" $run >"$TMP/b.json" 2>>"$TMP/err" ||
	fail "two short runs: $(tail -2 "$TMP/err")"
"$SB" compare "$TMP/a.json" "$TMP/b.json" >"$TMP/cmp" 2>"$TMP/err" || fail "compare: $(cat "$TMP/err")"
head=$(grep -m1 'figure (geometric means)' "$TMP/cmp" | tr -s ' ' | sed 's/^ //')
[ -n "$head" ] || fail "compare printed no table header: $(head -5 "$TMP/cmp")"
grep -h 'figure (geometric means)' README.md docs/*.md | tr -s ' ' | sed 's/^ //' | sort -u >"$TMP/docheads"
[ -s "$TMP/docheads" ] || fail "no compare table in the docs to check"
while IFS= read -r h; do
	[ "$h" = "$head" ] || fail "a compare table in the docs has the header '$h'; compare prints '$head'"
done <"$TMP/docheads"
# Each row's verdict in the docs' tables (the text under "verdict", its gloss in parentheses
# left out) is one compare prints.
verdicts() { # files...: the verdicts of their compare tables, one a line
	awk '/figure \(geometric means\)/ { col = index($0, "verdict"); next }
		col && !NF { col = 0 } col { v = substr($0, col); sub(/ *\(.*/, "", v); if (v != "") print v }' "$@" | sort -u
}
verdicts README.md docs/*.md >"$TMP/verdicts"
[ -s "$TMP/verdicts" ] || fail "no verdicts read from the docs' compare tables"
strings "$SB" >"$TMP/strings"
while IFS= read -r v; do
	grep -qF -- "$v" "$TMP/strings" || fail "the docs' compare verdict '$v' is not one the binary prints"
done <"$TMP/verdicts"
sed 's/   no significant difference$/   no change at all/' docs/environment.md >"$TMP/env.md"
verdicts "$TMP/env.md" | grep -qx "no change at all" || fail "a planted verdict was not read"
! grep -qF "no change at all" "$TMP/strings" || fail "'no change at all' is in the binary: plant another"

# report --help names what it draws; a knee result is refused pointing to knee --plot.
"$SB" report --help >"$TMP/help"
grep -q "any kind" "$TMP/help" && fail "report --help says any kind: $(grep 'any kind' "$TMP/help")"
for k in "a single run" "--runs N" compare explore sweep "knee WORKLOAD --plot"; do
	grep -qF -- "$k" "$TMP/help" || fail "report --help does not name $k"
done
printf '{"tool":"sockbench","schema":1,"kind":"knee","knee":{}}\n' >"$TMP/knee.json"
expect_usage "is a knee result, which the report does not draw: \`sockbench knee WORKLOAD --plot" \
	report "$TMP/knee.json"
echo ok
