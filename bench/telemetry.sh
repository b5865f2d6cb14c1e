#!/usr/bin/env bash
# telemetry.sh: what watching the database costs a run: throughput and
# txnbench's CPU per transaction with --telemetry on (wait events sampled
# every 100 ms, pg_stat_database per interval, pg_stat_statements at both
# ends) against --telemetry off, on one throwaway PostgreSQL per run.
#
#   bench/telemetry.sh [-r REPEATS] [-d DURATION] [-c CLIENTS] [-s SAMPLE] [BIN]
#
# connect-overhead --query point (short transactions, the workload where a
# sampler's cost would show most), CLIENTS clients (8), DURATION (20s),
# REPEATS (3) interleaved pairs (off on off on ...); medians of
# transactions per second and of client CPU per transaction, and the ratios
# on/off. With no binary it builds the working tree.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

repeats=3 duration=20s clients=8 sample=100ms
options "r=repeats d=duration c=clients s=sample" "[-r repeats] [-d duration] [-c clients] [-s sample] [BIN]" "$@"
shift $((OPTIND - 1))

new_out telemetry
use_txnbench "$out" "${1:-}"
say_machine
echo "# connect-overhead --query point, $clients clients, $duration, temp-postgres, telemetry sample $sample, $repeats interleaved pairs"

for rep in $(seq 1 "$repeats"); do
  for mode in off on; do
    f="$out/$mode-r$rep.json"
    "$bin" run connect-overhead --query point --rows 2000 --db temp-postgres --clients "$clients" \
      --duration "$duration" --progress 5s --seed "$rep" --telemetry "$mode" --telemetry-sample "$sample" \
      --json "$f" >/dev/null 2>"$f.log" || { echo "run failed: see $f.log" >&2; exit 1; }
  done
done

python3 - "$out" "$repeats" <<'PY'
import json, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
def stats(mode):
    tps, cpu = [], []
    for r in range(1, reps + 1):
        d = json.load(open(f"{out}/{mode}-r{r}.json"))
        n = sum(o["count"] for o in d["ops"] if not o.get("kind"))
        tps.append(n / d["measured_s"])
        cpu.append((d["client"]["cpu_user_s"] + d["client"]["cpu_sys_s"]) * 1e6 / n)
        if mode == "on" and d.get("telemetry") is None:
            sys.exit(f"{mode}-r{r}: no telemetry with --telemetry on")
        if mode == "off" and d.get("telemetry") is not None:
            sys.exit(f"{mode}-r{r}: telemetry with --telemetry off")
    return tps, cpu
off, on = stats("off"), stats("on")
print(f"{'':10} {'txn/s (each run)':>40} {'median':>10} {'client CPU us/txn (each run)':>40} {'median':>8}")
for name, (tps, cpu) in (("off", off), ("on", on)):
    print(f"{name:10} {' '.join(f'{v:.0f}' for v in tps):>40} {statistics.median(tps):>10.0f} {' '.join(f'{v:.1f}' for v in cpu):>40} {statistics.median(cpu):>8.1f}")
print(f"ratio on/off: throughput {statistics.median(on[0]) / statistics.median(off[0]):.3f}, client CPU per transaction {statistics.median(on[1]) / statistics.median(off[1]):.3f}")
PY
echo "# raw results in $out"
