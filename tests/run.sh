#!/bin/bash
# Test runner: unit binaries given as arguments, then every tests/e2e/*.sh.
# Exit codes of a test: 0 pass, 77 skip, anything else fail. Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${SOCKBENCH:?set SOCKBENCH to the binary under test}"
export SOCKBENCH
pass=0 fail=0 skip=0 failed=()
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

run_one() { # name, timeout, command...
	local name=$1 limit=$2 rc
	shift 2
	timeout -k 5 "$limit" "$@" >"$log/out" 2>&1
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name" ;;
	77) skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$log/out")" ;;
	*) fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (exit $rc)"
	   sed 's/^/    /' "$log/out" | tail -n 40 ;;
	esac
}

for t in "$@"; do
	run_one "unit/$(basename "$t")" 120 "$t"
done
for t in "$here"/e2e/*.sh; do
	[ "$(basename "$t")" = lib.sh ] && continue
	run_one "e2e/$(basename "$t" .sh)" 300 bash "$t"
done
summary="$pass passed, $fail failed"
[ "$skip" -gt 0 ] && summary="$summary, $skip skipped"
echo "$summary"
[ "$fail" -eq 0 ]
