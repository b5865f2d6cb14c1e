#!/usr/bin/env bash
# spread.sh: how much the numbers of identical runs move from one run to the
# next on this machine, per metric family (throughput, mean/p50, server time, p95, p99,
# and database counters per transaction when the results carry telemetry),
# and how often txnbench diff's default thresholds would call two identical
# runs a regression. It is what those defaults are set from
# (internal/diff.DefaultThresholds, docs/BENCHMARKS.md "Run-to-run spread").
#
#   bench/spread.sh [-r REPEATS] [-d DURATION] [-s "SCENARIOS"] [-n NICE] [BIN]
#   bench/spread.sh -a DIR [BIN]      analyse the runs of an earlier DIR again
#
# Scenarios (default all three), each run REPEATS times (8), interleaved
# (A B C A B C ...), DURATION (12s) after a 2 s warm-up, new seed each time:
#   te-sqlite   train-events on SQLite, 4 clients, short delays and think
#               times (about 45 cycles/s: 12 s give p99 its 500 samples)
#   te-pg       the same on temp-postgres (a fresh cluster per run)
#   select1-pg  connect-overhead --query select1 on temp-postgres, 8 clients
# -n NICE runs the benchmark (txnbench and the servers it starts) at that
# niceness, e.g. -n -10 as root: on a machine shared with other work this
# approximates the dedicated runner a CI gate should use. The 1-minute load
# average before each run is recorded and its range printed.
#
# Analysis, all with the binary's own "txnbench diff" (so the metrics are
# exactly the ones diff decides on):
#   1. every ordered pair of runs of a scenario with --threshold 1000000
#      --json: per family the median, 90th percentile and largest |change|
#      over all pairs and metrics, plus the absolute change of
#      sub-millisecond latencies (the floor's case);
#   2. every ordered pair with the default thresholds: how many exit 4 (a
#      false alarm: the runs are identical);
#   3. every split of the runs into two halves, each half as a one-cell
#      study (medians, the cell's own spread widening the thresholds, as
#      "txnbench study --repeat" gives): how many comparisons exit 4.
# With no binary it builds the working tree.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

repeats=8 duration=12s scenarios="te-sqlite te-pg select1-pg" niceness=0 again=""
options "r=repeats d=duration s=scenarios n=niceness a=again" "[-r repeats] [-d duration] [-s \"te-sqlite te-pg select1-pg\"] [-n nice] [-a dir] [BIN]" "$@"
shift $((OPTIND - 1))

out=${again:-bench/out/spread-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
bin=${1:-}
if [ -z "$bin" ]; then
  go build -o "$out/txnbench.new" ./cmd/txnbench && mv "$out/txnbench.new" "$out/txnbench"
  bin=$out/txnbench
  echo "# built from $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!bench' || echo ' plus uncommitted changes')"
fi

if [ -z "$again" ]; then
  te=(run train-events --clients 4 --rows 2000 --delay 10ms --think-min 1ms --think-max 5ms)
  common=(--duration "$duration" --warmup 2s --progress 1h)
  say_machine
  echo "# $("$bin" version); $repeats repeats of $duration (+2s warm-up) per scenario, interleaved, niceness $niceness: $scenarios"
  for rep in $(seq 1 "$repeats"); do
    for s in $scenarios; do
      f="$out/$s-r$rep.json"
      case $s in
        te-sqlite) args=("${te[@]}") ;;
        te-pg) args=("${te[@]}" --db temp-postgres) ;;
        select1-pg) args=(run connect-overhead --query select1 --rows 0 --clients 8 --db temp-postgres) ;;
        *) echo "unknown scenario $s: choose te-sqlite, te-pg, select1-pg" >&2; exit 2 ;;
      esac
      cut -d' ' -f1 /proc/loadavg >>"$out/loads"
      nice -n "$niceness" "$bin" "${args[@]}" "${common[@]}" --json "$f" >/dev/null 2>"$f.log" || { echo "run failed: see $f.log" >&2; exit 1; }
    done
  done
  echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg); 1-minute load before the runs: $(sort -n "$out/loads" | sed -n '1p;$p' | paste -sd- -)"
