#!/usr/bin/env bash
# instructions.sh: user-space instructions per transaction of txnbench pgbench
# against the real pgbench, counted by valgrind's callgrind, which counts
# every instruction the client executes and nothing else: on a busy machine
# the counts repeat where CPU time does not (issue 31).
#
#   bench/instructions.sh [-a T1] [-b T2] [-s SCALE] [-p PORT] [-k "CASES"] [-x "TXNBENCH ARGS"] [-u STARTS] [BIN...]
#
# One client (-c 1 -j 1 -n) against one throwaway PostgreSQL (initdb as the
# postgres user when run as root, port 5493 or -p, synchronous_commit=off,
# pgbench -i -s SCALE). Each tool runs each case twice, with -t T1 (200)
# and -t T2 (20000); the marginal count (I(T2) - I(T1)) / (T2 - T1) is the
# instructions per transaction without start-up and exit. txnbench runs
# with GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1: callgrind runs one thread at
# a time and stretches time ~50x, so otherwise the Go scheduler's idle
# spinning and preemption signals grow with wall time, not with work.
# Cases (-k): select-only-prepared (-b select-only -M prepared),
# tpcb-prepared (-b tpcb-like -M prepared), tpcb-simple (-b tpcb-like -M
# simple). -x adds arguments to txnbench's command line (e.g. "--telemetry
# off"). Prints per case both counts and the ratio txnbench / pgbench (goal:
# at most 1.1), then, for txnbench, the marginal instructions per
# transaction by part: each function's own (exclusive) cost from
# callgrind_annotate, grouped by package, so the parts add up to the total.
# -u N also counts start-up (issue 40: at most 2x pgbench's): the whole
# process of `-n -c 1 -j 1 -t 1 -S -M prepared` (start-up, one
# transaction, exit), N runs of each tool interleaved, medians; -k ""
# counts only that. With perf installed, -u also measures the CPU time of
# that start-up outside callgrind (perf stat's task-clock: every thread's
# user and system time, where /usr/bin/time's 10 ms ticks are as long as
# pgbench's whole run), 4 x N runs of each interleaved, medians. With
# several BINs the cases count the first; -u counts each, interleaved.
# With no binary it builds the working tree.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

t1=200 t2=20000 scale=1 port=5493 cases="select-only-prepared tpcb-prepared tpcb-simple" extra="" starts=0
options "a=t1 b=t2 s=scale p=port k=cases x=extra u=starts" "[-a T1] [-b T2] [-s scale] [-p port] [-k cases] [-x txnbench-args] [-u starts] [BIN...]" "$@"
shift $((OPTIND - 1))
command -v valgrind >/dev/null || { echo "valgrind is not installed: apt-get install valgrind" >&2; exit 1; }
perf=$(command -v perf || true) # start-up CPU with -u; without perf, instructions only

mkdir -p bench/out
out=$(mktemp -d "$PWD/bench/out/instructions-$(date +%Y%m%d-%H%M%S)-XXXX") # two may start in one second
chmod 777 "$out"
use_txnbenches "$out" "$@"
find_postgres
pgbench=${PGBENCH:-$bindir/pgbench} # the binary itself: /usr/bin/pgbench is a wrapper script

start_postgres "$out" "$port" immediate "-c synchronous_commit=off"
url="postgres://postgres@127.0.0.1:$port/postgres"
"$pgbench" -i -q -s "$scale" "$url" >/dev/null 2>&1

echo "# $("$pgbench" --version); $("$bin" version | head -1); scale $scale, -c 1, marginal between -t $t1 and -t $t2"
echo "# txnbench: GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1${extra:+, extra arguments: $extra}; load $(cut -d' ' -f1-3 /proc/loadavg)"

# The start-up part (-u) runs every BIN, interleaved: txnbench is the
# first, txnbench-2 the second (say, before and after a change), ...
tools=(pgbench txnbench)
for i in $(seq 2 ${#bins[@]}); do tools+=("txnbench-$i"); done
binof() { if [ "$1" = txnbench ]; then echo "$bin"; else echo "${bins[${1#txnbench-} - 1]}"; fi; }

# count TOOL CASE T: runs one under callgrind, prints its total instructions
count() {
  local tool=$1 case=$2 t=$3 args f=$out/$1-$2-$3
  case $case in
    select-only-prepared) args=(-b select-only -M prepared) ;;
    tpcb-prepared) args=(-b tpcb-like -M prepared) ;;
    tpcb-simple) args=(-b tpcb-like -M simple) ;;
    startup) args=(-S -M prepared) ;;
    *) echo "unknown case $case" >&2; exit 2 ;;
  esac
  local cmd=("$pgbench" -n -c 1 -j 1 -t "$t" "${args[@]}" "$url")
  local env=()
  if [ "$tool" != pgbench ]; then
    # shellcheck disable=SC2206 # extra is a list of words
    cmd=("$(binof "$tool")" pgbench "${cmd[@]:1}" $extra)
    env=(GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1)
  fi
  env "${env[@]}" valgrind --tool=callgrind --callgrind-out-file="$f.cg" "${cmd[@]}" >"$f.log" 2>&1 ||
    { echo "$tool $case -t $t failed: see $f.log" >&2; exit 1; }
  sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$f.cg" | tail -1
}

