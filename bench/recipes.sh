#!/usr/bin/env bash
# recipes.sh: runs the seed studies as txnbench commands and regenerates
# docs/recipes.md from bench/recipes.md.in: each "@recipe NAME" line of the
# template becomes the recipe's command and what txnbench printed, pasted
# verbatim (its headings moved two levels down); "@generated" says which
# mode, machine and versions produced the page; "{{vs ...}}" and "@limits"
# are filled from the recipes' study.json by bench/recipes-page.py, the only
# way the page's prose may say which cell did better (the template is
# checked for direction words before anything runs). Every run's files stay in
# bench/out/recipes-DATE/NAME (study.md, study.json, one JSON per run).
#
#   bash bench/recipes.sh                  the real runs (about 40 minutes on 2 cores)
#   RECIPES_QUICK=1 bash bench/recipes.sh  short runs, small scales and fewer repetitions, about 15 minutes:
#                                          checks the recipes; not numbers to read
#   bash bench/recipes.sh NAME...          only these recipes; the page goes to the
#                                          out directory, docs/recipes.md is left alone
#   RECIPES_OUT=bench/out/recipes-DATE bash bench/recipes.sh
#                                          go on with an earlier run's directory: only the
#                                          recipes it has no result of run, then the page
#   RECIPES_OUT=bench/out/recipes-DATE RECIPES_PAGE_ONLY=1 bash bench/recipes.sh
#                                          only the page, from that directory: a recipe
#                                          it has no result of says it was not run
#   RECIPES_SECTION=1 bash bench/recipes.sh NAME...
#                                          only these recipes, and in docs/recipes.md only
#                                          the sections ("## ...") of the template that hold
#                                          them are written again, each saying when and on
#                                          what it was; the rest of the page is left as it was
#
# A recipe that fails is marked in the page (its exit status and the last
# lines it printed on stderr) and the script goes on with the next.
set -uo pipefail
cd "$(dirname "$0")/.."

# Durations, clients and scales: the real mode is what the page shows.
if [ -n "${RECIPES_QUICK:-}" ]; then
  mode="quick mode (\`RECIPES_QUICK=1\`: short runs and small scales, to check the recipes; the numbers are not to be read)"
  short=2s normal=5s matrix_clients=16 ladder=2,4,8 scale=1 rung=3s ramp=4s compared=2s reps=2
  fleet=8s fleet_fault=3s:kill-pooler:2s wf_ladder=1,4,8 fleet_fault_direct=3s:terminate-backends
else
  mode="real mode"
  short=10s normal=20s matrix_clients=64 ladder=4,8,16,32,64 scale=10 rung=30s ramp=5s compared=10s reps=3
  fleet=40s fleet_fault=15s:kill-pooler:10s wf_ladder=1,4,8,16,32 fleet_fault_direct=15s:terminate-backends
fi

# The recipes, in the page's order: NAME, then txnbench's arguments
# (without --out, which the script adds).
names=()
declare -A args
recipe() { names+=("$1"); local n=$1; shift; args[$n]="$*"; }
recipe seed000-matrix study train-events --db temp-postgres --clients "$matrix_clients" --duration "$compared" --repeat "$reps" \
  --vary via=direct,pgbouncer --vary variant=jsonb,manual,text
recipe seed000-rtt study train-events --db temp-postgres --variant text --clients "$matrix_clients" --duration "$compared" --repeat "$reps" \
  --network rtt=2ms --vary via=direct,pgbouncer
recipe seed001-pg study connect-overhead --db temp-postgres --clients 1 --duration "$short" \
  --vary conn=per-txn,pool --vary query=select1,point,complex
recipe seed001-sqlite study connect-overhead --clients 1 --duration "$short" \
  --vary conn=per-txn,pool --vary query=select1,point,complex
recipe seed001-db study connect-overhead --clients 1 --duration "$short" \
  --vary db=sqlite:,temp-postgres --vary conn=per-txn,pool
recipe pg-versions study connect-overhead --clients 1 --duration "$short" \
  --vary db=temp-postgres@15,temp-postgres@16,temp-postgres@17 --vary conn=per-txn,session
recipe engines-connect study connect-overhead --clients 1 --duration "$short" \
  --vary db=temp-postgres,temp-mariadb --vary conn=per-txn,pool
recipe engines-train study train-events --clients 8 --duration "$normal" \
  --vary db=temp-postgres,temp-mariadb,sqlite:
