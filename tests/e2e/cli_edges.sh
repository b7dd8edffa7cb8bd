# The command line's edges found by an attack on it (issue 31): help under a multi-run command,
# a command whose every run failed, --fields, several result files in one report. Each check
# fails on the behaviour it replaced (an error for `explore tcp-rr --help`, exit 0 after no run).
. "$(dirname "$0")/lib.sh"
need jq

# WORKLOAD --help under explore, compare, sweep and knee: the workload's flags, exit 0.
# check_help CMD WORKLOAD WORDS...: sockbench CMD WORDS... prints WORKLOAD's flags under CMD.
check_help() {
	local cmd=$1 wl=$2
	shift 2
	"$SB" "$cmd" "$@" >"$TMP/help" 2>"$TMP/err" || fail "sockbench $cmd $*: exit $? ($(cat "$TMP/err"))"
	grep -qF "usage: sockbench $cmd $wl [options]" "$TMP/help" ||
		fail "sockbench $cmd $*: no usage line: $(head -3 "$TMP/help")"
	grep -qF -- "--duration S" "$TMP/help" || fail "sockbench $cmd $*: no option list"
	grep -qF "sockbench $cmd --help" "$TMP/help" || fail "sockbench $cmd $*: does not point at its own flags"
}
check_help explore tcp-rr tcp-rr --help
check_help compare tcp-rr tcp-rr --help
check_help compare udp-rr "udp-rr --help" udp-rr
check_help sweep tcp-rr tcp-rr --size 1,2 --help
check_help knee udp-rr udp-rr -h
echo ok
