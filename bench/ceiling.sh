#!/usr/bin/env bash
# ceiling.sh: how much load one txnbench process can make, to size a split
# run (txnbench run --shard, docs/scale-out.md). For SELECT 1 (connect-overhead
# --query select1, no delay) and train-events (default pacing, and with no
# delay nor think time), on a throwaway PostgreSQL: throughput, client CPU per
# transaction and per cycle, the share of a core txnbench used, and from
# them the client-side ceiling: transactions per second one client core can
# drive, and how many clients at that pacing one core drives (meaningful
# where the server keeps up with the clients: the fewer clients).
#
#   bench/ceiling.sh [-r REPEATS] [-d DURATION] [-c "8 64"] [BIN]
#
# The server shares the machine, so throughput here is the server's limit;
# the ceiling comes from client CPU per transaction, which the server's load
# hardly changes.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

repeats=1 duration=15s clients="8 64"
options "r=repeats d=duration c=clients" "[-r repeats] [-d duration] [-c clients] [BIN]" "$@"
shift $((OPTIND - 1))

new_out ceiling
use_txnbench "$out" "${1:-}"

declare -A cases=(
  [select1]="connect-overhead --query select1 --delay 0s --rows 1000"
  [trains-paced]="train-events --rows 2000"
  [trains-flat]="train-events --rows 2000 --delay 0s --think-min 0s --think-max 0s"
)
say_machine
echo "# $($bin version); duration $duration, $repeats repeats, telemetry off"
for rep in $(seq 1 "$repeats"); do
  for name in select1 trains-paced trains-flat; do
    for c in $clients; do
      f="$out/$name-c$c-r$rep.json"
      # shellcheck disable=SC2086
      "$bin" run ${cases[$name]} --db temp-postgres --clients "$c" --duration "$duration" --warmup 3s \
        --progress 1h --telemetry off --seed "$rep" --json "$f" >/dev/null 2>"$f.log" ||
        { echo "run failed: see $f.log" >&2; exit 1; }
    done
  done
done

PYTHONPATH=bench python3 - "$out" <<'PY'
import sys
from results import medians, runs
rows = {}
for run, r, cpu in runs(sys.argv[1]):
    name, c, _ = run.rsplit("-", 2)
    ops = {o["name"]: o for o in r["ops"]}
    cycles = ops["cycle"]["count"]
    txns = sum(o["count"] for o in r["ops"] if o.get("kind", "txn") == "txn")
    s = r["measured_s"]
    rows.setdefault((name, int(c[1:])), []).append(
        (txns / s, cpu * 1e6 / txns, cpu * 1e6 / cycles, 100 * cpu / s, int(c[1:]) * s / cpu, 1e6 / (cpu * 1e6 / txns)))
print(f"{'workload':13} {'clients':>7} {'txn/s':>8} {'cpu/txn us':>10} {'cpu/cycle us':>12} {'core %':>6} {'clients/core':>12} {'txn/s/core':>10}  (medians)")
for (name, c), xs in sorted(rows.items()):
    m = medians(xs, 6)
    print(f"{name:13} {c:7} {m[0]:8.0f} {m[1]:10.1f} {m[2]:12.1f} {m[3]:6.1f} {m[4]:12.0f} {m[5]:10.0f}")
PY
echo "# raw results in $out"
