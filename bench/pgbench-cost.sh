#!/usr/bin/env bash
# pgbench-cost.sh: issue 31's goals for `txnbench pgbench` against the real
# pgbench, in one run:
#   1. user-space instructions per transaction at one client under
#      callgrind (bench/instructions.sh, --telemetry off): select-only
#      -M prepared, tpcb-like -M prepared and -M simple; goal <= 1.1x;
#   2. client CPU per transaction and TPS at 8, 32 and 128 clients for
#      select-only and tpcb-like, simple and prepared (bench/pgbench.sh:
#      interleaved, repeated, medians); goal CPU <= 1.0x, TPS >= 1x;
#   3. start-up: instructions and CPU (perf stat's task-clock) of
#      `-c 1 -t 1 -S -M prepared` (bench/instructions.sh -u); goal <= 2x.
# CPU time is only comparable when the machine is quiet: each part prints
# the load it ran under; the instruction counts do not depend on it.
#
#   bench/pgbench-cost.sh [-r REPEATS] [-T SECONDS] [-c "8 32 128"] [-u STARTS] [-p PORT] [BIN]
#
# -p is the CPU part's server port (5497); the instruction part's is PORT - 4.
#
# With no binary it builds the working tree once for both parts.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

repeats=3 secs=10 clientsets="8 32 128" starts=5 port=5497
options "r=repeats T=secs c=clientsets u=starts p=port" "[-r repeats] [-T seconds] [-c clients] [-u starts] [-p port] [BIN]" "$@"
shift $((OPTIND - 1))

bin=${1:-}
if [ -z "$bin" ]; then
  mkdir -p bench/out
  bin=$PWD/bench/out/txnbench-$(date +%Y%m%d-%H%M%S)-$$
  build_txnbench "$bin"
fi

echo "## 1. instructions per transaction (goal: ratio <= 1.1) and 3. start-up (goal: <= 2x)"
bench/instructions.sh -p $((port - 4)) -u "$starts" -x "--telemetry off" "$bin"
echo
echo "## 2. client CPU per transaction (goal: <= 1.0x pgbench)"
bench/pgbench.sh -r "$repeats" -T "$secs" -c "$clientsets" -g 1.0 -p "$port" \
  -k "select-only select-only-prepared tpcb-like tpcb-prepared" "$bin"
