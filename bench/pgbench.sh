#!/usr/bin/env bash
# pgbench.sh: txnbench pgbench against the real pgbench on the same server,
# interleaved: TPS and client CPU per transaction (user + system time of the
# client process divided by the transactions it ran) for select-only, a
# "SELECT 1" script with -M prepared, and tpcb-like, at 8 and 64 clients.
#
#   bench/pgbench.sh [-r REPEATS] [-T SECONDS] [-s SCALE] [-c "8 64"] [-k "CASES"] [-g GOAL] [-u STARTS] [-P "MODES"] [-p PORT] [BIN...]
#
# Cases (-k): select-only (-S), select-only-prepared (-S -M prepared),
# select1-prepared, tpcb-like (-M simple), tpcb-prepared (-M prepared);
# default "select-only select1-prepared tpcb-like". -g is the goal for
# client CPU per transaction against pgbench's (0.8, issue 18; issue 31's
# is 1.0). -u N also measures start-up (issue 31: at most 2x pgbench's):
# the CPU (user + system) of `pgbench -n -c 1 -t 1 -S -M prepared` and of
# txnbench's, N of each interleaved, medians; txnbench runs it with
# --telemetry off, since pgbench samples nothing.
#
# A throwaway cluster (initdb as the postgres user when run as root) on port
# 5497 (or -p) with synchronous_commit=off, initialised once with pgbench -i. Each
# (case, clients) runs pgbench and txnbench alternately REPEATS times (3),
# both with -j 2 on these 2-core machines; medians are printed with the
# ratio txnbench / pgbench, then each goal with its measured ratio and
# whether it is met. Goals (issue 18): client CPU per transaction at most
# 0.8x pgbench's, TPS at least pgbench's, in every case (issue 4 had 1x).
# For select-only and SELECT 1 a third client runs beside them: bench/floor.c,
# the least a client can do (a thread per connection, one send(2) and one
# recv(2) per transaction, nothing else), so the table shows how much of
# pgbench's CPU per transaction is the kernel's price of a round trip that
# no client avoids. -P "poll epoll goroutine goroutine-noraw" adds, for
# select-only-prepared, bench/pollfloor (Go, the round trip and nothing
# else) in each -mode named, with -j 2 ("-noraw": -raw=false), as further
# clients in each repetition (issue 40: would poll-driven workers reach
# pgbench's cost? "coro": would blocking code run as coroutines on such
# workers?); a second table shows each floor client's medians.
# The last two columns are the context switches (voluntary and involuntary,
# GNU time's %w + %c) per transaction of pgbench and of each txnbench.
# With several BINs (say, before and after a change) each runs in every
# repetition, interleaved, and has its own row per case (BIN 2 as "case@2").
# With no binary it builds the working tree.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

repeats=3 secs=10 scale=10 clientsets="8 64" cases="select-only select1-prepared tpcb-like" goal=0.8 starts=0 pollmodes="" port=5497
options "r=repeats T=secs s=scale c=clientsets k=cases g=goal u=starts P=pollmodes p=port" "[-r repeats] [-T seconds] [-s scale] [-c \"8 64\"] [-k cases] [-g goal] [-u starts] [-P \"poll goroutine\"] [-p port] [BIN...]" "$@"
shift $((OPTIND - 1))

new_out pgbench
chmod 777 "$out"
use_txnbenches "$out" "$@"
floor=yes
if ! cc -O2 -pthread -o "$out/floor" bench/floor.c 2>"$out/floor.cc.log"; then
  floor=""
  echo "# bench/floor.c did not build (no C compiler? see $out/floor.cc.log): the floor client is left out"
fi
[ -z "$pollmodes" ] || go build -o "$out/pollfloor" ./bench/pollfloor
find_postgres
pgbench=${PGBENCH:-$bindir/pgbench} # the binary itself: /usr/bin/pgbench is a Perl wrapper whose start-up would count as pgbench's

start_postgres "$out" "$port" immediate "-c max_connections=200 -c shared_buffers=256MB -c synchronous_commit=off"
url="postgres://postgres@127.0.0.1:$port/postgres"
"$pgbench" -i -q -s "$scale" "$url" >/dev/null 2>&1
printf 'SELECT 1;\n' >"$out/select1.sql"

say_machine
echo "# $("$pgbench" --version), scale $scale, ${secs}s per run, $repeats interleaved repetitions, -j 2"

