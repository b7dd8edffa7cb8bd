# Outputs that fail (issue 24): every report, on standard output or in a named file, that cannot
# be written whole exits non-zero with a message naming where and why. A named file is written
# whole or not at all: an existing one is left as it was, a new one is not made, no temporary
# file stays behind, a symlink stays a symlink, and a device is written, never removed. Names
# and titles reach gnuplot as its quoted strings, never as its commands.
. "$(dirname "$0")/lib.sh"
need gnuplot
[ "$(id -u)" = 0 ] || skip "not root (mknod, mount)"
run="--duration 0.3 --warmup 0.1"
sweep="sweep udp-rr --batch 1,2 --runs 1 $run"
NOSPC="No space left on device"
STDOUT_MSG="sockbench: writing the report to standard output: $NOSPC"

# A device like /dev/full of our own, so that a tool that removes its output on failure removes
# this node, not the machine's /dev/full (as root, one did).
FULL=$TMP/full
mknod -m 666 "$FULL" c 1 7 2>/dev/null
case $( (echo x >"$FULL") 2>&1) in *"$NOSPC"*) ;; *) FULL=/dev/full ;; esac
[ -c "$FULL" ] || skip "no /dev/full"

# $1: what the message must hold; the rest: the command. Non-zero exit, the message on stderr.
expect_fail() {
	local needle=$1 rc
	shift
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -ne 0 ] || fail "$* exited 0 (stderr: $(cat "$TMP/err"))"
	grep -qF -- "$needle" "$TMP/err" || fail "$*: exit $rc, message '$(cat "$TMP/err")' lacks '$needle'"
}
# An SVG gnuplot finished: it ends with </svg> (and blank lines).
whole_svg() { tail -c 32 "$1" | tr -d ' \n' | grep -q '</svg>$'; }
still_device() { [ -c "$FULL" ] || fail "$FULL is no longer a character device after $*"; }

"$SB" udp-rr $run --json >"$TMP/r.json" || fail "udp-rr --json"
cp "$TMP/r.json" "$TMP/r2.json"

# Standard output that cannot take the report: every command that prints one.
for cmd in "udp-rr $run --json" "udp-rr $run" "udp-rr $run --runs 2 --json" \
	"report $TMP/r.json" "compare $TMP/r.json $TMP/r2.json" "compare $TMP/r.json $TMP/r2.json --json"; do
	"$SB" $cmd >/dev/full 2>"$TMP/err"
	rc=$?
	[ $rc -ne 0 ] || fail "sockbench $cmd >/dev/full exited 0"
	grep -qF "$STDOUT_MSG" "$TMP/err" || fail "sockbench $cmd >/dev/full: '$(cat "$TMP/err")'"
done
# Named outputs on a device: written to it, the error said, the device left in place.
expect_fail "report -o $FULL: $NOSPC" "$SB" report "$TMP/r.json" -o "$FULL"
still_device "report -o"
expect_fail "--plot $FULL: $NOSPC" "$SB" udp-rr $run --plot "$FULL"
still_device "--plot"
"$SB" $sweep --json --csv "$FULL" --plot "$FULL" >/dev/full 2>"$TMP/err" && fail "sweep >/dev/full exited 0"
for m in "$STDOUT_MSG" "--csv $FULL: $NOSPC" "--plot $FULL: $NOSPC"; do
	grep -qF -- "$m" "$TMP/err" || fail "sweep: '$(cat "$TMP/err")' lacks '$m'"
done
still_device "sweep --plot"

# gnuplot syntax in an output name and in a title: no command of it runs (a fresh folder as the
# working directory, where `touch x` would make x). The plot is still drawn, whole, under the
# name given.
mkdir "$TMP/cwd"
name="p.svg'; system('touch x'); print '.svg"
(cd "$TMP/cwd" && "$SB" udp-rr $run --plot "$name" >/dev/null) || fail "--plot with quotes in its name"
[ -e "$TMP/cwd/x" ] && fail "--plot's file name ran a gnuplot command"
whole_svg "$TMP/cwd/$name" || fail "--plot '$name' is not a whole SVG"
grep -q "sockbench udp-rr" "$TMP/cwd/$name" || fail "the plot does not name the workload"
# gnuplot runs `...` in double-quoted strings; --compare's flags reach the sweep plot's title.
(cd "$TMP/cwd" && "$SB" $sweep --compare '--server=`touch${IFS}x`' --plot t.svg >/dev/null 2>&1)
[ -e "$TMP/cwd/x" ] && fail "a backquote in sweep --compare ran a command through gnuplot"
whole_svg "$TMP/cwd/t.svg" || fail "sweep --plot t.svg is not a whole SVG"
# Whole outputs: an existing file is replaced (its mode kept), a symlink written through.
echo old >"$TMP/cwd/s.csv"
chmod 640 "$TMP/cwd/s.csv"
ln -s s.svg "$TMP/cwd/link.svg"
(cd "$TMP/cwd" && "$SB" $sweep --csv s.csv --plot link.svg >/dev/null) || fail "sweep --csv --plot"
[ "$(head -1 "$TMP/cwd/s.csv")" = "batch,rate,loss_pct,latency_p50_us,latency_p99_us,client_cpu_us,client_user_us,client_sys_us,server_cpu_us,server_user_us,server_sys_us,status" ] ||
	fail "sweep --csv header: $(head -1 "$TMP/cwd/s.csv")"
