#!/usr/bin/env bash
# tpcc.sh: TPC-C-like on one throwaway PostgreSQL: the load time per
# warehouse, tpmC with the specification's keying and think times at 1, 10
# and 50 warehouses (ten terminals each), the client's CPU per New-Order and
# as a share of the server's, one flat-out run (--wait=false), and the peak
# memory of 1,000 terminals.
#
#   bench/tpcc.sh [-w "1 10 50"] [-d 4m] [-u 1m] [-t 1000] [-f 1m] [-x ARGS] [BIN]
#
# -w the warehouse counts (each loaded into a database of its own with
# `txnbench init tpcc`, timed), -d each run's measured window and -u its
# warm-up, -t the terminals of the memory run (on the most warehouses
# loaded; 0 leaves it out), -f the flat-out run's window (20 terminals on
# the first warehouse count above 1, else the first; 0 leaves it out), -x
# more arguments for every run (-x "--telemetry off").
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

whs="1 10 50" window=4m warmup=1m terminals=1000 flat=1m extra=""
options "w=whs d=window u=warmup t=terminals f=flat x=extra" "[-w \"1 10 50\"] [-d window] [-u warm-up] [-t terminals] [-f flat-out window] [-x args] [BIN]" "$@"
shift $((OPTIND - 1))

new_out tpcc
chmod 777 "$out"
use_txnbench "$out" "${1:-}"
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

# run NAME WAREHOUSES ARGS...: one measured run with its server CPU.
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
  run "wait-w$w" "$w" --duration "$window" --warmup "$warmup"
done
last=$(echo "$whs" | awk '{ print $NF }')
flatw=$(echo "$whs" | awk '{ for (i = 1; i <= NF; i++) if ($i > 1) { print $i; exit } print $1 }')
[ "$flat" != 0 ] && run "flat-w$flatw" "$flatw" --wait=false --clients 20 --duration "$flat" --warmup 10s
[ "$terminals" != 0 ] && run "terminals-$terminals" "$last" --clients "$terminals" --duration "$window" --warmup "$warmup"

python3 - "$out" <<'PY'
import glob, json, os, re, sys
out = sys.argv[1]
for line in open(os.path.join(out, "loads")):
    w, end, start = line.split()
    s = float(end) - float(start)
    print(f"load {int(w):3} warehouses: {s:7.1f} s, {s / int(w):5.1f} s per warehouse (goal: under 10)")
print()
print(f"{'run':16} {'terminals':>9} {'window s':>8} {'tpmC':>8} {'efficiency':>10} {'new-orders':>10} {'client CPU s':>12} {'server CPU s':>12} {'client/server':>13} {'client ms/NO':>12} {'peak MB':>8}  p90s")
for f in sorted(glob.glob(os.path.join(out, "*.json")), key=os.path.getmtime):
    name = os.path.basename(f)[:-5]
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
PY
