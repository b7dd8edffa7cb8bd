# The Debian package: `make deb` builds it (scripts/mkdeb: dpkg-buildpackage in a temporary
# copy of the tree) into build/deb/, leaving the tree as it was (git status the same, the
# binary in build/ untouched, nothing written beside the tree); installed with apt, then the
# installed sockbench runs a workload, its man page, bash completion, /etc/default file and
# systemd unit are where Debian puts them (the unit passes `systemd-analyze verify` where
# systemd is there), lintian finds no error, and apt removes it all. Root; skips when
# dpkg-buildpackage, debhelper or apt are missing.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "installing a package needs root"
need dpkg-buildpackage
need apt-get
dpkg-query -W -f='${Status}' debhelper 2>/dev/null | grep -q "install ok installed" || skip "debhelper is not installed"
if dpkg-query -W -f='${Status}' sockbench 2>/dev/null | grep -q "install ok installed"; then
	skip "a sockbench package is installed already: not replacing it"
fi
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src"
git=no
git rev-parse --is-inside-work-tree >/dev/null 2>&1 && git=yes
[ $git = yes ] && git status --porcelain >"$TMP/status.before"
sha256sum "$SB" >"$TMP/bin.before"
ls .. | grep '^sockbench_' >"$TMP/parent.before"
touch "$TMP/start"
make deb >"$TMP/build.log" 2>&1 || fail "make deb: $(tail -20 "$TMP/build.log")"
deb=$(ls build/deb/sockbench_*.deb) || fail "no .deb in build/deb/: $(tail -5 "$TMP/build.log")"
[ "$(echo "$deb" | wc -l)" -eq 1 ] || fail "more than one .deb in build/deb/: $deb"
[ "$deb" -nt "$TMP/start" ] || fail "$deb is older than this make deb"
deb=$src/$deb
if [ $git = yes ]; then
	git status --porcelain >"$TMP/status.after"
	diff -u "$TMP/status.before" "$TMP/status.after" >"$TMP/status.diff" ||
		fail "make deb changed the tree's git status: $(cat "$TMP/status.diff")"
fi
sha256sum -c --quiet "$TMP/bin.before" >/dev/null 2>&1 || fail "make deb changed or removed $SB"
ls .. | grep '^sockbench_' | diff -u "$TMP/parent.before" - >"$TMP/parent.diff" ||
	fail "make deb wrote beside the tree: $(cat "$TMP/parent.diff")"
cleanup_pkg() { apt-get remove -y -qq sockbench >/dev/null 2>&1; }
trap 'cleanup_pkg; cleanup' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$TMP/apt.log" 2>&1 || fail "apt-get install: $(tail -5 "$TMP/apt.log")"
[ -x /usr/bin/sockbench ] || fail "no /usr/bin/sockbench after install"
/usr/bin/sockbench udp-rr -l 1 --warmup 0.2 --json >"$TMP/u.json" || fail "the installed sockbench did not run udp-rr"
jassert "$TMP/u.json" '.transactions > 0 and .partial == false'
for f in /usr/share/man/man1/sockbench.1.gz /usr/share/bash-completion/completions/sockbench \
	/lib/systemd/system/sockbench-serve.service /etc/default/sockbench; do
	[ -e "$f" ] || fail "the package does not install $f"
done
bash -n /usr/share/bash-completion/completions/sockbench || fail "the installed completion does not parse"
grep -q '^ProtectSystem=strict' /lib/systemd/system/sockbench-serve.service || fail "the unit is not hardened"
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify /lib/systemd/system/sockbench-serve.service 2>"$TMP/verify" ||
		fail "systemd-analyze verify: $(cat "$TMP/verify")"
fi
if command -v lintian >/dev/null; then
	lintian "$deb" >"$TMP/lintian" 2>&1
	grep -q '^E:' "$TMP/lintian" && fail "lintian errors: $(grep '^E:' "$TMP/lintian" | head -5)"
	echo "lintian: $(grep -c '^W:' "$TMP/lintian") warnings, no errors"
fi
apt-get remove -y -qq sockbench >/dev/null 2>&1 || fail "apt-get remove"
[ -e /usr/bin/sockbench ] && fail "/usr/bin/sockbench is still there after remove"
echo "package: $(basename "$deb") built, installed, ran udp-rr, removed"
