#!/usr/bin/env bash
# anomalies.sh: what recording the history costs the client (issue 41):
# list-append on one throwaway PostgreSQL, the same transactions with
# --record (every attempt and micro-op recorded into the clients' Logs,
# then checked after the run) and with --record=false (neither), runs
# interleaved A B A B so both see the same machine noise. The figure is the
# client's CPU (user + sys, the run's window: the check after it is not in
# it) per committed transaction, medians; the goal is at most 10% over.
#
#   bench/anomalies.sh [-r REPEATS] [-d DURATION] [-c CLIENTS] [-k KEYS] [BIN]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

repeats=3 duration=20s clients=8 keys=64
options "r=repeats d=duration c=clients k=keys" "[-r repeats] [-d duration] [-c clients] [-k keys] [BIN]" "$@"
shift $((OPTIND - 1))

new_out anomalies
chmod 777 "$out"
use_txnbench "$out" "${1:-}"
say_machine
find_postgres
port=${PORT:-25441}
start_postgres "$out" "$port" fast "-c max_connections=200"
db="postgres://postgres@127.0.0.1:$port/postgres"
echo "# $("$bin" version); list-append, $clients clients, --keys $keys, duration $duration, $repeats repeats, interleaved"

for rep in $(seq 1 "$repeats"); do
  for record in true false; do
    f="$out/record-$record-r$rep.json"
    "$bin" run list-append --db "$db" --record="$record" --clients "$clients" --keys "$keys" \
      --duration "$duration" --warmup 2s --progress 1h --telemetry off --seed "$rep" --json "$f" >"$f.log" 2>&1 ||
      { echo "run failed: see $f.log" >&2; exit 1; }
  done
done

PYTHONPATH=bench python3 - "$out" <<'PY'
import sys
from results import medians, runs
rows = {}
for name, r, cpu in runs(sys.argv[1]):
    record = name.split("-")[1]
    txns = sum(o["count"] for o in r["ops"] if o["name"] == "txn")
    rows.setdefault(record, []).append((cpu * 1e6 / txns, txns / r["measured_s"], r["client"]["alloc_per_txn_kb"]))
print(f"{'record':7} {'cpu/txn us':>10} {'txn/s':>8} {'alloc/txn KB':>12}  (medians; each run: cpu/txn us)")
med = {}
for k in ("false", "true"):
    xs = rows[k]
    med[k] = medians(xs, 3)
    runs = " ".join(f"{x[0]:.1f}" for x in xs)
    print(f"{k:7} {med[k][0]:10.1f} {med[k][1]:8.1f} {med[k][2]:12.2f}  ({runs})")
over = med["true"][0] / med["false"][0] - 1
print(f"\nrecording costs {100 * over:+.1f}% client CPU per transaction (goal: at most +10%): {'met' if over <= 0.10 else 'NOT met'}")
PY
echo "# raw results in $out"
