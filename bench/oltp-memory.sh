#!/usr/bin/env bash
# oltp-memory.sh: peak memory (maximum resident set) of sysbench 1.0's
# oltp_read_write beside txnbench's oltp-read-write on one throwaway
# PostgreSQL, same tables, rows and clients: `txnbench run script -b
# oltp-read-write` and `txnbench pgbench -b oltp-read-write`, each against
# `sysbench oltp_read_write --db-driver=pgsql`, in interleaved rounds, with
# the medians and each round's figures; also one transaction alone (`-t 1`,
# sysbench's --events=1), the floor of a run.
#
#   bench/oltp-memory.sh [-c "1 8"] [-d 10] [-r 3] [-s 10000] [BIN...]
#
# -c the client (thread) counts, -d each run's seconds, -r the rounds, -s
# the rows of the one table sbtest1. sysbench's tables are its own
# (`sysbench ... prepare`, database sb); txnbench loads its own in database
# tb (its first run), so neither tool reads the other's. Every command runs
# under GNU time, whose %M is the child's getrusage maxrss. The cluster (initdb as the
# postgres user when run as root) listens on port 5497 (OLTP_PORT). sysbench
# is Debian's (apt-get install sysbench). Raw output lands in
# bench/out/oltp-memory-DATE-PID. With several binaries (say, before and
# after a change) each round runs each in turn, and each gets its rows;
# with none it builds the working tree. Before the rounds each BIN's pages
# are dropped from the page cache (sync, then dd iflag=nocache): a binary
# just written (go build, cp) sits in it as the writer left it, and a run
# maps more of it resident than of one read back from disk (issue 40,
# round 7: 1.7 MB more of the same binary), so each, sysbench's too, is
# read back alike.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

clients="1 8" secs=10 rounds=3 rows=10000
options "c=clients d=secs r=rounds s=rows" "[-c \"1 8\"] [-d seconds] [-r rounds] [-s rows] [BIN...]" "$@"
shift $((OPTIND - 1))
command -v sysbench >/dev/null || { echo "no sysbench: apt-get install sysbench" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "no GNU time at /usr/bin/time (apt-get install time): it gives each command's peak memory" >&2; exit 2; }

new_out oltp-memory
chmod 777 "$out"
use_txnbenches "$out" "$@"
find_postgres
port=${OLTP_PORT:-5497}
start_postgres "$out" "$port" fast "-c max_connections=100"
psql=("$bindir/psql" -qAt -h 127.0.0.1 -p "$port" -U postgres)
"${psql[@]}" -c "CREATE DATABASE sb" -c "CREATE DATABASE tb"
sb=(sysbench oltp_read_write --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port="$port" --pgsql-user=postgres --pgsql-db=sb
  --tables=1 --table-size="$rows")
tb="postgres://postgres@127.0.0.1:$port/tb"
"${sb[@]}" prepare >"$out/sysbench-prepare.log" 2>&1
"$bin" init script -b oltp-read-write --db "$tb" --tables 1 --table-size "$rows" >"$out/txnbench-init.log" 2>&1
for b in "${bins[@]}" "$(command -v sysbench)"; do # sysbench's too: apt may have just written it
  sync "$b"
  dd if="$b" iflag=nocache count=0 status=none
done

# timed NAME CMD...: runs CMD with its wall seconds, CPU seconds (user,
# system) and peak resident KB in OUT/NAME.time. A command that fails is
# named on stderr and its figures kept: `pgbench -b oltp-read-write` at 8
# clients exits 2 when a client aborts on a duplicate key (two clients'
# DELETE and INSERT of one id; sysbench ignores that error), and the
# others run the whole duration.
timed() {
  local name=$1
  shift
  /usr/bin/time -f '%e %U %S %M' -o "$out/$name.time" "$@" >"$out/$name.log" 2>&1 || echo "# $name failed (figures kept): see $out/$name.log" >&2
}

say_machine
for b in "${!bins[@]}"; do echo "# B$b: ${bins[$b]}: $("${bins[$b]}" version)"; done
echo "# $(sysbench --version); PostgreSQL $("${psql[@]}" -c 'SHOW server_version'); sbtest1 of $rows rows, ${secs} s runs, $rounds rounds; raw output in $out"
for r in $(seq "$rounds"); do
  for c in $clients; do
    timed "r$r-c$c-sysbench" "${sb[@]}" --threads="$c" --time="$secs" --report-interval=0 run
    for b in "${!bins[@]}"; do
      timed "r$r-c$c-B$b-script" "${bins[$b]}" run script -b oltp-read-write --db "$tb" --tables 1 --clients "$c" --duration "${secs}s" --progress 1h
      timed "r$r-c$c-B$b-pgbench" "${bins[$b]}" pgbench -b oltp-read-write --db "$tb" -c "$c" -T "$secs"
    done
  done
  timed "r$r-t1-sysbench" "${sb[@]}" --threads=1 --events=1 --time=0 run
  for b in "${!bins[@]}"; do
    timed "r$r-t1-B$b-script" "${bins[$b]}" run script -b oltp-read-write --db "$tb" --tables 1 --clients 1 --iterations 1 --progress 1h
    timed "r$r-t1-B$b-pgbench" "${bins[$b]}" pgbench -b oltp-read-write --db "$tb" -c 1 -t 1
  done
done

python3 - "$out" "$rounds" "$clients" "${#bins[@]}" <<'PY'
import os, re, statistics, sys
out, rounds, clients, nbins = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), int(sys.argv[4])
def rss(name):
    return int(open(os.path.join(out, name + ".time")).read().split()[-1]) / 1024
print(f"{'peak RSS MB, median of ' + str(rounds):32} {'sysbench':>9} {'run script':>10} {'ratio':>6} {'pgbench':>8} {'ratio':>6}   each round (sysbench | script | pgbench)")
for c, b in [(c, b) for c in clients + ["t1"] for b in range(nbins)]:
    label = ("one transaction (-t 1)" if c == "t1" else f"{c} clients") + (f", B{b}" if nbins > 1 else "")
    key = c if c == "t1" else f"c{c}"
    v = {tool: [rss(f"r{r}-{key}-" + (tool if tool == "sysbench" else f"B{b}-{tool}")) for r in range(1, rounds + 1)] for tool in ("sysbench", "script", "pgbench")}
    m = {tool: statistics.median(x) for tool, x in v.items()}
    each = " | ".join(", ".join(f"{x:.1f}" for x in v[t]) for t in ("sysbench", "script", "pgbench"))
    print(f"{label:32} {m['sysbench']:9.1f} {m['script']:10.1f} {m['script'] / m['sysbench']:5.2f}x {m['pgbench']:8.1f} {m['pgbench'] / m['sysbench']:5.2f}x   {each}")
PY
