# A 2-second udp-rr run on loopback: JSON complete, rate > 0, our packet counts within 2% of
# the kernel's Udp counters (machine-wide: nothing else should run meanwhile).
. "$(dirname "$0")/lib.sh"
need jq
"$SB" udp-rr --duration 2 --warmup 0.5 --json >"$TMP/r.json" || fail "run failed"
f=$TMP/r.json
jassert "$f" '.schema == 1 and .workload == "udp-rr" and .partial == false'
jassert "$f" '.transactions_per_s > 0 and .packets_per_s > 0 and .transactions > 0'
jassert "$f" '.config.clients == 2 and .config.window == 100 and .config.size == 100 and .config.peers == 2'
jassert "$f" '.latency_us | (.min > 0 and .min <= .p50 and .p50 <= .p90 and .p90 <= .p99 and .p99 <= .p999 and .p999 <= .max)'
jassert "$f" '.sides.client.processes == 2 and .sides.server.processes == 1'
jassert "$f" '.sides.client.sys_s > 0 and .sides.server.sys_s > 0 and .sides.client.cpu_us_per_transaction > 0'
jassert "$f" '.machine_cpu | (.user + .system + .softirq + .irq + .idle + .steal) > 99'
jassert "$f" '.kernel.InDatagrams > 0 and .kernel.OutDatagrams > 0'
# Cross-check: every datagram we count in or out, the kernel counts too (within 2%).
jassert "$f" '.kernel_check.counters | (.InDatagrams.diff_pct | fabs) < 2 and (.OutDatagrams.diff_pct | fabs) < 2' '.kernel_check'
# Our own arithmetic holds together.
jassert "$f" '((.transactions / .duration_s) - .transactions_per_s | fabs) < 1'
jassert "$f" '(.lost <= .kernel.RcvbufErrors + .kernel.SndbufErrors + .kernel.InErrors + 10)' '{lost,kernel}'
echo "ok: $(jq -c '{transactions_per_s, kernel_check}' "$f")"