recipe capacity-rate capacity train-events --db temp-postgres --variant text --slo "'add.p99<=100ms'" --slo "'errors<=0.1%'" \
  --from 5 --duration 5s --settle 1s --repeat 1 --max-steps 6
recipe capacity-clients capacity script -b tpcb-like --db temp-postgres --by clients --slo "'tpcb-like.p95<=50ms'" --slo "'errors<=0.1%'" \
  --duration 5s --settle 1s --repeat 1 --max-steps 6
recipe seed002-ladder study script --db temp-postgres -f examples/scripts/wd01.sql@3 -f examples/scripts/wd02.sql@1 \
  --scale "$scale" --duration "$rung" --vary clients="$ladder"
recipe train-ladder study train-events --db temp-postgres --variant text --duration "$rung" --vary clients="$ladder"
recipe seed003-workflow suite run examples/workflow-baseline.toml --tier smoke
recipe seed003-ladder study workflow --db temp-postgres --signal-workers 8 --duration "$rung" --vary clients="$wf_ladder"
recipe workflow-wake study workflow --db temp-postgres --clients 16 --signal-workers 8 --duration "$normal" \
  --vary wake=notify,poll
recipe workflow-poll study workflow --db temp-postgres --clients 16 --signal-workers 8 --wake poll --duration "$normal" \
  --vary poll-interval=10ms,50ms,200ms
recipe workflow-sqlite study workflow --clients 4 --signal-workers 4 --duration "$normal" --vary poll-interval=10ms,50ms
recipe seed000-fleet study train-events --db temp-postgres --via pgbouncer --clients 16 --rate 40 --duration "$fleet" \
  --fault "$fleet_fault" --vary poolers=1,2
recipe seed000-fleet-direct study train-events --db temp-postgres --clients 16 --rate 40 --duration "$fleet" \
  --vary fault="$fleet_fault_direct"
recipe replication-failover suite run examples/replication.toml --tier failover
recipe seed004-per-txn study connect-overhead --db temp-postgres --query point --conn per-txn \
  --clients 20 --duration "$compared" --repeat "$reps" --vary via=direct,pgbouncer
recipe seed004-per-txn-rtt study connect-overhead --db temp-postgres --query point --conn per-txn \
  --clients 20 --duration "$compared" --repeat "$reps" --network rtt=2ms --vary via=direct,pgbouncer
recipe seed004-persistent study connect-overhead --db temp-postgres --query point \
  --clients 80 --duration "$compared" --repeat "$reps" --vary via=direct,pgbouncer
recipe seed004-1000 study connect-overhead --db temp-postgres --pg-conf max_connections=100 --query select1 \
  --clients 1000 --ramp "$ramp" --duration "$compared" --repeat "$reps" --vary via=direct,pgbouncer

python3 bench/recipes-page.py check bench/recipes.md.in || exit 1

sel=("$@")
for s in "${sel[@]}"; do
  [ -n "${args[$s]+x}" ] || { echo "unknown recipe $s: choose from ${names[*]}" >&2; exit 2; }
