#!/usr/bin/env bash
# engines.sh: txnbench's own cost per transaction on a throwaway PostgreSQL
# and a throwaway MariaDB, for connect-overhead's SELECT 1 on kept
# connections and for train-events: one study per workload varying --db,
# its cells interleaved over the repetitions (medians), so both engines see
# the same machine noise. The client table of each study is printed; the
# studies' files stay in bench/out/engines-DATE-PID.
#
#   bench/engines.sh [-r REPEATS] [-d DURATION]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

repeats=3 duration=10s
options "r=repeats d=duration" "[-r repeats] [-d duration]" "$@"
shift $((OPTIND - 1))

new_out engines
build_txnbench "$out/txnbench"
say_machine
echo "# $("$out/txnbench" version | head -n 1); duration $duration, $repeats repetitions, interleaved"

study() {
  local name=$1
  shift
  "$out/txnbench" study "$@" --vary db=temp-postgres,temp-mariadb --repeat "$repeats" --duration "$duration" \
    --out "$out/$name" >"$out/$name.md" 2>"$out/$name.log" || { echo "$name failed: see $out/$name.log" >&2; exit 1; }
  echo
  echo "## $name: txnbench study $* --vary db=temp-postgres,temp-mariadb --repeat $repeats --duration $duration"
  grep -m1 '^invariants' "$out/$name.md" || true
  sed -n '/^## client (txnbench/,/^## /p' "$out/$name.md" | sed '$d'
}

study select1 connect-overhead --query select1 --conn session --clients 1 --rows 1000
study train-events train-events --clients 8
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