[ "$(wc -l <"$TMP/cwd/s.csv")" = 3 ] || fail "sweep --csv: $(cat "$TMP/cwd/s.csv")"
[ "$(stat -c %a "$TMP/cwd/s.csv")" = 640 ] || fail "sweep --csv changed the file's mode"
[ -L "$TMP/cwd/link.svg" ] && whole_svg "$TMP/cwd/s.svg" ||
	fail "sweep --plot through a symlink: $(ls -la "$TMP/cwd")"
[ "$(ls -A "$TMP/cwd" | sort | tr '\n' ' ')" = "link.svg p.svg'; system('touch x'); print '.svg s.csv s.svg t.svg " ] ||
	fail "files left in the working folder: $(ls -A "$TMP/cwd")"

# A file another user owns keeps its owner when it is replaced; and the kernel's rule for
# links in a sticky, world-writable folder holds (fs.protected_symlinks, whatever it is set to
# here): a link someone else planted there is not followed, so root is not sent to replace or
# create a file of the link's choosing.
echo theirs >"$TMP/cwd/owned.html"
chown 65534:65534 "$TMP/cwd/owned.html"
chmod 604 "$TMP/cwd/owned.html"
"$SB" report "$TMP/r.json" -o "$TMP/cwd/owned.html" || fail "report -o over another user's file"
[ "$(stat -c '%u %g %a' "$TMP/cwd/owned.html")" = "65534 65534 604" ] ||
	fail "report -o changed the owner or mode of the file it replaced: $(stat -c '%u %g %a' "$TMP/cwd/owned.html")"
rm -f "$TMP/cwd/owned.html"
mkdir -m 1777 "$TMP/sticky" "$TMP/victim"
echo precious >"$TMP/victim/file"
if command -v setpriv >/dev/null; then
	chmod 755 "$TMP"
	setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$TMP/victim/file" "$TMP/sticky/planted"
	setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$TMP/victim/new" "$TMP/sticky/dangling"
	expect_fail "$TMP/sticky/planted: Permission denied" "$SB" report "$TMP/r.json" -o "$TMP/sticky/planted"
	[ "$(cat "$TMP/victim/file")" = precious ] || fail "a planted link in a sticky folder was followed"
	expect_fail "$TMP/sticky/dangling: Permission denied" "$SB" report "$TMP/r.json" -o "$TMP/sticky/dangling"
	[ -e "$TMP/victim/new" ] && fail "a planted dangling link in a sticky folder made its target"
	[ "$(ls -A "$TMP/sticky" | sort | tr '\n' ' ')" = "dangling planted " ] || fail "left in the sticky folder: $(ls -A "$TMP/sticky")"
	# root's own link there is followed as before
	ln -s "$TMP/victim/mine" "$TMP/sticky/mine"
	"$SB" report "$TMP/r.json" -o "$TMP/sticky/mine" && [ -s "$TMP/victim/mine" ] || fail "root's own link in a sticky folder"
fi

# A full filesystem: nothing at a new target, an existing one and a symlink as they were, no
# temporary file left.
mkdir "$TMP/mnt"
mount -t tmpfs -o size=64k tmpfs "$TMP/mnt" 2>/dev/null || skip "cannot mount a tmpfs (the rest passed)"
trap 'umount "$TMP/mnt"; cleanup' EXIT
echo old >"$TMP/mnt/keep"
ln -s keep "$TMP/mnt/link"
head -c 1M /dev/zero >"$TMP/mnt/fill" 2>/dev/null
left() {
	[ "$(ls -A "$TMP/mnt" | tr '\n' ' ')" = "fill keep link " ] || fail "after $*: $(ls -lA "$TMP/mnt")"
	[ "$(cat "$TMP/mnt/keep")" = old ] || fail "$* changed an existing file: $(head -c 200 "$TMP/mnt/keep")"
	[ -L "$TMP/mnt/link" ] || fail "$* removed a symlink"
}
for t in keep new link; do
	expect_fail "report -o $TMP/mnt/$t: $NOSPC; nothing written" "$SB" report "$TMP/r.json" -o "$TMP/mnt/$t"
	left "report -o $t"
done
expect_fail "--plot $TMP/mnt/keep: $NOSPC" "$SB" udp-rr $run --plot "$TMP/mnt/keep"
left "--plot"
expect_fail "--csv $TMP/mnt/new.csv: $NOSPC" "$SB" $sweep --csv "$TMP/mnt/new.csv" --plot "$TMP/mnt/link"
grep -qF -- "--plot $TMP/mnt/link: $NOSPC" "$TMP/err" || fail "sweep --plot on a full disk: $(cat "$TMP/err")"
left "sweep --csv --plot"
"$SB" udp-rr $run --json >"$TMP/mnt/new.json" 2>"$TMP/err" && fail "--json >full disk exited 0"
grep -qF "$STDOUT_MSG" "$TMP/err" || fail "--json >full disk: $(cat "$TMP/err")"
rm "$TMP/mnt/new.json"
# --profile-folded and --flamegraph, where this machine lets us profile.
"$SB" udp-rr $run --profile --profile-folded "$TMP/mnt/keep" --flamegraph "$TMP/mnt/new.svg" \
	>/dev/null 2>"$TMP/err" && fail "--profile-folded on a full disk exited 0"
if ! grep -q "no profile" "$TMP/err"; then
	grep -qF -- "--profile-folded $TMP/mnt/keep: $NOSPC" "$TMP/err" || fail "--profile-folded: $(cat "$TMP/err")"
	grep -qF -- "--flamegraph $TMP/mnt/new.svg: $NOSPC" "$TMP/err" || fail "--flamegraph: $(cat "$TMP/err")"
fi
left "--profile-folded"
echo ok
