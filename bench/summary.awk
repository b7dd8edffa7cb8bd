# make bench's summary: one row per `summary` line the bench scripts wrote (tab-separated:
# row, reference, rate ratio, CPU-per-unit ratio or -, least rate ratio or -, most CPU ratio or
# -).
# Every ratio is a median of per-round ratios, sockbench / reference, from this invocation.
BEGIN {
	FS = "\t"
	fmt = "%-40s %-42s %7s %7s %8s %7s  %s\n"
	printf fmt, "sockbench", "against", "rate", "target", "CPU/unit", "target", "met"
}
{
	ok = ($5 == "-" || $3 >= $5) && ($4 == "-" || $6 == "-" || $4 <= $6)
	printf fmt, $1, $2, $3, ($5 == "-" ? "" : ">= " $5), $4, ($6 == "-" ? "" : "<= " $6), ok ? "yes" : "NO"
	missed += !ok
}
END {
	if (NR == 0)
		print "(no rows: every bench was skipped)"
	else
		printf "%d of %d rows meet their targets\n", NR - missed, NR
}
