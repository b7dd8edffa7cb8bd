# A 2-second udp-rr run on loopback: JSON complete, rate > 0, our packet counts within 2% of
# the kernel's Udp counters (machine-wide: nothing else should run meanwhile).
. "$(dirname "$0")/lib.sh"
need jq
"$SB" udp-rr --duration 2 --warmup 0.5 --json >"$TMP/r.json" || fail "run failed"
f=$TMP/r.json
jassert "$f" '.schema == 1 and .workload == "udp-rr" and .partial == false'
jassert "$f" '.transactions_per_s > 0 and .packets_per_s > 0 and .transactions > 0'
jassert "$f" '.config.clients == 2 and .config.window == 100 and .config.size == 100 and .config.peers == 2'
jassert "$f" '.latency_us | (.min > 0 and .min <= .p50 and .p50 <= .p90 and .p90 <= .p99 and .p99 <= .p999 and .p999 <= .p9999 and .p9999 <= .max)'
jassert "$f" '.sides.client.processes == 2 and .sides.server.processes == 1'
jassert "$f" '.sides.client.sys_s > 0 and .sides.server.sys_s > 0 and .sides.client.cpu_us_per_transaction > 0'
# /proc/stat's busy share holds at least the CPU both sides' rusage charged in the window.
n=$(nproc)
jassert "$f" "((.sides.client.user_s + .sides.client.sys_s + .sides.server.user_s + .sides.server.sys_s) / ($n * .duration_s) * 100) as \$ours | (100 - .machine_cpu.idle) >= \$ours - 5" '{machine_cpu, sides: (.sides | map_values({user_s, sys_s})), duration_s}'
jassert "$f" '.kernel.InDatagrams > 0 and .kernel.OutDatagrams > 0'
# Cross-check: every datagram we count in or out, the kernel counts too (within 2% and the
# edges' delays: lib.sh's kok).
jassert "$f" "$KOK"' kall and (.kernel_check.counters | has("InDatagrams") and has("OutDatagrams"))' '.kernel_check'
# Little's law, from two measurements of their own: with clients x window requests always in
# flight, the slot-seconds of the window are its requests' round trips, the unanswered ones'
# at their waits (each held its slot for the timeout): count x mean, since every request of
# the window is in the latencies. 15%: the time between reading an answer and sending the next
# request, and the histogram's buckets (3%).
jassert "$f" '(.latency_us.count == .transactions + .latency_us.unanswered) and (.latency_us.unanswered == .lost)' '{transactions, lost, latency_us: (.latency_us | del(.cdf))}'
jassert "$f" '((.latency_us.count * .latency_us.mean) / 1e6 / (.config.clients * .config.window * .duration_s) - 1 | fabs) < 0.15' '{transactions, duration_s, latency_us: (.latency_us | del(.cdf))}'
# Each transaction is a request and an answer: the kernel's datagrams out are twice ours.
jassert "$f" '(.kernel.OutDatagrams / 2 / .transactions - 1 | fabs) < 0.03' '{transactions, k: .kernel.OutDatagrams}'
# A lost request is a dropped datagram, or an answer that came after the timeout (late), or a
# drop in the timeout before the window that is counted lost inside it.
jassert "$f" '(.kernel.RcvbufErrors + .kernel.SndbufErrors + .kernel.InErrors) as $drops | .lost <= $drops + .late + $drops / .duration_s * .config.timeout / 1e3 + 10' '{lost, late, kernel}'
echo "ok: $(jq -c '{transactions_per_s, kernel_check}' "$f")"
