#!/usr/bin/env bash
# recipes.sh: runs the studies of docs/recipes.md (the seed studies as
# txnbench commands) and keeps their reports in bench/out/recipes-DATE/.
#   bench/recipes.sh [NAME...]     (default: all; names below)
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out/recipes-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
bin=$out/txnbench
go build -o "$bin" ./cmd/txnbench
run() { # name, then the txnbench arguments
  local name=$1; shift
  echo "== $name: txnbench $*"
  local t0=$SECONDS
  "$bin" "$@" --out "$out/$name" >"$out/$name.md" 2>"$out/$name.log" || echo "   exit $? (see $out/$name.log)"
  echo "   $((SECONDS - t0)) s"
}
sel=("$@")
has() { [ ${#sel[@]} -eq 0 ] && return 0; for s in "${sel[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

# Seed 004: PgBouncer vs direct connections.
has pgb-per-txn && run pgb-per-txn study connect-overhead --db temp-postgres --query point --conn per-txn \
  --clients 20 --duration 20s --vary via=direct,pgbouncer
has pgb-persistent && run pgb-persistent study connect-overhead --db temp-postgres --query point \
  --clients 80 --duration 20s --vary via=direct,pgbouncer
has pgb-1000 && run pgb-1000 study connect-overhead --db temp-postgres --pg-conf max_connections=100 --query select1 \
  --clients 1000 --ramp 5s --duration 20s --vary via=direct,pgbouncer
# Seed 001: connect-per-query vs pooled, PostgreSQL and SQLite.
has seed001-pg && run seed001-pg study connect-overhead --db temp-postgres --clients 1 --duration 10s \
  --vary conn=per-txn,pool --vary query=select1,point,complex
has seed001-sqlite && run seed001-sqlite study connect-overhead --clients 1 --duration 10s \
  --vary conn=per-txn,pool --vary query=select1,point,complex
# Seed 000: the train-events matrix, 3 variants x direct vs PgBouncer.
has train-matrix && run train-matrix study train-events --db temp-postgres --clients 64 --duration 60s \
  --vary via=direct,pgbouncer --vary variant=jsonb,manual,text
# Seed 002 / 003: a capacity ladder.
has ladder && run ladder study train-events --db temp-postgres --variant text --duration 30s \
  --vary clients=4,8,16,32,64
echo "reports in $out"
