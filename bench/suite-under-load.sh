#!/usr/bin/env bash
# suite-under-load.sh: the README's test command, `go test -count=1 ./...`,
# on a machine kept busy, as a developer's laptop is while it runs the
# tests (issue 26): two processes spinning per core, and two decoys that
# are not the tests' own, one named postgres (its command line naming a
# txnbench cluster directory that does not exist, as another run's server
# being stopped does) and one named pgbouncer. It prints each package's
# time, the slowest tests, and the overall result; it exits with go test's
# status. Load and decoys are removed on exit, however it ends.
#
#   bench/suite-under-load.sh [-s SPINNERS_PER_CORE] [-q] [PACKAGES...] [-- GO_TEST_FLAGS...]
#
#   -s N   spinning processes per core (default 2; 0 with -q)
#   -q     quiet: no spinners and no decoys (the quiet machine's figures)
#   PACKAGES  default ./...
#
# CI defaults to true, so a test whose server binary is missing fails
# instead of skipping (a skipped test would look fast). go test's own
# per-package timeout (10 minutes) applies unless GO_TEST_FLAGS give
# -timeout. The go test -json stream is kept in bench/out/ for per-test
# times. Results go to docs/BENCHMARKS.md, "Issue 26".
set -uo pipefail
cd "$(dirname "$0")/.."

# The go test flags after "--" are set aside first: getopts would take
# the "--" as the end of its options and leave the flags as packages.
flags=()
args=("$@")
for i in "${!args[@]}"; do
  if [ "${args[$i]}" = "--" ]; then
    flags=("${args[@]:i+1}")
    set -- "${args[@]:0:i}"
    break
  fi
done

per_core=2 quiet=""
while getopts "s:q" o; do
  case $o in
    s) per_core=$OPTARG ;;
    q) quiet=1 per_core=0 ;;
    *) sed -n '2,20p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
pkgs=("$@")
[ ${#pkgs[@]} -eq 0 ] && pkgs=(./...)
export CI="${CI:-true}"

mkdir -p bench/out
stamp=$(date -u +%Y%m%dT%H%M%SZ)
json="bench/out/suite-under-load-$stamp.json"
scratch=$(mktemp -d)
pids=()

cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cores=$(nproc)
spinners=$((cores * per_core))
for ((i = 0; i < spinners; i++)); do
  sh -c 'while :; do :; done' &
  pids+=($!)
done

if [ -z "$quiet" ]; then
  # Decoys: copies of bash named postgres and pgbouncer, whose argv[0] and
  # process name (comm) say so, each blocked reading a FIFO nobody writes.
  mkfifo "$scratch/fifo"
  cp "$(command -v bash)" "$scratch/postgres"
  cp "$(command -v bash)" "$scratch/pgbouncer"
  decoy_dir="${TMPDIR:-/tmp}/txnbench-pg-999999999"
  # shellcheck disable=SC2016 # $0 is the decoy's, not ours
  (exec -a postgres "$scratch/postgres" -c 'exec 3<>"$0"; read -r -u 3 _' "$scratch/fifo" \
    -D "$decoy_dir/data" -p 5432) &
  pids+=($!)
  # shellcheck disable=SC2016
  (exec -a pgbouncer "$scratch/pgbouncer" -c 'exec 3<>"$0"; read -r -u 3 _' "$scratch/fifo" \
    "$decoy_dir/pgbouncer.ini") &
  pids+=($!)
fi

echo "== $(date -u '+%F %T') UTC, $cores cores: $spinners spinning processes$([ -z "$quiet" ] && echo ", decoys postgres and pgbouncer"), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== CI=$CI go test -count=1 ${flags[*]} ${pkgs[*]}   (stream: $json)"
start=$(date +%s)
# In the background, so that an interrupt reaches the trap at once (bash
# runs traps only between commands; wait is one it interrupts).
go test -count=1 -json "${flags[@]}" "${pkgs[@]}" >"$json" 2>"$json.stderr" &
gotest=$!
pids+=("$gotest")
wait "$gotest"
status=$?
wall=$(($(date +%s) - start))

# go test -json's fields come in a fixed order: Time, Action, Package,
# Test, Elapsed. A package's own pass/fail/skip has no Test.
field() { sed -n "s/.*\"$1\":\(\"[^\"]*\"\|[0-9.]*\).*/\1/p" | tr -d '"'; }
echo
echo "== packages (seconds, slowest first)"
grep -E '"Action":"(pass|fail|skip)"' "$json" | grep -v '"Test":' | while read -r line; do
  printf '%8.1f  %-4s  %s\n' "$(field Elapsed <<<"$line")" "$(field Action <<<"$line")" "$(field Package <<<"$line")"
done | sort -rn
echo
echo "== slowest tests (seconds; a parent includes its subtests)"
grep -E '"Action":"(pass|fail)"' "$json" | grep '"Test":' | grep -v '"Test":"[^"]*/' | while read -r line; do
  printf '%8.1f  %-4s  %s %s\n' "$(field Elapsed <<<"$line")" "$(field Action <<<"$line")" "$(field Package <<<"$line" | sed 's|.*/internal/|internal/|')" "$(field Test <<<"$line")"
done | sort -rn | head -15
failed=$(grep '"Action":"fail"' "$json" | grep '"Test":' | while read -r line; do echo "  $(field Package <<<"$line") $(field Test <<<"$line")"; done)
if [ -s "$json.stderr" ]; then
  echo
  echo "== go test's stderr"
  cat "$json.stderr"
fi
echo
if [ $status -eq 0 ]; then
  echo "== PASS in ${wall}s, load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
else
  echo "== FAIL (go test exit $status) in ${wall}s, load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
  [ -n "$failed" ] && echo "failed:" && echo "$failed"
  echo "output of the failed tests: grep '\"Action\":\"output\"' $json"
fi
exit $status
