#!/usr/bin/env bash
# tpcc-mariadb.sh: txnbench's TPC-C beside go-tpc 1.0.7's on one throwaway
# MariaDB, same warehouses and terminals, no think time: the load time per
# warehouse (go-tpc's prepare --no-check, txnbench init), then rounds of
# go-tpc and txnbench --implementation batched, statements and procedures
# (one CALL per transaction), interleaved, with the medians of tpmC, the
# client's CPU per New-Order and the statements the server was sent per
# transaction (its Questions counter). The loads are interleaved rounds
# too, each into a new database; every command's peak memory is its
# maximum resident set (GNU time's %M, the child's getrusage maxrss).
#
#   bench/tpcc-mariadb.sh [-w 2] [-t 8] [-d 30s] [-r 3] [-L] [BIN]
#
# -w the warehouses, -t the terminals, -d each run's window, -r the rounds,
# -L the loads only.
# go-tpc is $GOTPC or $(go env GOPATH)/bin/go-tpc, installed by
#   go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7
# The client's CPU is the whole process's (user + system, by the shell's
# time), over its New-Orders: go-tpc's run, and txnbench's run with its
# start (counting the tables) and --check quick. Statements per New-Order
# come from a New-Order-only txnbench run (--mix 1,0,0,0,0, one terminal,
# 1,000 transactions); go-tpc has no such mix, so its figure is per
# transaction only. The server (mariadbd, as the mysql user when run as
# root) listens on 127.0.0.1:5499 (TPCC_MARIADB_PORT) with
# --skip-grant-tables, a 512 MB buffer pool and
# innodb_flush_log_at_trx_commit=2 (the log is written at each commit,
# flushed once a second: both tools alike). Raw output lands in
# bench/out/tpcc-mariadb-DATE-PID. With no binary it builds the working
# tree.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

whs=2 terms=8 window=30s rounds=3 loadonly=0
while getopts "w:t:d:r:L" o; do
  case $o in
    w) whs=$OPTARG ;; t) terms=$OPTARG ;; d) window=$OPTARG ;; r) rounds=$OPTARG ;; L) loadonly=1 ;;
    *) echo "usage: $0 [-w warehouses] [-t terminals] [-d window] [-r rounds] [-L] [BIN]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
gotpc=${GOTPC:-$(go env GOPATH)/bin/go-tpc}
[ -x /usr/bin/time ] || { echo "no GNU time at /usr/bin/time (apt-get install time): it gives each command's peak memory" >&2; exit 2; }
[ -x "$gotpc" ] || { echo "no go-tpc at $gotpc: go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7, or give GOTPC" >&2; exit 2; }

new_out tpcc-mariadb
use_txnbench "$out" "${1:-}"

