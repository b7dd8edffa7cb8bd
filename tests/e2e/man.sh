# The man page's option lists are made from the option table (scripts/mkman): the committed
# docs/sockbench.1 must be what mkman makes now (else: make man), groff must read it without a
# warning, and every flag of every command's --help must be in it.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
scripts/mkman "$SB" >"$TMP/page" || fail "scripts/mkman"
diff -u docs/sockbench.1 "$TMP/page" >"$TMP/diff" ||
	fail "docs/sockbench.1 is stale (an option changed): run make man and commit it: $(head -20 "$TMP/diff")"
if command -v groff >/dev/null; then
	groff -man -ww -z docs/sockbench.1 2>"$TMP/warn"
	[ -s "$TMP/warn" ] && fail "groff warns: $(head -5 "$TMP/warn")"
fi
for w in udp-rr tcp-crr tcp-rr tcp-stream udp-stream serve; do
	for f in $("$SB" $w --help | sed -nE 's/^  (-[a-zA-Z0-9], |    )(--[a-z0-9-]+).*/\2/p'); do
		[ "$f" = --help ] && continue
		grep -qF -- "\\-\\-$(echo "${f#--}" | sed 's/-/\\-/g')" docs/sockbench.1 ||
			fail "the man page lacks $w's $f"
	done
done
grep -q '^\.SH EXAMPLES' docs/sockbench.1 || fail "the man page has no EXAMPLES"
echo ok
