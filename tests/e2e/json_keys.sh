# The interface holds still: the key set of every command's --json document and the option
# names of every command's --help are those recorded in tests/fixtures/keys/ (made with
# REGEN=1 before the restructure of issue 14). A key renamed, dropped or added by accident
# fails here; an intended change regenerates the fixture in the same commit (and marks again
# with "?" the keys that only some data brings).
. "$(dirname "$0")/lib.sh"
need jq
FIX=$(dirname "$0")/../fixtures/keys
# Every path of a document, array indices as [], sorted.
keys() { jq -r '[paths | map(if type=="number" then "[]" else tostring end) | join(".")] | unique | .[]' "$1"; }
# The long options a --help names.
opts_of() { grep -oE -- '--[a-z0-9][a-z0-9-]*' "$1" | sort -u; }
# A recorded line "?key" is a key that comes only with some data (compare shows medians where
# a figure has no ratio): it may be missing, never renamed. Everything else must match.
check() { # name file
	if [ "${REGEN:-0}" = 1 ]; then cp "$2" "$FIX/$1"; return; fi
	sed 's/^?//' "$FIX/$1" | sort >"$TMP/allowed"
	grep -v '^?' "$FIX/$1" | sort >"$TMP/required"
	sort "$2" >"$TMP/now"
	new=$(comm -13 "$TMP/allowed" "$TMP/now") gone=$(comm -23 "$TMP/required" "$TMP/now")
	[ -z "$new$gone" ] || fail "$1 changed: new keys: [$new] keys gone: [$gone]"
}
short=(--duration 0.3 --warmup 0.1 --json)
for w in udp-rr tcp-rr tcp-stream udp-stream; do
	"$SB" $w "${short[@]}" >"$TMP/$w.json" || fail "$w"
	keys "$TMP/$w.json" >"$TMP/$w.keys"; check "$w.keys" "$TMP/$w.keys"
done
# An open-loop run brings its own keys (offered and achieved rate, schedule lag, service time).
"$SB" udp-rr --rate 2000 "${short[@]}" >"$TMP/open.json" || fail "udp-rr --rate"
keys "$TMP/open.json" >"$TMP/open.keys"; check udp-rr-open.keys "$TMP/open.keys"
# (an SLO any run meets: knee exits 1 when no rate held it, which a loaded machine can make of 1 ms)
"$SB" knee udp-rr --clients 1 --slo p99=1s --min-rate 1000 --max-rate 2000 --budget 5 --json >"$TMP/knee.json" 2>/dev/null || fail knee
keys "$TMP/knee.json" >"$TMP/knee.keys"; check knee.keys "$TMP/knee.keys"
"$SB" tcp-crr --conns 2000 --warmup 200 --json >"$TMP/crr.json" || fail tcp-crr
keys "$TMP/crr.json" >"$TMP/crr.keys"; check tcp-crr.keys "$TMP/crr.keys"
"$SB" udp-rr --duration 0.3 --warmup 0.1 --runs 2 --json >"$TMP/runs.json" || fail "--runs"
keys "$TMP/runs.json" >"$TMP/runs.keys"; check runs.keys "$TMP/runs.keys"
"$SB" compare 'udp-rr --duration 0.3 --warmup 0.1' 'udp-rr --duration 0.3 --warmup 0.1 --batch 8' \
	--runs 2 --seed 1 --json >"$TMP/cmp.json" 2>/dev/null || fail compare
keys "$TMP/cmp.json" >"$TMP/cmp.keys"; check compare.keys "$TMP/cmp.keys"
"$SB" compare "$TMP/udp-rr.json" "$TMP/udp-rr.json" --json >"$TMP/cmpf.json" || fail "compare files"
keys "$TMP/cmpf.json" >"$TMP/cmpf.keys"; check compare_files.keys "$TMP/cmpf.keys"
"$SB" sweep udp-rr --duration 0.3 --warmup 0.1 --batch 1,8 --runs 1 --json >"$TMP/sw.json" 2>/dev/null || fail sweep
keys "$TMP/sw.json" >"$TMP/sw.keys"; check sweep.keys "$TMP/sw.keys"
if [ "$(id -u)" -eq 0 ]; then
	"$SB" udp-rr "${short[@]}" --profile >"$TMP/prof.json" 2>/dev/null || fail "--profile"
	jq -e '.profile.available' "$TMP/prof.json" >/dev/null &&
		{ keys "$TMP/prof.json" | grep '^profile' >"$TMP/prof.keys"; check profile.keys "$TMP/prof.keys"; }
fi
for c in udp-rr tcp-crr tcp-rr tcp-stream udp-stream compare sweep explore knee serve; do
	"$SB" $c --help >"$TMP/h" 2>&1 || fail "$c --help"
	opts_of "$TMP/h" >"$TMP/$c.opts"; check "$c.opts" "$TMP/$c.opts"
done
"$SB" --help >"$TMP/top" 2>&1; check help.txt "$TMP/top"
echo ok
