# explore udp-rr (connected) within a 40 s budget: completes, ranks at least 6 strategies with speedups,
# intervals at their Holm levels and verdicts, says its seed and order, and says why any
# strategy was not tried; says where the search went and how the budget was spent (a phase
# with no room says what it needed); bad flags exit 2.
. "$(dirname "$0")/lib.sh"
need jq
t0=$(date +%s.%N)
"$SB" explore udp-rr --connected --budget 40 --runs 4 --json >"$TMP/x.json" 2>"$TMP/err" || fail "explore failed: $(cat "$TMP/err")"
took=$(echo "$(date +%s.%N) $t0" | awk '{ print $1 - $2 }')
f=$TMP/x.json
# The budget holds at this machine's own cost of a run: the first round runs at the planned
# overhead (0.25 s a run), the later ones are refitted to what the runs measured, so at most the
# first round's misplanning (configurations x the overhead beyond plan) and one run's length
# (the rounds refit between runs) go over. A window at its floor (0.15 s) cannot shrink to
# absorb a run that cost more than planned, so there every run's excess counts (CI under ASan
# beside another test: 0.273 s a run at the floor, 1.05 s over 30), and so does what a later
# phase's runs cost beyond the mean of all (the search and the final start when the mean says
# they fit, and then run: a CI machine loaded late made 1.25 s over 40 of 8 final runs at a mean
# of 0.14 s a run). Plus half a second for the process's own start and exit, which no run's
# clock sees (a sanitizer build's are the slowest).
jassert "$f" "(.overhead_s_per_run - 0.25 | if . < 0 then 0 else . end) as \$over | (.run_seconds + 0.15 + .overhead_s_per_run) as \$cost | (if .run_seconds > 0.15 then 0 else [.budget.phases[1:][] | .seconds - .runs * \$cost | if . < 0 then 0 else . end] | add // 0 end) as \$late | (if .run_seconds > 0.15 then (.strategies | length) + (.changes_workload | length) + 1 else ([.budget.phases[].runs] | add) end) as \$n | $took <= 40 + \$n * \$over + \$late + .run_seconds_planned + 0.15 + .overhead_s_per_run + 0.5 and (.took_s - $took | fabs) <= 0.5 and .run_seconds <= .run_seconds_planned and .run_seconds >= 0.15" '{took_s, run_seconds, run_seconds_planned, overhead_s_per_run, phases: [.budget.phases[] | [.phase, .runs, .seconds]]}'
jassert "$f" '.kind == "explore" and .workload == "udp-rr" and (.strategies | length) >= 6'
jassert "$f" '.strategies | all(has("name") and has("flags") and has("transactions_per_s") and has("speedup") and has("ci_low") and has("ci_high") and has("verdict"))'
# The speedup is the ratio of the geometric means of the runs themselves (every round whole).
jassert "$f" '(.baseline.samples | map(log) | add / length) as $b | (.baseline.left_out | length) as $bl | [.strategies[] | select((.left_out | length) == 0 and $bl == 0 and (has("dropped_after") | not))] | all(((.samples | map(log) | add / length) - $b | exp) / .speedup - 1 | fabs < 1e-6)' '[.strategies[] | {name, speedup, samples}]'
jassert "$f" '.strategies | all(.transactions_per_s > 0)'
jassert "$f" '.strategies | all(.sides.client.cpu_us_per_transaction > 0 and .sides.server.cpu_us_per_transaction > 0)'
jassert "$f" '[.strategies[].speedup] as $s | $s == ($s | sort | reverse)'
jassert "$f" '.strategies | all(.verdict == "faster" or .verdict == "slower" or .verdict == "no real difference" or .verdict == "no verdict")'
# Holm: the levels are 1 - 0.025/k for k = 1..m (the screen's half of the 5%), one each, and
# "significant" follows them.
jassert "$f" '[.strategies[] | select(.pairs >= 2) | .ci_level] | sort | . as $l | ($l | length) as $m | [range($m)] | all(. as $i | (($l[$i] - (1 - 0.025 / ($i + 1))) | fabs) < 1e-9)' '[.strategies[] | {name, ci_level, p_value}]'
jassert "$f" '.strategies | all((.verdict == "faster" or .verdict == "slower") == (.significant and ((.speedup - 1) | fabs) >= 0.02))'
jassert "$f" '(.seed | test("^[0-9]+$")) and (.order | split(" ") | length) == 4 and .family_confidence == 0.975 and ((.error_budget.screen + .error_budget.search + (1 - .error_budget.final_level) - .error_budget.total) | fabs) < 1e-12'
# The search: its path starts at step 0 (the screen's best found faster, or the baseline),
# each step after it kept: its confirmation's verdict at its share (0.0125 / 2^k) "faster"
# (confirmed), or its gain 2%+ with the interval at keep_level (0.6) above 1 (kept, not
# confirmed, and said so); the budget names the screen first, and a phase skipped says the
# seconds it needed.
jassert "$f" '.error_budget.keep_level as $kl | .search.path[0].step == 0 and (.search.path[1:] | all(((.gain.ci_level - (1 - 0.0125 / pow(2; .step))) | fabs) < 1e-9)) and ([.search.steps[] | select(.kept)] | length) == (.search.path | length) - 1 and (.search.steps | all(if .kept then (.confirmed and .confirmation.verdict == "faster") or (.confirmed == false and .keep_evidence.ci_low > 1 and .keep_evidence.speedup >= 1.02 and .keep_evidence.ci_level == $kl) else .confirmed == false end))' '.search'
# Where it started: the screen's "faster" (confirmed), else its best-looking strategy with a 2%
# gain whose keep_level interval is above 1 (unconfirmed), else the baseline.
jassert "$f" '.error_budget.keep_level as $kl | .search as $s | ($s.path[0].gain) as $g | if $s.start_confirmed == null then $g == null and ([.strategies[] | select(.verdict == "faster")] | length) == 0 elif $s.start_confirmed then $g.verdict == "faster" else $g.verdict != "faster" and ([.strategies[] | select(.verdict == "faster")] | length) == 0 and $s.start_keep_evidence.ci_low > 1 and $s.start_keep_evidence.speedup >= 1.02 and $s.start_keep_evidence.ci_level == $kl end' '.search | {start_confirmed, start_keep_evidence, p0: .path[0]}'
# A runner-up's step (runner_up_of: k) follows step k, whose leader was not kept, with no
# selection of its own; steps are numbered 1, 2, ... in order.
jassert "$f" '.search.steps as $s | $s | to_entries | all(.value.step == .key + 1 and (.value.runner_up_of == null or (.value.runner_up_of == .key and ($s[.key - 1].kept | not) and $s[.key - 1].runner_up_of == null and .value.selection_rounds == 0)))' '.search.steps'
jassert "$f" '.budget.phases[0].phase == "screen" and (.budget.phases | all(if .skipped then .needs_s > 0 and .runs == 0 else .runs > 0 end))' '.budget'
# A strategy the screen found slower is never a candidate; the search says why it stopped.
jassert "$f" '[.strategies[] | select(.verdict == "slower") | .flags] as $slow | (.search.stopped | length) > 0 and ([.search.steps[].candidates[].flags] | all(. as $c | $slow | any(. == $c) | not))' '{stopped: .search.stopped, s: [.strategies[] | {flags, verdict}]}'
# Each round runs every configuration once; and not always the baseline first.
jassert "$f" '.order | split(" ") | map(split(",") | map(tonumber) | sort) | all(. == [range(length)])'
# Batching cuts the syscalls per transaction of both sides, whatever the noise does to rates.
jassert "$f" '(.strategies[] | select(.flags == "--batch 32") | .sides.server.syscalls_per_transaction) < .baseline.sides.server.syscalls_per_transaction / 4'
# A strategy already in the baseline (--connected) is not tried, and says why.
jassert "$f" '.not_applicable | any(.flags == "--connected" and .reason == "already in the baseline")'
# Unsteady (4 rounds or more): each configuration's sd_log is the spread of its own runs' log
# rates, the others' is pooled from the rest, and the names said unsteady are those flagged, at
# a p-value under 1% shared by the configurations tested (fewer rounds, none is tested:
# test_explore_unsteady).
all='[.baseline, .strategies[], .changes_workload[]]'
sdl='def sdl: (map(log) | (add / length) as $m | map(. - $m | . * .) | add / (length - 1) | sqrt);'
jassert "$f" "$sdl $all | map(select(.sd_log != null)) | (map(.sd_log * .sd_log * (.runs - 1)) | add) as \$ss | (map(.runs - 1) | add) as \$df | length >= 3 and all(.runs >= 4 and ((.samples | sdl) - .sd_log | fabs) < 1e-9 and (((\$ss - .sd_log * .sd_log * (.runs - 1)) / (\$df - .runs + 1) | sqrt) - .others_sd_log | fabs) < 1e-9)" "$all | map({name, samples, sd_log, others_sd_log})"
jassert "$f" "($all | map(select(.sd_log != null)) | length) as \$m | .unsteady.configurations == \$m and .unsteady.alpha == 0.01 and ($all | map(select(.unsteady == true) | .name) | sort) == (.unsteady.names | sort) and ($all | map(select(.sd_log != null)) | all(.unsteady == (.unsteady_p_value < 0.01 / \$m)))" '.unsteady'
expect_usage "--budget 1 is out of range" explore udp-rr --budget 1
expect_usage "unknown workload 'nope'" explore nope
expect_usage "too short" explore udp-rr --budget 5 --runs 5
# Its hint is the least whole budget that fits: one second less is refused, the hint itself starts
# (timeout ends it past its checks: exit 124, not 2).
least=$("$SB" explore udp-rr --budget 5 --runs 3 2>&1 | grep -oE "give at least [0-9]+" | grep -oE "[0-9]+$")
[ -n "$least" ] || fail "no 'give at least N' in the too-short message"
expect_usage "give at least $least seconds" explore udp-rr --budget $((least - 1)) --runs 3
timeout 1 "$SB" explore udp-rr --budget "$least" --runs 3 >/dev/null 2>"$TMP/least.err"
[ $? -eq 124 ] || fail "--budget $least (the hint) did not start: $(cat "$TMP/least.err")"
# --trace costs each run its programs' loading and letting go (some 0.05 s here, 0.2 planned):
# planned for, so the least budget for 3 rounds without it (the hint above) is refused with it.
expect_usage "too short" explore udp-rr --trace --budget "$least" --runs 3
echo "ok ($took s; $(jq -r '"windows \(.run_seconds_planned * 100 | round / 100) s planned, \(.run_seconds * 100 | round / 100) s last, \(.overhead_s_per_run * 100 | round / 100) s overhead a run"' "$TMP/x.json"))"
