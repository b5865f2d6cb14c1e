#!/usr/bin/env bash
# tpcc.sh: TPC-C-like on one throwaway PostgreSQL: the load time per
# warehouse, tpmC with the specification's keying and think times at 1, 10
# and 50 warehouses (ten terminals each), the client's CPU per New-Order and
# as a share of the server's, flat-out runs (--wait=false) of each
# implementation and binary, interleaved, and the peak memory of 1,000
# terminals.
#
#   bench/tpcc.sh [-w "1 10 50"] [-d 4m] [-u 1m] [-t 1000] [-f 1m] [-i batched] [-r 1] [-x ARGS] [BIN...]
#
# -w the warehouse counts (each loaded into a database of its own with
# `txnbench init tpcc`, timed), -d each run's measured window with the
# wait times (0 leaves those runs out) and -u its warm-up, -t the
# terminals of the memory run (on the most warehouses loaded; 0 leaves it
# out), -f the flat-out runs' window (20 terminals on the first warehouse
# count above 1, else the first; 0 leaves them out), -i the
# implementations of the flat-out runs ("batched statements procedures"),
# -r their rounds: each round runs every binary with every implementation
# in turn, and the medians over the rounds are printed with the
# statements the server ran per New-Order (a New-Order-only run of 300
# transactions, one terminal, per implementation and binary, counted in
# the server's log with log_statement=all: a procedure's call is one),
# -x more arguments for every run (-x "--telemetry off"). The first
# binary runs the loads and the other runs.
#
# The server's CPU is that of the cluster's processes: the postmaster's own
# and its reaped children's (utime, stime, cutime, cstime in
# /proc/PID/stat) plus its live children's, read before and after each
# txnbench command; the client's is the txnbench process's (user + system,
# measured by the shell's time). Both cover the whole command, warm-up and
# check included; the check runs with --check quick, so the server's share
# is not inflated by reading every order line. Client CPU per New-Order is
# the result's: the measured window's CPU over its New-Orders. The cluster
# (initdb as the postgres user when run as root) listens on port 5498
# (TPCC_PORT) with max_connections 1100.
# Goals (issue 28): client CPU under 10% of the server's, load under 10 s per
# warehouse. Raw output lands in bench/out/tpcc-DATE-PID. With no binary it
# builds the working tree.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

whs="1 10 50" window=4m warmup=1m terminals=1000 flat=1m impls=batched rounds=1 extra=""
options "w=whs d=window u=warmup t=terminals f=flat i=impls r=rounds x=extra" "[-w \"1 10 50\"] [-d window] [-u warm-up] [-t terminals] [-f flat-out window] [-i implementations] [-r rounds] [-x args] [BIN...]" "$@"
shift $((OPTIND - 1))

new_out tpcc
chmod 777 "$out"
use_txnbenches "$out" "$@"
find_postgres

port=${TPCC_PORT:-5498}
start_postgres "$out" "$port" fast "-c max_connections=1100 -c shared_buffers=1GB -c max_wal_size=4GB"
postmaster=$(head -1 "$data/postmaster.pid")
psql=("$bindir/psql" -qAt -h 127.0.0.1 -p "$port" -U postgres)

# server_cpu prints the cluster's CPU seconds so far.
server_cpu() {
  python3 - "$postmaster" <<'PY'
import os, sys
pm, hz = int(sys.argv[1]), os.sysconf("SC_CLK_TCK")
def stat(pid):
    s = open(f"/proc/{pid}/stat").read()
    f = s[s.rindex(")") + 2:].split()  # state, ppid, ..., utime at 11
    return int(f[1]), int(f[11]) + int(f[12]), int(f[13]) + int(f[14])
_, own, reaped = stat(pm)
total = own + reaped
for d in os.listdir("/proc"):
    if d.isdigit() and int(d) != pm:
        try:
            ppid, cpu, _ = stat(d)
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pm:
            total += cpu
print(total / hz)
PY
}

# run NAME WAREHOUSES ARGS...: one measured run with its server CPU, by
# $bin.
run() {
  local name=$1 w=$2
  shift 2
  local before after TIMEFORMAT='%U %S'
  before=$(server_cpu)
  { time "$bin" run tpcc --db "postgres://postgres@127.0.0.1:$port/w$w" --warehouses "$w" --check quick \
    --progress 1m --json "$out/$name.json" $extra "$@" >"$out/$name.log" 2>&1; } 2>"$out/$name.client-cpu" ||
    { echo "run $name failed: see $out/$name.log" >&2; exit 1; }
  after=$(server_cpu)
  echo "$before $after" >"$out/$name.server-cpu"
}

say_machine
echo "# $("$bin" version); PostgreSQL $("${psql[@]}" -c 'SHOW server_version'), window $window, warm-up $warmup${extra:+, $extra}; raw output in $out"
for w in $whs; do
  "${psql[@]}" -c "CREATE DATABASE w$w"
  start=$(date +%s.%N)
  "$bin" init tpcc --db "postgres://postgres@127.0.0.1:$port/w$w" --warehouses "$w" >"$out/load-w$w.log" 2>&1 ||
    { echo "load of $w warehouses failed: see $out/load-w$w.log" >&2; exit 1; }
  echo "$w $(date +%s.%N) $start" >>"$out/loads"
  [ "$window" = 0 ] || run "wait-w$w" "$w" --duration "$window" --warmup "$warmup"
