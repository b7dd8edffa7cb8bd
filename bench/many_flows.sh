#!/bin/bash
# The cost curve of tcp-rr as flows grow (1-byte request and answer, loopback, one client
# process, or as few as the open-file hard limit lets hold the flows, said in the row): at 1,
# 10, 100, 1,000, 10,000 and 100,000 flows, the rate, each side's CPU per
# transaction and each side's user-space memory per flow (VmHWM less the memory before the
# flows, over the flows), all measured in this run. A point the machine refuses (the open-file
# limit, ports) prints the tool's reason and the curve goes on.
#   usage: bench/many_flows.sh [SECONDS] [FLOWS...]
# neper (tcp_rr) is the tool people measure this with; it is not in Debian and this machine has
# no network to build it, so its figures below are the ones a user measured on their
# machine (another session, another machine): a reference, not a ratio of this run.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || { echo "jq is not installed"; exit 77; }
secs=${1:-2}
shift || true
points=${*:-1 10 100 1000 10000 100000}

printf "%8s %12s %10s %10s %12s %12s %10s %10s\n" flows rate/s "cli us/tr" "srv us/tr" \
	"cli B/flow" "srv B/flow" "cli MB" "srv MB"
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] && hard=100000000
for f in $points; do
	# The warm-up covers opening the connections; more flows, more of it.
	warm=$(awk -v f="$f" 'BEGIN {print (f >= 10000 ? 2 : 1)}')
	# Client processes: as few as hold f under the hard limit, f a multiple of them.
	c=$(((f + hard - 201) / (hard - 200)))
	while [ $((f % c)) != 0 ]; do c=$((c + 1)); done
	if ! "$SB" tcp-rr --clients $c --flows $((f / c)) --duration "$secs" --warmup "$warm" --json >"$tmp/p.json" 2>"$tmp/err"; then
		printf "%8s stopped: %s\n" "$f" "$(tail -1 "$tmp/err")"
		continue
	fi
	[ $c -gt 1 ] && echo "         ($c client processes of $((f / c)) flows: one may hold $hard descriptors)"
	jq -r --arg f "$f" '[$f, (.transactions_per_s | floor),
		.sides.client.cpu_us_per_transaction, .sides.server.cpu_us_per_transaction,
		(.sides.client.memory_per_flow | floor), (.sides.server.memory_per_flow | floor),
		(.sides.client.vm_hwm_kb / 1024 * 10 | floor / 10),
		(.sides.server.vm_hwm_kb / 1024 * 10 | floor / 10)] | @tsv' "$tmp/p.json" |
		awk -F'\t' '{printf "%8s %12s %10s %10s %12s %12s %10s %10s\n", $1, $2, $3, $4, $5, $6, $7, $8}'
	[ "$(jq .errors "$tmp/p.json")" = 0 ] || echo "         (errors: $(jq -c .sides.client.errors_by_kind "$tmp/p.json"))"
done
cat <<'REF'

neper tcp_rr for reference (figures measured by a user on another machine and
session, one client process, 1-byte messages; not run here: not packaged, no network to build):
   flows   neper rate/s   neper client RSS
    1000         73,241              12 MB
   10000         68,126             103 MB
REF
