#!/usr/bin/env bash
# client-cost.sh: what txnbench itself costs while it drives train-events on a
# throwaway PostgreSQL: client CPU per cycle and per transaction, and peak
# memory, at 16 and 128 clients; plus the payload generator's cost per event.
#
#   bench/client-cost.sh [-r REPEATS] [-d DURATION] [-c "16 128"] [-v "jsonb text"] [BIN_A [BIN_B]]
#
# With no binary it builds the working tree. With two binaries (e.g. before
# and after a change) runs are interleaved A B A B ... and the ratio of the
# medians B/A is printed, so both see the same machine noise.
# Targets (issue 2): <= 0.3 ms client CPU per cycle, < 100 MB peak at 128
# clients, <= 3 us per generated event.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

repeats=3 duration=30s clients="16" variants="jsonb manual text"
options "r=repeats d=duration c=clients v=variants" "[-r repeats] [-d duration] [-c clients] [-v variants] [BIN_A [BIN_B]]" "$@"
shift $((OPTIND - 1))

new_out client-cost
use_txnbenches "$out" "$@"

say_machine
echo "# $(${bins[0]} version); duration $duration, $repeats repeats, interleaved"
for rep in $(seq 1 "$repeats"); do
  for v in $variants; do
    for c in $clients; do
      for i in "${!bins[@]}"; do
        f="$out/b$i-$v-c$c-r$rep.json"
        "${bins[$i]}" run train-events --db temp-postgres --variant "$v" --clients "$c" \
          --duration "$duration" --warmup 5s --progress 1h --seed "$rep" --json "$f" >/dev/null 2>"$f.log" ||
          { echo "run failed: see $f.log" >&2; exit 1; }
      done
    done
  done
done

go test -run XXX -bench Payload -benchtime 2s -count 3 ./internal/workload/trainevents/ >"$out/payload.txt"
event_bytes=$(awk '/B\/event/ { for (i = 1; i < NF; i++) if ($(i + 1) == "B/event") print $i }' "$out/payload.txt" | sort -g | sed -n 2p)

PYTHONPATH=bench python3 - "$out" "${#bins[@]}" "$event_bytes" <<'PY'
import sys
from results import medians, runs
out, nbins, event_bytes = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rows = {}
for name, r, cpu in runs(out):
    b, v, c, _ = name.split("-")
    cycles = next(o["count"] for o in r["ops"] if o["name"] == "cycle")
    txns = sum(o["count"] for o in r["ops"] if o["name"] in ("add", "process", "archive"))
    lost = not r["invariants"]["ok"]
    s = r["settings"]
    passes = 3 if s["payload"] == "text" else 1
    payload_kb = (s["min_batch"] + s["max_batch"]) / 2 * event_bytes * passes / 3 / 1024
    rows.setdefault((v, int(c[1:]), b), []).append(
        (cpu * 1e3 / cycles, cpu * 1e3 / txns, r["client"]["alloc_per_txn_kb"], payload_kb,
         r["client"]["max_rss_mb"], cycles / r["measured_s"], lost))
print(f"{'variant':8} {'clients':>7} {'bin':>3} {'cpu/cycle ms':>12} {'cpu/txn ms':>10} {'alloc/txn KB':>12} {'payload/txn KB':>14} {'peak MB':>8} {'cycles/s':>9}  (medians)")
med = {}
for (v, c, b), xs in sorted(rows.items()):
    m = medians(xs, 6)
    med[(v, c, b)] = m
    flag = "  INVARIANTS VIOLATED" if any(x[6] for x in xs) else ""
    print(f"{v:8} {c:7} {b[1:]:>3} {m[0]:12.3f} {m[1]:10.3f} {m[2]:12.1f} {m[3]:14.1f} {m[4]:8.0f} {m[5]:9.1f}{flag}")
if nbins == 2:
    print("\nratio B/A of medians (below 1: B costs less)")
    for (v, c, b), m in sorted(med.items()):
        if b == "b1":
            a = med[(v, c, "b0")]
            print(f"{v:8} {c:7}  cpu/cycle {m[0]/a[0]:.2f}  alloc/txn {m[2]/a[2]:.2f}  peak MB {m[4]/a[4]:.2f}  cycles/s {m[5]/a[5]:.2f}")
last = f"b{nbins - 1}"
print(f"\ngoals (issue 18), medians of bin {nbins - 1}")
print(f"{'goal':44} {'measured':>10} {'met':>4}")
for (v, c, b), m in sorted(med.items()):
    if b != last or c != 16:
        continue
    yes = lambda ok: "yes" if ok else "no"
    print(f"{v + ': client CPU per cycle <= 0.6 ms':44} {m[0]:7.3f} ms {yes(m[0] <= 0.6):>4}")
    print(f"{v + ': allocated per txn <= 2x payload':44} {m[2] / m[3]:9.2f}x {yes(m[2] <= 2 * m[3]):>4}  ({m[2]:.1f} KB for {m[3]:.1f} KB)")
PY

echo
echo "# payload generation (Go benchmark)"
grep -E "Benchmark|ns/event" "$out/payload.txt"
echo "# raw results in $out"
