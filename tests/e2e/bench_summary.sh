# make bench's summary table (bench/summary.awk) on rows made here, whose true medians are
# known: its verdicts are wrong at most 5% of the time for the whole table.
# 1. Each median's interval is the pair of order statistics its level allows: 9 rounds, one
#    ratio (level 90%): the 2nd and 8th smallest (coverage 96.1%; the 3rd and 7th give 82.0%).
#    Where it straddles the target it says how many rounds would decide it, were they to fall
#    as these did: 2 of 9 short of 1.0 (the interval 2nd-8th holds 1.0): 13 rounds, whose
#    interval at 90% is the 4th-10th (coverage 90.8%) and leaves 3 beyond each end, 13 x 2/9 =
#    2.9 (12 leave 2). 5 of 10 short: no number would ("split evenly").
# 2. 400 tables of 3 rows of a rate each, 30 rounds, every true median on the wrong side of
#    its target by 0.1% (0.969 against >= 0.97), each round's ratio log-normal around it (5%):
#    a "yes" is wrong, in at most 5% of tables, here 33 (5% plus 3 of its standard errors at
#    400). Each ratio at 96.7% takes the 9th and 22nd of 30: one wrong in 0.8%, 2.4% a table,
#    about 10. Each at 90% as if alone (no shared budget) takes the 11th: 14%, about 56.
# 3. The same rows with true medians 10% on the right side and 2% noise: every table says
#    "yes" on each row (at 98.3% the interval of 10 rounds is their least and most: one round
#    short would say "can't tell"; each falls short with a chance of 1e-6).
# 4. 5 rounds are too few for 6 ratios (a 98.3% interval needs 7): it says so, and that 7
#    would; a row without rounds is one measurement; the medians' own column is kept.
# aside: awk alone, about 2 s of CPU
. "$(dirname "$0")/lib.sh"
SUM=$(dirname "$0")/../../bench/summary.awk
[ -r "$SUM" ] || fail "no bench/summary.awk beside the tests"

# 1.
printf 'r\tref\t1.0\t-\t1.0\t-\t1.5,1.1,1.9,1.3,1.7,1.2,1.8,1.4,1.6\t-\n' >"$TMP/one"
awk -f "$SUM" "$TMP/one" >"$TMP/one.out" || fail "summary.awk: exit $?"
grep -q '^r .* 1\.200-1\.800 ' "$TMP/one.out" || fail "9 rounds at 90%: want 1.200-1.800: $(cat "$TMP/one.out")"
grep -q 'intervals at 90.00%' "$TMP/one.out" || fail "one ratio: want 90%: $(cat "$TMP/one.out")"
printf 'r\tref\t1.15\t-\t1.0\t-\t0.9,0.95,1.1,1.2,1.3,1.25,1.15,1.05,1.22\t-\n' >"$TMP/one"
awk -f "$SUM" "$TMP/one" >"$TMP/one.out"
grep -q "^r .*can't tell (~13 rounds)$" "$TMP/one.out" || fail "2 of 9 short: $(cat "$TMP/one.out")"
printf 'r\tref\t1.0\t-\t1.0\t-\t0.9,0.95,0.96,0.97,0.98,1.1,1.2,1.3,1.25,1.15\t-\n' >"$TMP/one"
awk -f "$SUM" "$TMP/one" >"$TMP/one.out"
grep -q "^r .*can't tell (split evenly)$" "$TMP/one.out" ||
	fail "5 of 10 short: $(cat "$TMP/one.out")"

# tables SEED RATE_MEDIAN CPU_MEDIAN ROUNDS COUNT [NOISE]: COUNT tables, each in a file t.N
tables() {
	awk -v seed="$1" -v rm="$2" -v cm="$3" -v n="$4" -v count="$5" -v sd="${6:-0.05}" \
		-v dir="$TMP" 'BEGIN {
		srand(seed)
		for (t = 1; t <= count; t++) {
			f = dir "/t." t
			for (row = 1; row <= 3; row++) {
				rl = cl = ""
				for (i = 1; i <= n; i++) {
					rl = rl (i > 1 ? "," : "") sprintf("%.4f", rm * exp(sd * gauss()))
					cl = cl (i > 1 ? "," : "") sprintf("%.4f", cm * exp(sd * gauss()))
				}
				if (cm == "-") # a rate alone
					cl = ""
				printf "row%d\tref\t%s\t%s\t0.97\t%s\t%s\t%s\n", row, rm, cm,
					cm == "-" ? "-" : 1.03, rl, cl == "" ? "-" : cl > f
			}
			close(f)
		}
	}
	function gauss() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()) }'
}
# verdicts COUNT: per table, how many rows said yes / NO / can't tell ("y n c" a line)
verdicts() {
	for t in $(seq "$1"); do
		awk -f "$SUM" "$TMP/t.$t" | awk '/^row/ {y += / yes$/; n += / NO$/; c += /can.t tell$/}
			END {print y + 0, n + 0, c + 0}'
	done
}

# 2.
tables 42 0.969 - 30 400
verdicts 400 >"$TMP/wrong"
wrong=$(awk '$1 > 0' "$TMP/wrong" | wc -l)
echo "true medians 0.1% short: $wrong of 400 tables said yes somewhere"
[ "$wrong" -le 33 ] || fail "$wrong of 400 tables gave a wrong yes (at most 5%: 20, +3 s.e.: 33)"
grep -q 'verdicts on 3 ratios with rounds, a wrong one at most 5% (intervals at 96.67%)' \
	<(awk -f "$SUM" "$TMP/t.1") || fail "the footer: $(awk -f "$SUM" "$TMP/t.1" | tail -n 1)"

# 3.
tables 7 1.067 0.927 10 100 0.02
verdicts 100 >"$TMP/right"
awk '$1 != 3 {bad++} END {exit bad > 0}' "$TMP/right" ||
	fail "medians 10% on the right side: $(sort "$TMP/right" | uniq -c | tr '\n' ';')"

# 4.
tables 3 1.2 0.9 5 1
printf 'flat\tspread\t1.1\t-\t-\t1.2\t-\t-\n' >>"$TMP/t.1"
awk -f "$SUM" "$TMP/t.1" >"$TMP/few.out"
[ "$(grep -c '^row.* too few rounds$' "$TMP/few.out")" = 3 ] || fail "5 rounds: $(cat "$TMP/few.out")"
grep -q '^row1 .* yes  *too few rounds$' "$TMP/few.out" || fail "the median column: $(cat "$TMP/few.out")"
grep -q '^flat .*(one measurement)$' "$TMP/few.out" || fail "a row without rounds: $(cat "$TMP/few.out")"
grep -q '3 with too few rounds (7 would give an interval)' "$TMP/few.out" || fail "$(tail -n 1 "$TMP/few.out")"
echo "ok"
