#!/usr/bin/env bash
# history.sh: the cost of issue 41's history checking, without a database:
# the record path of one transaction (ns/op, allocs/op: the goal is 0), and
# the checker on simulated snapshot-isolation histories of 100,000 and
# 1,000,000 transactions, list-append and rw-register, real-time edges on
# (wall time and its own CPU, the history's size, what the check allocated, and the process's
# peak memory; the goal is under a minute on 2 cores at 1,000,000, memory
# linear in the history).
#
#   bench/history.sh [-r REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

repeats=3
options "r=repeats" "[-r repeats]" "$@"
shift $((OPTIND - 1))

new_out history
go test -c -o "$out/history.test" ./internal/history
echo "# built from $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- internal/history || echo ' plus uncommitted changes')"
say_machine

echo "## record path, $repeats runs"
"$out/history.test" -test.run XXX -test.bench 'Record$' -test.benchtime 2s -test.count "$repeats" | tee "$out/record.txt" | grep '^Benchmark'

for n in 100000 1000000; do
  for model in list-append rw-register; do
    echo "## check $model, $n transactions, $repeats runs"
    for rep in $(seq 1 "$repeats"); do
      /usr/bin/time -f "peak RSS %M kB, %e s wall, %U s user" \
        "$out/history.test" -test.run XXX -test.bench "Check/$model/$n\$" -test.benchtime 1x 2>&1 |
        tee -a "$out/check-$model-$n.txt" | grep -E '^Benchmark|peak RSS'
    done
  done
done
