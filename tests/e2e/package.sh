# The Debian package: built from this tree with dpkg-buildpackage, installed with apt, then the
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
mkdir -p "$TMP/pkg/sockbench"
# The tracked tree only (git ls-files when it is a clone), without build outputs.
(cd "$src" && { git ls-files 2>/dev/null || find . -path ./build -prune -o -path ./.git -prune -o -type f -print; }) |
	(cd "$src" && tar -cf - -T -) | tar -xf - -C "$TMP/pkg/sockbench"
(cd "$TMP/pkg/sockbench" && dpkg-buildpackage -b -us -uc >"$TMP/build.log" 2>&1) ||
	fail "dpkg-buildpackage: $(tail -20 "$TMP/build.log")"
deb=$(ls "$TMP"/pkg/sockbench_*.deb) || fail "no .deb built"
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