# one TOOL CASE CLIENTS: prints "tps cpu_us_per_txn"
one() {
  local tool=$1 case=$2 clients=$3 args log=$out/$1-$2-$3-$rep.log
  case $case in
    select-only) args=(-S) ;;
    select-only-prepared) args=(-S -M prepared) ;;
    select1-prepared) args=(-f "$out/select1.sql" -M prepared) ;;
    tpcb-like) args=(-b tpcb-like) ;;
    tpcb-prepared) args=(-b tpcb-like -M prepared) ;;
    *) echo "unknown case $case" >&2; exit 2 ;;
  esac
  local cmd=("$pgbench" -n -c "$clients" -j 2 -T "$secs" "${args[@]}" "$url")
  case $tool in txnbench*) cmd=("${bins[${tool#txnbench}]}" pgbench "${cmd[@]:1}") ;; esac
  [ "$tool" = floor ] && cmd=("$out/floor" 127.0.0.1 "$port" postgres postgres "$clients" "$secs" "${case/select-only-prepared/select-only}" "$scale")
  case $tool in pollfloor-*)
    local mode=${tool#pollfloor-}
    cmd=("$out/pollfloor" -mode "${mode%-noraw}" -c "$clients" -j 2 -T "$secs" -s "$scale" -port "$port")
    [ "$mode" = "${mode%-noraw}" ] || cmd+=(-raw=false) ;;
  esac
  /usr/bin/time -f '%U %S %w %c' -o "$log.time" "${cmd[@]}" >"$log" 2>&1 || true
  local tps txns
  tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$log")
  txns=$(sed -n 's/^\(number of transactions actually processed:\|transactions\) \([0-9]*\).*/\2/p' "$log")
  [ -n "$tps" ] && [ -n "$txns" ] || { echo "run failed: see $log" >&2; exit 1; }
  awk -v t="$tps" -v n="$txns" '{ printf "%s %.2f %.3f\n", t, ($1 + $2) * 1e6 / n, ($3 + $4) / n }' "$log.time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-17s %7s | %10s %10s %6s | %12s %12s %6s | %10s %6s | %7s %8s\n' case clients "pgbench" "txnbench" ratio "pgbench" "txnbench" ratio "floor" ratio "pgbench" "txnbench"
printf '%-17s %7s | %10s %10s %6s | %12s %12s %6s | %10s %6s | %7s %8s\n' "" "" "tps" "tps" "" "cpu us/txn" "cpu us/txn" "" "cpu us/txn" "" "cs/txn" "cs/txn"
tbs=(txnbench) # the tools of the BINs: txnbench, txnbench1, ...
for i in $(seq 1 $((${#bins[@]} - 1))); do tbs+=("txnbench$i"); done
for case in $cases; do
  for clients in $clientsets; do
    floors=() # the clients beside pgbench and txnbench that do the least: floor.c and pollfloor's modes
    case $case in tpcb-*) ;; *) [ -z "$floor" ] || floors=(floor) ;; esac
    if [ "$case" = select-only-prepared ]; then for m in $pollmodes; do floors+=("pollfloor-$m"); done; fi
    : >"$out/$case-$clients.pg"
    for fl in "${floors[@]}"; do : >"$out/$case-$clients.$fl"; done
    for tb in "${tbs[@]}"; do : >"$out/$case-$clients.$tb"; done
    for rep in $(seq "$repeats"); do
      one pgbench "$case" "$clients" >>"$out/$case-$clients.pg"
      for tb in "${tbs[@]}"; do one "$tb" "$case" "$clients" >>"$out/$case-$clients.$tb"; done
      for fl in "${floors[@]}"; do one "$fl" "$case" "$clients" >>"$out/$case-$clients.$fl"; done
    done
    ptps=$(cut -d' ' -f1 "$out/$case-$clients.pg" | median); pcpu=$(cut -d' ' -f2 "$out/$case-$clients.pg" | median)
    pcs=$(cut -d' ' -f3 "$out/$case-$clients.pg" | median)
    fcpu=""
    [ -s "$out/$case-$clients.floor" ] && fcpu=$(cut -d' ' -f2 "$out/$case-$clients.floor" | median)
    for fl in "${floors[@]}"; do # medians: case clients client pgbench-tps tps pgbench-cpu cpu pgbench-cs cs
      echo "$case $clients $fl $ptps $(cut -d' ' -f1 "$out/$case-$clients.$fl" | median) $pcpu" \
        "$(cut -d' ' -f2 "$out/$case-$clients.$fl" | median) $pcs $(cut -d' ' -f3 "$out/$case-$clients.$fl" | median)" >>"$out/floors"
    done
    for tb in "${tbs[@]}"; do
      label=$case
      [ "$tb" = txnbench ] || label=$case@$((${tb#txnbench} + 1))
      ttps=$(cut -d' ' -f1 "$out/$case-$clients.$tb" | median); tcpu=$(cut -d' ' -f2 "$out/$case-$clients.$tb" | median)
      tcs=$(cut -d' ' -f3 "$out/$case-$clients.$tb" | median)
      awk -v c="$label" -v n="$clients" -v pt="$ptps" -v tt="$ttps" -v pc="$pcpu" -v tc="$tcpu" -v fc="$fcpu" -v ps="$pcs" -v ts="$tcs" \
        'BEGIN { printf "%-17s %7d | %10.0f %10.0f %6.2f | %12.1f %12.1f %6.2f | ", c, n, pt, tt, tt / pt, pc, tc, tc / pc
                 if (fc == "") printf "%10s %6s", "-", "-"; else printf "%10.1f %6.2f", fc, fc / pc
                 printf " | %7.2f %8.2f\n", ps, ts }'
      echo "$label $clients $ptps $ttps $pcpu $tcpu ${fcpu:--}" >>"$out/medians"
    done
  done
done
if [ -s "$out/floors" ]; then
  echo
  printf '%-20s %7s %-20s | %10s %6s | %10s %6s | %7s %7s\n' case clients "floor client" tps ratio "cpu us/txn" ratio cs/txn pgbench
  awk '{ printf "%-20s %7d %-20s | %10.0f %6.2f | %10.1f %6.2f | %7.2f %7.2f\n", $1, $2, $3, $5, $5 / $4, $7, $7 / $6, $9, $8 }' "$out/floors"
  echo "(ratios to pgbench's medians in the same repetitions)"
fi
echo
echo "goals (client CPU per transaction at most ${goal}x pgbench's; measured on a shared machine when the load above is high)"
awk -v g="$goal" '{ cpu = $6 / $5; tps = $4 / $3
       printf "%-20s %3d clients: CPU/txn <= %sx pgbench  %5.2fx  %-3s   TPS >= 1x pgbench  %5.2fx  %-3s",
         $1, $2, g, cpu, (cpu <= g ? "yes" : "no"), tps, (tps >= 1 ? "yes" : "no")
       if ($7 != "-") printf "   floor %5.2fx pgbench", $7 / $5
       printf "\n" }' "$out/medians"
echo "(floor: bench/floor.c's CPU per transaction over pgbench's; above ${goal}x, no client making one"
echo " round trip per transaction can meet the ${goal}x goal on this machine)"

if [ "$starts" -gt 0 ]; then
  # start-up: one transaction, so the process's CPU is its start-up and exit
  : >"$out/start.pgbench" ; : >"$out/start.txnbench"
  TIMEFORMAT='%U %S'
  for rep in $(seq "$starts"); do
    for tool in pgbench txnbench; do
      cmd=("$pgbench" -n -c 1 -t 1 -S -M prepared "$url")
      [ "$tool" = txnbench ] && cmd=("$bin" pgbench "${cmd[@]:1}" --telemetry off)
      { time "${cmd[@]}" >"$out/start-$tool-$rep.log" 2>&1; } 2>"$out/start-$tool-$rep.time" ||
        { echo "start-up run failed: see $out/start-$tool-$rep.log" >&2; exit 1; }
      awk '{ printf "%.1f\n", ($1 + $2) * 1e3 }' "$out/start-$tool-$rep.time" >>"$out/start.$tool"
    done
  done
  sp=$(median <"$out/start.pgbench") st=$(median <"$out/start.txnbench")
  echo
  awk -v p="$sp" -v t="$st" -v n="$starts" 'BEGIN {
    printf "start-up (-c 1 -t 1 -S -M prepared, CPU ms, median of %d interleaved): pgbench %.1f  txnbench %.1f  %.2fx  (goal <= 2x: %s)\n",
      n, p, t, t / p, (t <= 2 * p ? "yes" : "no") }'
fi
echo "# raw runs in $out"
