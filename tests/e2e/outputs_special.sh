# Outputs that are not files (issue 39): a FIFO or a socket someone planted where a result is to
# be written (/tmp) is refused at once, with why, and nothing reaches whoever reads it; the
# same file named as one this process has open (/dev/stdout, /dev/fd/N) is written, and a
# device (/dev/full) still is, its error said. Needs no root: anyone can mkfifo.
. "$(dirname "$0")/lib.sh"
need python3
FIFO_MSG="is a FIFO: refusing to write a result into a pipe someone else may read; name a regular file"
SOCK_MSG="is a socket: refusing to send a result to whoever listens on it; name a regular file"

# $1: what stderr must hold; the rest: the command, under timeout 10. Exits non-zero, not by
# the timeout (a writer held in open(2) by a FIFO nobody reads), within 5 s. RC: its exit.
refused() {
	local needle=$1 rc t0
	shift
	t0=$(date +%s%N)
	timeout 10 "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	RC=$rc
	[ $rc -ne 124 ] || fail "$* blocked: killed by timeout 10 (stderr: $(cat "$TMP/err"))"
	[ $rc -ne 0 ] || fail "$* exited 0 (stderr: $(cat "$TMP/err"))"
	[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 5000 ] || fail "$* took 5 s or more"
	grep -qF -- "$needle" "$TMP/err" || fail "$*: exit $rc, message '$(cat "$TMP/err")' lacks '$needle'"
}
# The bytes waiting in the FIFO behind fd $1 (a reader of it), read without blocking.
waiting() {
	python3 -c 'import os, sys
os.set_blocking(0, False)
try:
	print(len(os.read(0, 1 << 22)))
except BlockingIOError:
	print(0)' <&"$1"
}

"$SB" udp-rr --duration 0.3 --warmup 0.1 --json >"$TMP/r.json" || fail "udp-rr --json"

# A FIFO with no reader: refused before any work (exit 2, as other unwritable -o), not waited on.
mkfifo "$TMP/x.html"
refused "report: -o $TMP/x.html: $FIFO_MSG" "$SB" report "$TMP/r.json" -o "$TMP/x.html"
[ "$RC" = 2 ] || fail "report -o FIFO: exit $RC, not 2 as for other unwritable outputs"
# With a reader waiting on it (open(2) would not block): still refused, and it reads nothing.
exec {rd}<>"$TMP/x.html"
refused "report: -o $TMP/x.html: $FIFO_MSG" "$SB" report "$TMP/r.json" -o "$TMP/x.html"
[ "$(waiting $rd)" = 0 ] || fail "report -o wrote into a FIFO"
# Through a link of our own to it: the same.
ln -s x.html "$TMP/link.html"
refused "report: -o $TMP/link.html: $FIFO_MSG" "$SB" report "$TMP/r.json" -o "$TMP/link.html"
# The other outputs' checks before a run: --plot, --flamegraph, --profile-folded, sweep --csv.
refused "--plot $TMP/x.html: $FIFO_MSG" "$SB" udp-rr --plot "$TMP/x.html"
refused "--profile-folded $TMP/x.html: $FIFO_MSG" "$SB" udp-rr --profile --profile-folded "$TMP/x.html"
refused "--flamegraph $TMP/x.html: $FIFO_MSG" "$SB" udp-rr --profile --flamegraph "$TMP/x.html"
refused "--csv $TMP/x.html: $FIFO_MSG" "$SB" sweep udp-rr --batch 1,2 --csv "$TMP/x.html"
[ "$(waiting $rd)" = 0 ] || fail "an output's check wrote into a FIFO"
exec {rd}<&-

# A FIFO put there after the check before the work (report reads its input, here standard
# input, after checking -o): the open refuses it too, with a reader waiting, and writes nothing.
mkfifo "$TMP/in"
"$SB" report - -o "$TMP/late.html" <"$TMP/in" >/dev/null 2>"$TMP/err" &
pid=$!
PIDS+=("$pid")
exec {w}>"$TMP/in"
for _ in $(seq 100); do # past the check: sockbench asleep (reading its standard input)
	[ "$(cat /proc/$pid/comm 2>/dev/null)" = sockbench ] &&
		[ "$(awk '{print $3}' /proc/$pid/stat 2>/dev/null)" = S ] && break
	sleep 0.1
done
mkfifo "$TMP/late.html"
exec {rd2}<>"$TMP/late.html"
cat "$TMP/r.json" >&$w
exec {w}>&-
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -0 $pid 2>/dev/null && fail "report -o a FIFO made after the check blocked"
wait $pid && fail "report -o a FIFO made after the check exited 0"
grep -qF "report -o $TMP/late.html: $FIFO_MSG; nothing written" "$TMP/err" ||
	fail "report -o a FIFO made after the check: $(cat "$TMP/err")"
[ "$(waiting $rd2)" = 0 ] || fail "report -o wrote into a FIFO made after the check"

# A socket (a listener would read the page): refused, not "No such device or address".
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/s.html"
refused "report: -o $TMP/s.html: $SOCK_MSG" "$SB" report "$TMP/r.json" -o "$TMP/s.html"
# A block device (root: a node of ours, of a major no driver has, so that a writer would fail).
if mknod "$TMP/b.html" b 240 0 2>/dev/null; then
	refused "report: -o $TMP/b.html: is a block device: refusing to write a result over a disk" \
		"$SB" report "$TMP/r.json" -o "$TMP/b.html"
fi

# Named as open files, a pipe and a FIFO are written, whole: five results' page, larger than a
# pipe holds, to a reader that waits first (the descriptor must block again once open).
five=("$TMP/r.json" "$TMP/r.json" "$TMP/r.json" "$TMP/r.json" "$TMP/r.json")
"$SB" report "${five[@]}" -o "$TMP/whole.html" || fail "report -o a regular file"
[ "$(stat -c %s "$TMP/whole.html")" -gt 65536 ] || fail "the page fits in a pipe: no test of blocking"
"$SB" report "${five[@]}" -o /dev/stdout | { sleep 0.5; cat; } >"$TMP/piped.html"
[ "${PIPESTATUS[0]}" = 0 ] || fail "report -o /dev/stdout into a pipe"
cmp -s "$TMP/piped.html" "$TMP/whole.html" || fail "report -o /dev/stdout into a pipe: not the page"
{ sleep 0.5; cat; } <"$TMP/x.html" >"$TMP/fifo.html" &
PIDS+=("$!")
"$SB" report "${five[@]}" -o /dev/fd/3 3>"$TMP/x.html" || fail "report -o /dev/fd/3 on a FIFO"
wait "${PIDS[-1]}"
cmp -s "$TMP/fifo.html" "$TMP/whole.html" || fail "report -o /dev/fd/3 on a FIFO: not the page"
# A device is written directly, its error said.
refused "report -o /dev/full: No space left on device" "$SB" report "$TMP/r.json" -o /dev/full
echo ok
