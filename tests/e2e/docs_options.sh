# The docs cannot drift from the option table: every option of every workload, with the default
# its --help prints, has a row in docs/workloads.md and an entry in the man page with that same
# default (tests/helpers/docs_options.py). The check must also fail on a planted drift: a changed
# default, a missing row, a man page default changed by hand. No traffic.
. "$(dirname "$0")/lib.sh"
need python3
cd "$(dirname "$0")/../.."
CHK="python3 tests/helpers/docs_options.py $SB"
$CHK docs/workloads.md docs/sockbench.1 >"$TMP/out" || fail "the docs drift from the binary: $(cat "$TMP/out")"

# Planted: tcp-rr's --flows default said 2, the tcp-crr --rcvlowat row gone, the man page's
# tcp-crr --backlog default said 512. Each must be named.
sed '0,/^| `-F, --flows N` | 1 |/s//| `-F, --flows N` | 2 |/' \
	docs/workloads.md >"$TMP/flows.md"
cmp -s docs/workloads.md "$TMP/flows.md" && fail "the planted --flows row did not change anything"
$CHK "$TMP/flows.md" docs/sockbench.1 >"$TMP/out" && fail "a wrong --flows default passed"
grep -q "tcp-rr: flows default '2', --help says '1'" "$TMP/out" || fail "not named: $(cat "$TMP/out")"

grep -v '^| `--rcvlowat BYTES` | 0 |' docs/workloads.md >"$TMP/row.md"
$CHK "$TMP/row.md" docs/sockbench.1 >"$TMP/out" && fail "a missing --rcvlowat row passed"
grep -q "tcp-crr: no row for --rcvlowat" "$TMP/out" || fail "not named: $(cat "$TMP/out")"

sed '/^server listen() backlog/s/(default: 1024)/(default: 512)/' docs/sockbench.1 >"$TMP/page"
cmp -s docs/sockbench.1 "$TMP/page" && fail "the planted man page default did not change anything"
$CHK docs/workloads.md "$TMP/page" >"$TMP/out" && fail "a wrong man page default passed"
grep -q "man page tcp-crr: --backlog" "$TMP/out" || fail "not named: $(cat "$TMP/out")"

# serve's caps (issue 39: docs/hosts.md said --max-flows 1024, the table 100,000): the figure
# docs/hosts.md gives after each `--max-X` (in s, MiB or GiB) is the default `serve --help`
# prints, for every cap it prints; and a planted drift is named.
caps() {
	"$SB" serve --help | python3 -c '
import re, sys
doc = open(sys.argv[1]).read()
unit = {"": 1, "s": 1, "MiB": 1 << 20, "GiB": 1 << 30}
caps = re.findall(r"--(max-[a-z]+) \S+ .*\(default: (\d+)\)", sys.stdin.read())
bad = len(caps) < 5
if bad:
    print(f"serve --help: {len(caps)} caps with a default, not the 5 or more docs/hosts.md names")
for name, dflt in caps:
    m = re.search(r"`--" + name + r"` \(([0-9,]+) ?(s|MiB|GiB)?\b", doc)
    said = int(m.group(1).replace(",", "")) * unit[m.group(2) or ""] if m else None
    if said != int(dflt):
        got = m.group(0) if m else "not given"
        print(f"docs/hosts.md: --{name}: {got}, serve --help says {dflt}")
        bad = 1
sys.exit(bad)' "$1"
}
caps docs/hosts.md >"$TMP/out" || fail "serve's caps drift from docs/hosts.md: $(cat "$TMP/out")"
sed 's/`--max-conns` (10,000,000/`--max-conns` (1,000,000/' docs/hosts.md >"$TMP/hosts.md"
cmp -s docs/hosts.md "$TMP/hosts.md" && fail "the planted --max-conns figure did not change anything"
caps "$TMP/hosts.md" >"$TMP/out" && fail "a wrong --max-conns figure passed"
grep -q "docs/hosts.md: --max-conns" "$TMP/out" || fail "not named: $(cat "$TMP/out")"
echo ok
