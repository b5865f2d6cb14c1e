# shellcheck shell=bash
# lib.sh: what the bench scripts share. Each sources it from the
# repository's root (`. bench/lib.sh`) after `set -euo pipefail`.

# build_txnbench PATH: builds the working tree into PATH and says from which
# commit.
build_txnbench() {
  go build -o "$1" ./cmd/txnbench
  echo "# built from $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!bench' || echo ' plus uncommitted changes')"
}

# use_txnbench OUT [BIN]: sets bin to BIN or, with none, builds the working
# tree into OUT/txnbench.
use_txnbench() {
  bin=${2:-}
  if [ -z "$bin" ]; then
    build_txnbench "$1/txnbench"
    bin=$1/txnbench
  fi
}

# use_txnbenches OUT [BIN...]: sets the array bins to the BINs (say,
# before and after a change) or, with none, builds the working tree into
# OUT/txnbench; and bin to the first.
use_txnbenches() {
  local out=$1
  shift
  bins=("$@")
  if [ ${#bins[@]} -eq 0 ]; then
    build_txnbench "$out/txnbench"
    bins=("$out/txnbench")
  fi
  bin=${bins[0]}
}

# new_out NAME: sets out to a new directory for this run's files,
# bench/out/NAME-DATE-PID.
new_out() {
  out=$PWD/bench/out/$1-$(date +%Y%m%d-%H%M%S)-$$
  mkdir -p "$out"
}

# say_machine: the machine the numbers come from, and its load now.
say_machine() {
  echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
}

# find_postgres: sets bindir to the newest installed PostgreSQL's binaries
# and as to what runs them as the postgres user (nothing unless root).
find_postgres() {
  bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  as=()
  if [ "$(id -u)" = 0 ]; then as=(runuser -u postgres --); fi
}

# start_postgres OUT PORT STOPMODE SETTINGS: a throwaway cluster in
# OUT/data (sets data) listening on 127.0.0.1:PORT and a socket in OUT, with
# SETTINGS ("-c name=value ..."), its log OUT/server.log; stopped with
# pg_ctl -m STOPMODE when the script exits. Needs find_postgres first.
start_postgres() {
  data=$1/data
  "${as[@]}" "$bindir/initdb" -D "$data" -A trust -U postgres >/dev/null
  "${as[@]}" "$bindir/pg_ctl" -D "$data" -l "$1/server.log" -w \
    -o "-p $2 -k $1 -c listen_addresses=127.0.0.1 $4" start >/dev/null
  trap '"${as[@]}" "$bindir/pg_ctl" -D "$data" -m '"$3"' stop >/dev/null 2>&1 || true' EXIT
}

# options "L=VAR ..." USAGE "$@": parses the script's options, each -L
# VALUE setting VAR (e.g. "r=repeats d=duration"); any other option prints
# "usage: SCRIPT USAGE" and exits 2. The operands start at $OPTIND: shift
# $((OPTIND - 1)) after it.
options() {
  local spec=$1 usage=$2 letters="" pair o
  shift 2
  for pair in $spec; do letters+=${pair%%=*}:; done
  OPTIND=1
  while getopts "$letters" o; do
    for pair in $spec; do
      if [ "$o" = "${pair%%=*}" ]; then
        printf -v "${pair#*=}" '%s' "$OPTARG"
        continue 2
      fi
    done
    echo "usage: $0 $usage" >&2
    exit 2
  done
}
