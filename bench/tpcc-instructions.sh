#!/usr/bin/env bash
# tpcc-instructions.sh: the client's instructions per New-Order of
# `txnbench run tpcc` on one throwaway PostgreSQL, counted by valgrind's
# callgrind (GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1), a figure that does
# not move with the machine's load as CPU time does.
#
#   bench/tpcc-instructions.sh [-i batched] [-a 50] [-b 250] [-r 5] [-x ARGS] BIN...
#
# One warehouse is loaded once (the first binary); then, -r rounds, each
# binary in turn runs a New-Order-only mix (--mix 1,0,0,0,0) of -a and of
# -b transactions (--iterations) on one terminal with --implementation -i
# under callgrind; its instructions per New-Order are the difference over
# b - a (start-up and check cancel out), medians over the rounds. -x more
# arguments for every run of the workload (-x "--telemetry off"). The cluster listens on
# port 5497 (TPCC_PORT). Raw output lands in bench/out/tpcc-instructions-DATE-PID.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

impl=batched a=50 b=250 rounds=5 extra=""
options "i=impl a=a b=b r=rounds x=extra" "[-i implementation] [-a transactions] [-b transactions] [-r rounds] [-x args] BIN..." "$@"
shift $((OPTIND - 1))

new_out tpcc-instructions
chmod 777 "$out"
use_txnbenches "$out" "$@"
find_postgres
port=${TPCC_PORT:-5497}
start_postgres "$out" "$port" fast "-c shared_buffers=256MB"
url="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
say_machine
"${bins[0]}" init tpcc --db "$url" --warehouses 1 >"$out/load.log" 2>&1

# count BIN N: one run of N New-Orders under callgrind; prints its instructions.
count() {
  local f=$out/$(basename "$1")-$2-$RANDOM
  # shellcheck disable=SC2086 # extra is a list of words
  GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$f.cg" \
    "$1" run tpcc --db "$url" --implementation "$impl" --mix 1,0,0,0,0 --wait=false --clients 1 \
    --iterations "$2" --check quick $extra >"$f.log" 2>&1 || { echo "$1 -n $2 failed: see $f.log" >&2; exit 1; }
  sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$f.cg" | tail -1
}

for r in $(seq "$rounds"); do
  for i in "${!bins[@]}"; do
    lo=$(count "${bins[$i]}" "$a") hi=$(count "${bins[$i]}" "$b")
    echo "$i $r $lo $hi $(( (hi - lo) / (b - a) ))" | tee -a "$out/counts.txt"
  done
done

echo
printf '%-40s %14s  %s\n' binary "per New-Order" "(instructions, median of $rounds; rounds)"
for i in "${!bins[@]}"; do
  awk -v i="$i" -v bin="${bins[$i]}" '$1 == i { v[n++] = $5 } END {
    asort(v); m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    s = ""; for (k = 1; k <= n; k++) s = s " " v[k]
    printf "%-40s %14d  (%s)\n", bin, m, substr(s, 2) }' "$out/counts.txt"
done
echo "# raw counts and callgrind files in $out"