done
has() { [ ${#sel[@]} -eq 0 ] && return 0; for s in "${sel[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

out=${RECIPES_OUT:-bench/out/recipes-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
bin=$out/txnbench
go build -o "$bin" ./cmd/txnbench || exit 1
version=$(git describe --always --dirty 2>/dev/null || echo unknown)
started=$(date -u +"%Y-%m-%d %H:%M UTC")
if [ -f "$out/started" ]; then # an earlier run's directory: say both builds
  read -r first_version first_started <"$out/started"
  if [ -n "${RECIPES_PAGE_ONLY:-}" ]; then
    version="$first_version and later builds (the recipes ran over several; this page was written without running one)"
  elif [ "$first_version" != "$version" ]; then
    version="$first_version (recipes run since: $version)"
  fi
  started=$first_started
else
  echo "$version $started" >"$out/started"
fi

for name in "${names[@]}"; do
  has "$name" || continue
  [ -n "${RECIPES_PAGE_ONLY:-}" ] && continue
  [ -n "${RECIPES_OUT:-}" ] && [ ${#sel[@]} -eq 0 ] && [ -f "$out/$name.status" ] && continue # ran before
  echo "== $name: txnbench ${args[$name]}"
  t0=$SECONDS
  load0=$(cut -d' ' -f1 /proc/loadavg)
  # eval: a recipe's arguments may hold quotes for what the shell would
  # read (--slo "'p99<=50ms'" keeps the quotes in the command shown too)
  eval "\"\$bin\" ${args[$name]} --out \"\$out/\$name\"" >"$out/$name.md" 2>"$out/$name.log"
  code=$?
  echo "$code $((SECONDS - t0)) $load0 $(cut -d' ' -f1 /proc/loadavg)" >"$out/$name.status"
  echo "   exit $code, $((SECONDS - t0)) s"
done

# emit writes a recipe's part of the page.
emit() {
  local name=$1 code secs load0 load1
  if [ ! -f "$out/$name.status" ]; then
    printf '(recipe `%s` was not run this time.)\n' "$name"
    return
  fi
  read -r code secs load0 load1 <"$out/$name.status"
  printf '```sh\ntxnbench %s\n```\n\n' "${args[$name]}"
  if [ "$code" = 3 ]; then # exitcode.Invariants: the runs ran, and one found lost or corrupted data
    printf '**txnbench exited 3 after %s s: the runs completed, and the invariants of one were violated** (its `invariants: VIOLATED` below says which, and why).\n\n' "$secs"
  elif [ "$code" != 0 ]; then
    printf '**This recipe failed this time: txnbench exited %s after %s s.** The last lines it printed:\n\n```\n' "$code" "$secs"
    tail -n 5 "$out/$name.log"
    printf '```\n\n'
  fi
  sed -e '/./,$!d' -e 's/^#/###/' "$out/$name.md"
  if [ -n "$load1" ]; then
    printf '\n(Ran in %s s, the machine'"'"'s load average %s as it began and %s as it ended, on %s CPUs.)\n' "$secs" "$load0" "$load1" "$(nproc)"
  else
    printf '\n(Ran in %s s.)\n' "$secs"
  fi
}

# generated says what produced the page (or, given a command, a section
# written alone).
generated() {
  local cpu pg pgb
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
  pg=$(pg_config --version 2>/dev/null || ls -d /usr/lib/postgresql/*/ 2>/dev/null | head -n 1)
  pgb=$( (pgbouncer --version 2>/dev/null || /usr/sbin/pgbouncer --version 2>/dev/null) | head -n 1)
  printf 'Generated by `%s` in %s on %s: one machine with %s CPUs (%s), %s GB of memory, %s, %s, txnbench %s; the database, the pooler and txnbench all on that machine, its load average %s when the page was written (the runs share the cores with whatever else ran: each cell'"'"'s `limited by:` line says how much).\n' \
    "${1:-bash bench/recipes.sh}" "$mode" "$started" "$(nproc)" "${cpu:-unknown}" \
    "$(awk '/^MemTotal/ {printf "%.0f", $2 / 1048576}' /proc/meminfo)" \
    "${pg:-PostgreSQL (version unknown)}" "${pgb:-PgBouncer (version unknown)}" \
    "$version" "$(cut -d' ' -f1-3 /proc/loadavg | sed 's/ /, /g')"
}

page=docs/recipes.md
[ ${#sel[@]} -eq 0 ] || page=$out/recipes.md
if [ -n "${RECIPES_SECTION:-}" ] && [ ${#sel[@]} -eq 0 ]; then
  echo "RECIPES_SECTION=1 needs the recipes to write again: bash bench/recipes.sh NAME..." >&2
  exit 2
fi
{
  while IFS= read -r line; do
    case $line in
      "@recipe "*) emit "${line#@recipe }" ;;
      "@generated") generated ;;
      *) printf '%s\n' "$line" ;;
    esac
  done <bench/recipes.md.in
} | python3 bench/recipes-page.py fill "$out" >"$page.tmp" && mv "$page.tmp" "$page" || exit 1
if [ -n "${RECIPES_SECTION:-}" ]; then
  note="This section was written alone, apart from the rest of the page. $(generated "RECIPES_SECTION=1 bash bench/recipes.sh ${sel[*]}")"
  python3 bench/recipes-page.py splice docs/recipes.md bench/recipes.md.in "$note" "${sel[@]}" <"$page" >docs/recipes.md.tmp &&
    mv docs/recipes.md.tmp docs/recipes.md || exit 1
  page="$page, and its sections of ${sel[*]} into docs/recipes.md"
fi
echo "wrote $page; reports in $out"