declare -A per
for c in $cases; do
  for tool in pgbench txnbench; do
    a=$(count "$tool" "$c" "$t1") b=$(count "$tool" "$c" "$t2")
    per[$tool-$c]=$(( (b - a) / (t2 - t1) ))
    echo "$c $tool $a $b" >>"$out/counts.txt"
  done
done

[ -n "$cases" ] && echo && printf '%-22s %12s %12s %8s  %s\n' case pgbench txnbench ratio "(instructions per transaction)"
for c in $cases; do
  p=${per[pgbench-$c]} x=${per[txnbench-$c]}
  printf '%-22s %12s %12s %8s\n' "$c" "$p" "$x" "$(awk -v x="$x" -v p="$p" 'BEGIN { printf "%.2fx", x / p }')"
done

# parts: exclusive cost per function from both runs, the marginal per
# transaction grouped by package.
for c in $cases; do
  echo
  echo "# txnbench $c: marginal instructions per transaction by part (own cost of each function, grouped)"
  for t in "$t1" "$t2"; do
    callgrind_annotate --auto=no --inclusive=no --threshold=100 "$out/txnbench-$c-$t.cg" 2>/dev/null |
      awk '/^ *[0-9,]+ +\(.*%\) .*:/ { n = $1; gsub(",", "", n); l = $0; sub(/^ *[0-9,]+ +\([^)]*\) +/, "", l); sub(/ \[.*$/, "", l); print n "\t" l }' >"$out/txnbench-$c-$t.fn"
  done
  python3 - "$out/txnbench-$c-$t1.fn" "$out/txnbench-$c-$t2.fn" "$((t2 - t1))" <<'PY'
import sys, collections
def load(p):
    d = collections.Counter()
    for line in open(p):
        n, fn = line.rstrip("\n").split("\t", 1)
        d[fn.split(":", 1)[-1]] += int(n)
    return d
a, b, txns = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
def part(fn):
    f = fn.split(" ")[0]
    for prefix, name in [
        ("github.com/txnbench/txnbench/internal/pgbench/", "txnbench: pgbench interpreter"),
        ("github.com/txnbench/txnbench/internal/runner", "txnbench: runner"),
        ("github.com/txnbench/txnbench/internal/metrics", "txnbench: latency recording (metrics)"),
        ("github.com/txnbench/txnbench/internal/target", "txnbench: target"),
        ("github.com/txnbench/txnbench/internal/telemetry", "txnbench: telemetry"),
        ("github.com/txnbench/txnbench/", "txnbench: other"),
        ("github.com/jackc/pgx/v5/pgproto3", "pgx: pgproto3"),
        ("github.com/jackc/pgx/v5/internal/sanitize", "pgx: simple-protocol sanitize"),
        ("github.com/jackc/", "pgx: other"),
        ("github.com/HdrHistogram/", "hdrhistogram"),
        ("compress/", "zlib/flate"),
        ("runtime.mallocgc", "runtime: allocation"), ("runtime.memclr", "runtime: allocation"),
        ("runtime.memmove", "runtime: memmove"),
        ("runtime.gcDrain", "runtime: GC"), ("runtime.scanobject", "runtime: GC"), ("runtime.greyobject", "runtime: GC"),
        ("runtime.findObject", "runtime: GC"), ("runtime.markBits", "runtime: GC"), ("runtime.(*gcWork)", "runtime: GC"),
        ("runtime.(*mspan)", "runtime: allocation"), ("runtime.(*mcache)", "runtime: allocation"), ("runtime.(*mheap)", "runtime: allocation"),
        ("runtime.findRunnable", "runtime: scheduler"), ("runtime.schedule", "runtime: scheduler"), ("runtime.stealWork", "runtime: scheduler"),
        ("runtime.netpoll", "runtime: scheduler"), ("runtime.park", "runtime: scheduler"), ("runtime.gopark", "runtime: scheduler"),
        ("runtime.ready", "runtime: scheduler"), ("runtime.goready", "runtime: scheduler"), ("runtime.runqget", "runtime: scheduler"),
        ("runtime.checkTimers", "runtime: timers"), ("runtime.(*timer", "runtime: timers"), ("runtime.nanotime", "clock"),
        ("runtime.walltime", "clock"), ("time.now", "clock"), ("time.Now", "clock"), ("time.Since", "clock"), ("__vdso", "clock"),
        ("time.", "clock"), ("context.", "context"), ("io.", "net, poll"),
        ("aeshashbody", "runtime: other"), ("indexbytebody", "runtime: other"), ("memeqbody", "runtime: other"),
        ("runtime.", "runtime: other"), ("internal/runtime", "runtime: other"), ("syscall.", "syscalls"),
        ("internal/poll", "net, poll"), ("net.", "net, poll"), ("sync.", "sync"), ("internal/sync", "sync"),
        ("strconv.", "strconv, fmt"), ("fmt.", "strconv, fmt"), ("math/", "math")]:
        if f.startswith(prefix) or ("/" + prefix) in f:
            return name
    return "other: " + f[:50]
