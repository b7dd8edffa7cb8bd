#!/bin/bash
# explore on scenario B's defaults (udp-rr: 2 clients x 100 outstanding, 100-byte packets,
# unconnected sockets), printing the ranked table. The brief expects batching to beat the
# per-packet baseline by 2x or more in packets/s on a 2-core machine; the table's syscalls and
# CPU per transaction show how much of the cost batching can remove.
#   usage: bench/explore_scenario_b.sh [BUDGET_SECONDS]
set -eu
cd "$(dirname "$0")/.."
SB=${SOCKBENCH:-build/sockbench}
[ -x "$SB" ] || make -s
"$SB" explore udp-rr --budget "${1:-90}"