port=${TPCC_MARIADB_PORT:-5499}
user=()
if [ "$(id -u)" = 0 ]; then user=(--user=mysql); fi
mkdir -p "$out/mariadb"
[ ${#user[@]} = 0 ] || chown mysql "$out/mariadb"
mariadb-install-db --no-defaults "${user[@]}" --datadir="$out/mariadb/data" --auth-root-authentication-method=normal --skip-test-db >"$out/install.log" 2>&1
mariadbd --no-defaults "${user[@]}" --datadir="$out/mariadb/data" --port="$port" --bind-address=127.0.0.1 --socket="$out/mariadb/sock" \
  --skip-name-resolve --skip-grant-tables --innodb-buffer-pool-size=512M --innodb-flush-log-at-trx-commit=2 --max-connections=200 \
  >"$out/server.log" 2>&1 &
server=$!
trap 'kill $server; wait $server 2>/dev/null || true' EXIT
q() { mariadb --no-defaults -h 127.0.0.1 -P "$port" -u root -N -B -e "$1"; }
for _ in $(seq 100); do q "SELECT 1" >/dev/null 2>&1 && break; sleep 0.2; done
q "CREATE DATABASE gotpc; CREATE DATABASE txnbench"
questions() { q "SHOW GLOBAL STATUS LIKE 'Questions'" | cut -f2; }
db="mysql://root@127.0.0.1:$port/txnbench"
tpc=("$gotpc" tpcc -H 127.0.0.1 -P "$port" -U root -D gotpc --warehouses "$whs")

say_machine
echo "# $("$bin" version); go-tpc $("$gotpc" version 2>&1 | head -1); MariaDB $(q 'SELECT version()'); $whs warehouses, $terms terminals, $window windows, $rounds rounds; raw output in $out"

# timed NAME CMD...: runs CMD with its wall seconds, CPU seconds (user,
# system), peak resident KB and the server's Questions before and after in
# OUT/NAME.*.
timed() {
  local name=$1 before
  shift
  before=$(questions)
  /usr/bin/time -f '%e %U %S %M' -o "$out/$name.time" "$@" >"$out/$name.log" 2>&1 || { echo "$name failed: see $out/$name.log" >&2; exit 1; }
  echo "$before $(questions)" >"$out/$name.questions"
}

# The loads, interleaved: round 1 into the databases the runs use, the
# others into new ones, dropped after.
for r in $(seq "$rounds"); do
  g=gotpc t=txnbench
  if [ "$r" -gt 1 ]; then g=gotpc_r$r t=txnbench_r$r; q "CREATE DATABASE $g; CREATE DATABASE $t"; fi
  timed "load$r-gotpc" "$gotpc" tpcc -H 127.0.0.1 -P "$port" -U root -D "$g" --warehouses "$whs" prepare -T "$whs" --no-check
  timed "load$r-txnbench" "$bin" init tpcc --db "mysql://root@127.0.0.1:$port/$t" --warehouses "$whs"
  if [ "$r" -gt 1 ]; then q "DROP DATABASE $g; DROP DATABASE $t"; fi
done
[ "$loadonly" = 0 ] || rounds=0
for r in $(seq "$rounds"); do
  timed "run$r-gotpc" "${tpc[@]}" run -T "$terms" --time "$window" --interval 1h
  for impl in batched statements procedures; do
    timed "run$r-$impl" "$bin" run tpcc --db "$db" --clients "$terms" --wait=false --duration "$window" --warmup 0s \
      --check quick --telemetry off --progress 1h --implementation "$impl" --json "$out/run$r-$impl.json"
  done
done
[ "$rounds" = 0 ] || for impl in batched statements procedures; do
  timed "no-only-$impl" "$bin" run tpcc --db "$db" --clients 1 --wait=false --iterations 1000 --mix 1,0,0,0,0 \
    --check quick --telemetry off --progress 1h --implementation "$impl" --json "$out/no-only-$impl.json"
done

python3 - "$out" "$whs" "$rounds" "$(ls "$out" | grep -c '^load.*-gotpc.time$')" <<'PY'
import json, os, re, statistics, sys
out, whs, rounds, loads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def read(name, ext):
    return open(os.path.join(out, f"{name}.{ext}")).read().split()
def questions(name):
    a, b = map(int, read(name, "questions"))
    return b - a
def cpu(name):
    _, u, s = map(float, read(name, "time")[:3])
    return u + s
def rss(name):
    return int(read(name, "time")[3]) / 1024
for tool in ("gotpc", "txnbench"):
    walls = [float(read(f"load{r}-{tool}", "time")[0]) / whs for r in range(1, loads + 1)]
    cpus = [cpu(f"load{r}-{tool}") / whs for r in range(1, loads + 1)]
    mem = [rss(f"load{r}-{tool}") for r in range(1, loads + 1)]
    print(f"load {tool:9}: median {statistics.median(walls):5.1f} s per warehouse ({', '.join(f'{x:.1f}' for x in walls)}),"
          f" client CPU {statistics.median(cpus):5.1f} s per warehouse, peak RSS {statistics.median(mem):5.1f} MB ({', '.join(f'{x:.1f}' for x in mem)})")
if rounds == 0:
    sys.exit(0)
ops = ("new-order", "payment", "order-status", "delivery", "stock-level")  # not "cycle" or "connect"
rows = {}
for r in range(1, rounds + 1):
    log = open(os.path.join(out, f"run{r}-gotpc.log")).read()
    counts = {m[0]: int(m[1]) for m in re.findall(r"\[Summary\] (\w+) - Takes\(s\): [\d.]+, Count: (\d+)", log)}
    no = counts.get("NEW_ORDER", 0)
    txns = sum(v for k, v in counts.items() if not k.endswith("_ERR"))
    tpmc = float(re.search(r"tpmC: ([\d.]+)", log).group(1))
    rows.setdefault("go-tpc", []).append((tpmc, cpu(f"run{r}-gotpc") * 1000 / no, questions(f"run{r}-gotpc") / txns, rss(f"run{r}-gotpc")))
    for impl in ("batched", "statements", "procedures"):
        j = json.load(open(os.path.join(out, f"run{r}-{impl}.json")))
        if not j["invariants"]["ok"]:
            print(f"run{r}-{impl}: INVARIANTS VIOLATED")
        no = next(o["count"] for o in j["ops"] if o["name"] == "new-order")
        txns = sum(o["count"] for o in j["ops"] if o["name"] in ops)
        tpmc = float(re.search(r"tpmC\s+([\d.,]+)", " ".join(j["figures"])).group(1).replace(",", ""))
        rows.setdefault(f"txnbench {impl}", []).append((tpmc, cpu(f"run{r}-{impl}") * 1000 / no, questions(f"run{r}-{impl}") / txns, rss(f"run{r}-{impl}")))
print()
print(f"{'median of ' + str(rounds):22} {'tpmC':>9} {'client CPU ms/NO':>16} {'statements/txn':>14} {'statements/NO':>13} {'peak RSS MB':>11}")
for name, v in rows.items():
    per_no = "-"
    if name.startswith("txnbench"):
        impl = name.split()[1]
        j = json.load(open(os.path.join(out, f"no-only-{impl}.json")))
        n = sum(o["count"] for o in j["ops"] if o["name"] in ops)
        per_no = f"{questions('no-only-' + impl) / n:.1f}"
    med = [statistics.median(x[i] for x in v) for i in range(4)]
    print(f"{name:22} {med[0]:9.0f} {med[1]:16.2f} {med[2]:14.1f} {per_no:>13} {med[3]:11.1f}")
    print(f"{'  (each round)':22} {', '.join(f'{x[0]:.0f}' for x in v):>9} | {', '.join(f'{x[1]:.2f}' for x in v)}")
PY