done
last=$(echo "$whs" | awk '{ print $NF }')
flatw=$(echo "$whs" | awk '{ for (i = 1; i <= NF; i++) if ($i > 1) { print $i; exit } print $1 }')
# statements NAME ARGS...: a New-Order-only run by $bin with the server
# logging every statement; their count lands in OUT/NAME.statements.
statements() {
  local name=$1 before
  shift
  "${psql[@]}" -c "ALTER SYSTEM SET log_statement = 'all'" -c "SELECT pg_reload_conf()" >/dev/null
  before=$(grep -cE 'LOG:  (statement|execute)' "$out/server.log" || true)
  "$bin" run tpcc --db "postgres://postgres@127.0.0.1:$port/w$flatw" --warehouses "$flatw" --check quick --progress 1h --telemetry off \
    --clients 1 --wait=false --iterations 300 --mix 1,0,0,0,0 --json "$out/$name.json" "$@" >"$out/$name.log" 2>&1 ||
    { echo "run $name failed: see $out/$name.log" >&2; exit 1; }
  "${psql[@]}" -c "ALTER SYSTEM RESET log_statement" -c "SELECT pg_reload_conf()" >/dev/null
  echo "$before $(grep -cE 'LOG:  (statement|execute)' "$out/server.log" || true)" >"$out/$name.statements"
}
if [ "$flat" != 0 ]; then
  for r in $(seq "$rounds"); do
    for k in "${!bins[@]}"; do
      for impl in $impls; do
        bin=${bins[$k]} run "flat-w$flatw-$impl-b$k-r$r" "$flatw" --wait=false --clients 20 --duration "$flat" --warmup 10s --implementation "$impl"
      done
    done
  done
  for k in "${!bins[@]}"; do
    for impl in $impls; do bin=${bins[$k]} statements "no-only-$impl-b$k" --implementation "$impl"; done
  done
  for k in "${!bins[@]}"; do echo "# b$k: ${bins[$k]}"; done
fi
[ "$terminals" != 0 ] && run "terminals-$terminals" "$last" --clients "$terminals" --duration "$window" --warmup "$warmup"

python3 - "$out" <<'PY'
import glob, json, os, re, statistics, sys
out = sys.argv[1]
medians = {}
for line in open(os.path.join(out, "loads")):
    w, end, start = line.split()
    s = float(end) - float(start)
    print(f"load {int(w):3} warehouses: {s:7.1f} s, {s / int(w):5.1f} s per warehouse (goal: under 10)")
print()
print(f"{'run':16} {'terminals':>9} {'window s':>8} {'tpmC':>8} {'efficiency':>10} {'new-orders':>10} {'client CPU s':>12} {'server CPU s':>12} {'client/server':>13} {'client ms/NO':>12} {'peak MB':>8}  p90s")
for f in sorted(glob.glob(os.path.join(out, "*.json")), key=os.path.getmtime):
    name = os.path.basename(f)[:-5]
    if name.startswith("no-only-"):
        continue
    r = json.load(open(f))
    before, after = map(float, open(os.path.join(out, name + ".server-cpu")).read().split())
    server = after - before
    client = sum(map(float, open(os.path.join(out, name + ".client-cpu")).read().split()))
    window = r["client"]["cpu_user_s"] + r["client"]["cpu_sys_s"]
    no = next((o["count"] for o in r["ops"] if o["name"] == "new-order"), 0)
    figs = " ".join(r.get("figures", []))
    tpmc = re.search(r"tpmC\s+([\d.]+)", figs)
    eff = re.search(r"efficiency ([\d.]+%)", figs)
    verdict = "pass" if "all within the limits" in figs else "FAIL"
    ok = "" if r["invariants"]["ok"] else "  INVARIANTS VIOLATED"
    print(f"{name:16} {r['config']['clients']:9} {r['measured_s']:8.0f} {float(tpmc.group(1)) if tpmc else 0:8.1f} {eff.group(1) if eff else '-':>10} {no:10} "
          f"{client:12.1f} {server:12.1f} {100 * client / server if server else 0:12.1f}% {1000 * window / no if no else 0:12.2f} {r['client']['max_rss_mb']:8.0f}  {verdict}{ok}")
    m = re.fullmatch(r"(flat-w\d+-\w+-b\d+)-r\d+", name)
    if m and no and server:
        medians.setdefault(m.group(1), []).append((float(tpmc.group(1)) if tpmc else 0, 100 * client / server, 1000 * window / no, 1000 * server / no, r["client"]["max_rss_mb"]))
if medians:
    print()
    print(f"{'flat out, median of':24} {'rounds':>6} {'tpmC':>8} {'client/server':>13} {'client ms/NO':>12} {'server ms/NO':>12} {'statements/NO':>13} {'peak MB':>8}")
    for name, v in medians.items():
        impl_bin = name.split("-", 2)[2]  # IMPL-bK
        try:
            before, after = map(int, open(os.path.join(out, f"no-only-{impl_bin}.statements")).read().split())
            j = json.load(open(os.path.join(out, f"no-only-{impl_bin}.json")))
            n = next(o["count"] for o in j["ops"] if o["name"] == "new-order")
            per = f"{(after - before) / n:.1f}"
        except (OSError, StopIteration, ValueError):
            per = "-"
        med = [statistics.median(x[i] for x in v) for i in range(5)]
        print(f"{name:24} {len(v):6} {med[0]:8.0f} {med[1]:12.1f}% {med[2]:12.2f} {med[3]:12.2f} {per:>13} {med[4]:8.0f}")
        print(f"{'  (each round)':24} {'':6} {', '.join(f'{x[0]:.0f}' for x in v)} | {', '.join(f'{x[1]:.1f}%' for x in v)}")
PY