else
  scenarios=$(cd "$out" && ls ./*-r1.json | sed 's#^\./##; s#-r1\.json$##' | xargs)
  repeats=$(cd "$out" && ls "${scenarios%% *}"-r[0-9]*.json | wc -l)
  echo "# analysing $out again with $("$bin" version) ($repeats runs of $scenarios)"
fi

for s in $scenarios; do
  alarms=0 pairs=0
  for i in $(seq 1 "$repeats"); do
    for j in $(seq 1 "$repeats"); do
      [ "$i" = "$j" ] && continue
      code=0
      "$bin" diff --threshold 1000000 --json "$out/$s-pair-$i-$j.decisions" "$out/$s-r$i.json" "$out/$s-r$j.json" >/dev/null 2>>"$out/diff.log" || code=$?
      [ "$code" = 0 ] || [ "$code" = 4 ] || { echo "diff failed (exit $code): see $out/diff.log" >&2; exit 1; }
      code=0
      "$bin" diff "$out/$s-r$i.json" "$out/$s-r$j.json" >/dev/null 2>>"$out/diff.log" || code=$?
      [ "$code" = 0 ] || [ "$code" = 4 ] || { echo "diff failed (exit $code): see $out/diff.log" >&2; exit 1; }
      pairs=$((pairs + 1))
      [ "$code" = 4 ] && alarms=$((alarms + 1))
    done
  done
  echo "$s $alarms $pairs" >>"$out/alarms.$$"
done

python3 - "$out" "$bin" "$out/alarms.$$" $scenarios <<'PY'
import glob, itertools, json, os, statistics, subprocess, sys, tempfile
out, binary, alarmfile, scenarios = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))] if xs else float("nan")
fams = ["throughput", "mean", "server", "p95", "p99", "errors", "database"]
print("\n| scenario | family | metrics x pairs | median abs change | p90 | max |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for s in scenarios:
    by, sub = {}, []
    for f in glob.glob(f"{out}/{s}-pair-*.decisions"):
        for sc in json.load(open(f))["scenarios"]:
            for d in sc.get("decisions", []):
                if d.get("change_pct") is not None:
                    by.setdefault(d["family"], []).append(abs(d["change_pct"]))
                if d["unit"] == "ms" and max(d["base"], d["new"]) < 1:
                    sub.append(abs(d["new"] - d["base"]))
    for fam in fams:
        xs = by.get(fam)
        if xs:
            print(f"| {s} | {fam} | {len(xs)} | {q(xs, .5):.1f}% | {q(xs, .9):.1f}% | {max(xs):.1f}% |")
    if sub:
        print(f"| {s} | sub-ms latency, absolute | {len(sub)} | {q(sub, .5):.3f} ms | {q(sub, .9):.3f} ms | {max(sub):.3f} ms |")

# Halves: medians of half the runs against the other half, as studies.
halves = {}
tmp = tempfile.mkdtemp()
for s in scenarios:
    runs = sorted(glob.glob(f"{out}/{s}-r[0-9]*.json"), key=lambda p: int(p.rsplit("-r", 1)[1][:-5]))
    n, alarms, total = len(runs), 0, 0
    for ga in itertools.combinations(range(n), n // 2):
        gb = tuple(i for i in range(n) if i not in ga)
        if len(ga) == len(gb) and ga > gb:
            continue
        dirs = []
        for g in (ga, gb):
            rs = [json.load(open(runs[i])) for i in g]
            ops = []
            for o in rs[0]["ops"]:
                means = [next(x["mean_ms"] for x in r["ops"] if x["name"] == o["name"]) for r in rs]
                m = statistics.median(means)
                ops.append({"name": o["name"], "spread_pct": 100 * (max(means) - min(means)) / m if m else 0})
            d = tempfile.mkdtemp(dir=tmp)
            json.dump({"format": "txnbench-study/1", "workload": rs[0]["workload"], "repeat": len(g),
                       "cells": [{"label": "half", "results": [os.path.abspath(runs[i]) for i in g], "ops": ops}]},
                      open(d + "/study.json", "w"))
            dirs.append(d)
        for a, b in ((dirs[0], dirs[1]), (dirs[1], dirs[0])):
            code = subprocess.run([binary, "diff", a, b], capture_output=True).returncode
            if code not in (0, 4):
                sys.exit(f"diff of halves exited {code}")
            total, alarms = total + 1, alarms + (code == 4)
    halves[s] = (alarms, total, f"{n // 2}" if n % 2 == 0 else f"{n // 2} and {n - n // 2}")
print("\nfalse alarms of the default thresholds (txnbench diff exit 4 on identical setups):")
for line in open(alarmfile):
    s, a, p = line.split()
    h = halves[s]
    print(f"  {s}: single runs {a}/{p} ordered pairs; medians of {h[2]} runs (one-cell studies) {h[0]}/{h[1]}")
PY
rm -f "$out/alarms.$$"
echo "# raw results and decisions in $out"
