# make bench's summary: one row per `summary` line the bench scripts wrote (tab-separated:
# row, reference, rate ratio, CPU-per-unit ratio or -, least rate ratio or -, most CPU ratio or
# -, each round's rate ratios a,b,c or -, each round's CPU ratios or -).
# Every ratio is sockbench / reference, from this invocation; a median of per-round ratios
# where the rounds are given.
#
# "median" says whether the medians meet their targets. A median of 5 noisy rounds can miss or
# meet a target by chance (here one round of udp-rr scenario B read 0.86 and the next 1.28), so
# "sure" says what the rounds support: an interval for each median, distribution-free (between
# two of the sorted per-round ratios: the median is below the k-th smallest of n with the
# chance that k or more of n coin flips come up heads). "yes" where each interval clears its
# target, "NO" where one lies wholly on the wrong side, "can't tell" where one straddles it,
# with about how many rounds would decide it if they fell as these did (rounds_to_decide).
# A wrong yes or NO takes the true median beyond one end of its interval, so each interval
# is at 1 - 2 x 5% / m for the table's m ratios with rounds (Bonferroni): a wrong verdict
# anywhere in the table at most 5% of the time. Where n rounds are too few for an interval at
# that level, it says how many would give one (make bench ROUNDS=N).
BEGIN {
	FS = "\t"
	fmt = "%-40s %-42s %6s %-13s %7s %6s %-13s %7s  %-6s %s\n"
	printf fmt, "sockbench", "against", "rate", "interval", "target", "CPU/u", "interval",
		"target", "median", "sure"
}

# The chance that a Binomial(n, 1/2) is at most j.
function binom_cdf(n, j,    i, c, s) {
	c = 1
	s = 0
	for (i = 0; i <= j; i++) {
		s += c
		c = c * (n - i) / (i + 1)
	}
	return s / 2 ^ n
}

# The interval for the median of the comma-separated ratios `list` at `level`: "lo hi", or
# "" where the rounds are too few.
function interval(list, level,    v, n, i, j, t, k) {
	n = split(list, v, ",")
	for (i = 2; i <= n; i++) # insertion sort: a few rounds
		for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
			t = v[j]
			v[j] = v[j - 1]
			v[j - 1] = t
		}
	k = 0
	while (k + 1 <= n / 2 && 1 - 2 * binom_cdf(n, k) >= level)
		k++
	return k ? v[k] " " v[n + 1 - k] : ""
}

# Rounds for an interval at `level`: the least n with 1 - 2 / 2^n >= level.
function rounds_for(level,    n) {
	for (n = 1; 1 - 2 / 2 ^ n < level; n++)
		;
	return n
}

# Rounds that would decide a ratio whose interval straddles its target, were they to fall as
# these did: with a share q of them on the target's other side from the rest, the least N at
# which q x N is within the rounds an interval at `level` of N leaves beyond its end (the
# largest t with 1 - 2 P(Binomial(N, 1/2) <= t) >= level); 0 where none to 1,000 would.
function rounds_to_decide(list, target, level,    v, n, i, lo, q, N, t, c, s, allowed) {
	n = split(list, v, ",")
	lo = 0
	for (i = 1; i <= n; i++)
		lo += v[i] + 0 < target + 0
	q = (lo < n - lo ? lo : n - lo) / n
	for (N = n + 1; q < 0.5 && N <= 1000; N++) {
		c = 1
		s = 0
		allowed = -1
		for (t = 0; t < N / 2; t++) {
			s += c
			if (1 - 2 * s / 2 ^ N < level)
				break
			allowed = t
			c = c * (N - t) / (t + 1)
		}
		if (allowed >= 0 && q * N <= allowed)
			return N
	}
	return 0
}

{
	row[NR] = $0
	m += ($7 != "-" && $7 != "") + ($8 != "-" && $8 != "")
}

# One side's word: want >= target (dir 1) or <= target (dir -1).
function judge(list, target, dir, level,    iv, b, t) {
	if (target == "-" || list == "-" || list == "")
		return "-"
	iv = interval(list, level)
	if (iv == "") {
		short = short ? short : rounds_for(level)
		return "few"
	}
	split(iv, b, " ")
	ivtext = sprintf("%.3f-%.3f", b[1], b[2])
	if (dir > 0 ? b[1] >= target : b[2] <= target)
		return "yes"
	if (dir > 0 ? b[2] < target : b[1] > target)
		return "NO"
	# A row is a yes once each ratio is, a NO once one is: the rounds for its yes are the
	# most any ratio heading that way needs, for its NO the fewest one heading there needs.
	t = rounds_to_decide(list, target, level)
	if (heads_no(list, target, dir))
		need_no = t && (!need_no || t < need_no) ? t : need_no
	else
		need_yes = (need_yes < 0 || !t) ? -1 : (t > need_yes ? t : need_yes)
	return "?"
}

# Whether most of the rounds lie on the target's wrong side.
function heads_no(list, target, dir,    v, n, i, bad) {
	n = split(list, v, ",")
	for (i = 1; i <= n; i++)
		bad += dir > 0 ? v[i] + 0 < target + 0 : v[i] + 0 > target + 0
	return bad > n - bad
}

function word(a, b) {
	if (a == "NO" || b == "NO")
		return "NO"
	if (a == "few" || b == "few")
		return "too few rounds"
	if (a == "?" || b == "?")
		return "can't tell"
	if (a == "-" && b == "-")
		return "(one measurement)"
	return "yes"
}

END {
	level = m ? 1 - 0.1 / m : 0.9
	for (r = 1; r <= NR; r++) {
		split(row[r], f, "\t")
		ok = (f[5] == "-" || f[3] >= f[5]) && (f[4] == "-" || f[6] == "-" || f[4] <= f[6])
		missed += !ok
		ivtext = ""
		need_yes = need_no = 0
		a = judge(f[7], f[5], 1, level)
		riv = ivtext
		ivtext = ""
		b = judge(f[8], f[6], -1, level)
		w = word(a, b)
		sure[w]++
		need = need_no ? need_no : need_yes
		if (w == "can't tell")
			w = w (need > 0 ? sprintf(" (~%d rounds)", need) : " (split evenly)")
		printf fmt, f[1], f[2], f[3], riv, (f[5] == "-" ? "" : ">= " f[5]), f[4], ivtext,
			(f[6] == "-" ? "" : "<= " f[6]), ok ? "yes" : "NO", w
	}
	if (NR == 0) {
		print "(no rows: every bench was skipped)"
		exit
	}
	printf "%d of %d rows' medians meet their targets\n", NR - missed, NR
	if (m == 0)
		exit
	printf "verdicts on %d ratios with rounds, a wrong one at most 5%% (intervals at %.2f%%): ",
		m, level * 100
	printf "%d sure to meet, %d sure to miss, %d can't tell", sure["yes"], sure["NO"],
		sure["can't tell"]
	if (short)
		printf ", %d with too few rounds (%d would give an interval)",
			sure["too few rounds"], short
	printf "\n"
}
