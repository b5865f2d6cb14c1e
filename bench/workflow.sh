#!/usr/bin/env bash
# workflow.sh: the workflow workload's resume path on temp-postgres:
# signal_to_completion (publish commit -> completion commit) with NOTIFY
# wake-ups against polling, and txnbench's own CPU per workflow; then a
# capacity ladder with NOTIFY to find where throughput stops growing.
#
#   bench/workflow.sh [-r REPEATS] [-d DURATION] [-c CLIENTS] [-w WORKERS] [-l LADDER] [BIN]
#
# CLIENTS starters (16) and WORKERS signal workers (8), DURATION (20s),
# REPEATS (3) interleaved pairs (notify poll notify poll ...), polling at
# the default 50ms; medians of workflows per second, signal_to_completion
# p50 and p95, claims per workflow and client CPU per workflow, and the
# ratios poll/notify. LADDER ("1,4,8,16,32,64") runs notify once per
# client count. Each run gets its own throwaway PostgreSQL. With no binary
# it builds the working tree.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

repeats=3 duration=20s clients=16 workers=8 ladder=1,4,8,16,32,64
options "r=repeats d=duration c=clients w=workers l=ladder" "[-r repeats] [-d duration] [-c clients] [-w workers] [-l ladder] [BIN]" "$@"
shift $((OPTIND - 1))

new_out workflow
use_txnbench "$out" "${1:-}"
say_machine
echo "# workflow signal-roundtrip, temp-postgres, $clients clients, $workers signal workers, $duration, $repeats interleaved pairs; ladder $ladder"

run() { # name clients wake
  "$bin" run workflow --db temp-postgres --clients "$2" --signal-workers "$workers" --wake "$3" \
    --duration "$duration" --progress 5s --seed 1 --json "$out/$1.json" >/dev/null 2>"$out/$1.log" ||
    { echo "run $1 failed: see $out/$1.log" >&2; exit 1; }
}
for rep in $(seq 1 "$repeats"); do
  for wake in notify poll; do run "$wake-r$rep" "$clients" "$wake"; done
done
for c in ${ladder//,/ }; do run "ladder-c$c" "$c" notify; done

python3 - "$out" "$repeats" "$ladder" <<'PY'
import json, statistics as st, sys
out, reps, ladder = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
def one(name):
    d = json.load(open(f"{out}/{name}.json"))
    ops = {o["name"]: o for o in d["ops"]}
    if not d["invariants"]["ok"]:
        sys.exit(f"{name}: invariants violated")
    n = ops["cycle"]["count"]
    s2c = ops["signal_to_completion"]
    cpu = (d["client"]["cpu_user_s"] + d["client"]["cpu_sys_s"]) * 1000 / n
    return n / d["measured_s"], s2c["p50_ms"], s2c["p95_ms"], ops["claim"]["count"] / n, cpu
cols = ("workflows/s", "s2c p50 ms", "s2c p95 ms", "claims/wf", "client CPU ms/wf")
print(f"{'':8}" + "".join(f"{c:>18}" for c in cols) + "   (medians of " + str(reps) + ")")
med = {}
for wake in ("notify", "poll"):
    rows = [one(f"{wake}-r{r}") for r in range(1, reps + 1)]
    med[wake] = [st.median(col) for col in zip(*rows)]
    print(f"{wake:8}" + "".join(f"{v:>18.2f}" for v in med[wake]))
print(f"{'poll/notify':8}" + "".join(f"{p / n:>18.2f}" if n else f"{'-':>18}" for p, n in zip(med["poll"], med["notify"])))
print()
print(f"{'clients':>8}" + "".join(f"{c:>18}" for c in cols) + "   (ladder, notify, one run each)")
for c in ladder:
    print(f"{c:>8}" + "".join(f"{v:>18.2f}" for v in one(f"ladder-c{c}")))
PY
echo "# raw results in $out"
