# Shared by the bench scripts (sourced): the binary, a temp dir, medians.
set -eu
cd "$(dirname "$0")/.."
SB=${SOCKBENCH:-build/sockbench}
[ -x "$SB" ] || make -s
tmp=$(mktemp -d)
trap 'pkill -P $$ sockperf 2>/dev/null || true; rm -rf "$tmp"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
col() { cut -d' ' -f"$1" "$tmp/rows" | median; }
need_sockperf() { command -v sockperf >/dev/null || { echo "sockperf is not installed (apt-get install sockperf)"; exit 77; }; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; } # a / b, 3 decimals
# The first CPU this script may use (where the one-CPU rows put both ends of both programs).
first_cpu() { awk '/^Cpus_allowed_list/ {split($2, r, "[-,]"); print r[1]}' /proc/self/status; }
vals() { cut -d' ' -f"$1" "$tmp/rows" | paste -sd, -; } # column N of every round, a,b,c
# One row of `make bench`'s summary table (when it collects them): the medians, the targets,
# and each round's ratios (from `vals`) where the median is one of per-round ratios, from
# which the table gives an interval for it (bench/summary.awk):
#   summary ROW REFERENCE RATE_RATIO CPU_RATIO|- MIN_RATE_RATIO MAX_CPU_RATIO|- \
#           [RATE_RATIOS|- [CPU_RATIOS|-]]
summary() {
	[ -n "${BENCH_SUMMARY:-}" ] || return 0
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "${7:--}" "${8:--}" \
		>>"$BENCH_SUMMARY"
}
