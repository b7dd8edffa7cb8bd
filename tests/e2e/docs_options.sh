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
echo ok