parts = collections.Counter()
for fn in set(a) | set(b):
    parts[part(fn)] += b[fn] - a[fn]
total = sum(parts.values())
print(f"{'part':44} {'instr/txn':>10} {'share':>6}")
for name, n in parts.most_common():
    if abs(n / txns) >= 20:
        print(f"{name:44} {n / txns:10.0f} {n / total:6.1%}")
print(f"{'total (functions above 0.01% of the run)':44} {total / txns:10.0f}")
PY
done
# cpu TOOL: the task-clock (user + system CPU of every thread, in ms, at
# the kernel's nanosecond accounting rather than rusage's 10 ms ticks) of
# one -t 1 -S -M prepared run outside callgrind, as a user runs it
# (txnbench with -x's arguments, GOMAXPROCS and GODEBUG unset).
cpu() {
  local cmd=("$pgbench" -n -c 1 -j 1 -t 1 -S -M prepared "$url")
  # shellcheck disable=SC2206 # extra is a list of words
  [ "$1" != pgbench ] && cmd=("$(binof "$1")" pgbench "${cmd[@]:1}" $extra)
  perf stat -x, -e task-clock -o "$out/$1-cpu.stat" "${cmd[@]}" >/dev/null 2>&1 ||
    { echo "$1 -t 1 failed under perf stat" >&2; exit 1; }
  awk -F, '$3 == "task-clock" { printf "%.2f", $1 }' "$out/$1-cpu.stat"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

if [ "$starts" -gt 0 ]; then
  echo
  echo "# start-up: whole-process instructions of -t 1 -S -M prepared, $starts runs of each interleaved${perf:+, then CPU (perf stat task-clock) of 4 x $starts runs of each interleaved}"
  for i in $(seq "$starts"); do
    for tool in "${tools[@]}"; do
      echo "$tool $(count "$tool" startup 1)" >>"$out/startup.txt"
    done
  done
  p=$(awk '$1 == "pgbench" { print $2 }' "$out/startup.txt" | median)
  printf '%-22s %12s %12s %8s  %s\n' case pgbench txnbench ratio "(median instructions, whole process; goal: ratio <= 2)"
  for tool in "${tools[@]:1}"; do
    x=$(awk -v t="$tool" '$1 == t { print $2 }' "$out/startup.txt" | median)
    printf '%-22s %12s %12s %8s  %s\n' startup "$p" "$x" "$(awk -v x="$x" -v p="$p" 'BEGIN { printf "%.2fx", x / p }')" "$tool: $(binof "$tool")"
  done
  echo "# each run: $(awk '{ printf "%s %s; ", $1, $2 }' "$out/startup.txt")"
  if [ -n "$perf" ]; then
    for i in $(seq $((4 * starts))); do
      for tool in "${tools[@]}"; do
        echo "$tool $(cpu "$tool")" >>"$out/startup-cpu.txt"
      done
    done
    p=$(awk '$1 == "pgbench" { print $2 }' "$out/startup-cpu.txt" | median)
    for tool in "${tools[@]:1}"; do
      x=$(awk -v t="$tool" '$1 == t { print $2 }' "$out/startup-cpu.txt" | median)
      printf '%-22s %12s %12s %8s  %s\n' startup-cpu "$p" "$x" "$(awk -v x="$x" -v p="$p" 'BEGIN { printf "%.2fx", x / p }')" "$tool, median CPU ms; load $(cut -d' ' -f1-3 /proc/loadavg)"
    done
  fi
fi
echo "# raw counts and callgrind files in $out"
