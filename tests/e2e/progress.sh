# A single long run says how far it is, on a terminal only (stderr, as the multi-run commands
# do): tcp-crr counts its connections against --conns; a time-based run its seconds. Under a
# pipe nothing is printed but the report.
. "$(dirname "$0")/lib.sh"
command -v script >/dev/null || skip "script (util-linux) is not installed"
script -qc "$SB tcp-crr --conns 30000 --warmup-conns 100" /dev/null >"$TMP/tty" 2>&1 || fail "tcp-crr on a terminal"
tr '\r' '\n' <"$TMP/tty" | grep -aE "tcp-crr: window: [0-9,]+ of 30,000 connections, [0-9]+ s elapsed, ~[0-9]+ s left" >"$TMP/lines" ||
	fail "no progress line on a terminal: $(tr '\r' '\n' <"$TMP/tty" | head -5)"
# The counts it shows grow and stay within --conns.
awk '{for (i = 1; i <= NF; i++) if ($(i+1) == "of") { gsub(",", "", $i); print $i }}' "$TMP/lines" >"$TMP/counts"
sort -n -c "$TMP/counts" || fail "the progress went backwards: $(tr '\n' ' ' <"$TMP/counts")"
awk '$1 > 30000 {exit 1}' "$TMP/counts" || fail "progress past --conns: $(tr '\n' ' ' <"$TMP/counts")"
grep -aq "(30,000 in " "$TMP/tty" || fail "no report after the progress"
script -qc "$SB udp-rr --duration 2.5 --warmup 0.2" /dev/null >"$TMP/tty2" 2>&1 || fail "udp-rr on a terminal"
tr '\r' '\n' <"$TMP/tty2" | grep -aqE "udp-rr: window: [12] of 2 s" || fail "no time progress: $(tr '\r' '\n' <"$TMP/tty2" | head -3)"
# The first line comes as the window opens (a script may wait for it to act in the window).
tr '\r' '\n' <"$TMP/tty2" | grep -aE "window: " | head -n 1 | grep -aqE "udp-rr: window: 0 of 2 s" ||
	fail "no line at the window's opening: $(tr '\r' '\n' <"$TMP/tty2" | grep -a "window: " | head -3)"
"$SB" tcp-crr --conns 20000 --warmup-conns 100 >/dev/null 2>"$TMP/err" || fail "tcp-crr in a pipe"
grep -q "window:" "$TMP/err" && fail "a progress line in a pipe: $(cat "$TMP/err")"
echo "progress: $(wc -l <"$TMP/counts") lines, last $(tail -1 "$TMP/counts") of 30000"
