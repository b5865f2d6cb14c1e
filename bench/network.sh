#!/usr/bin/env bash
# network.sh: how near the round trip through --network comes to what was
# asked, on this machine, idle and under load. The tests hold only what the
# proxy controls (its hold by its own clock, TestNetworkRoundTrip); this
# measures what the clients got (docs/BENCHMARKS.md "Shaped networks").
#
#   bench/network.sh [-c "CLIENTS"] [-r "RTTS"] [-d DURATION] [BIN]
#
# For each asked round trip (default 0ms 500us 2ms 10ms) and each number of
# clients (default 1 and 80), one run of connect-overhead (session, point
# queries) on one temp-postgres behind the shaped proxy, DURATION long (5s):
# the asked rtt, the one measured before the run on an idle session, the
# median measured through the path during the window under the run's load,
# the proxy's hold by its clock, its CPU, the warning, and the limit.
# With no binary it builds the working tree.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

clients="1 80" rtts="0ms 500us 2ms 10ms" duration=5s
options "c=clients r=rtts d=duration" "[-c \"1 80\"] [-r \"0ms 500us 2ms 10ms\"] [-d 5s] [BIN]" "$@"
shift $((OPTIND - 1))
new_out network
use_txnbench "$out" "${1:-}"
say_machine
vary=$(for r in $rtts; do printf 'rtt=%s,' "$r"; done)
for c in $clients; do
  "$bin" study connect-overhead --db temp-postgres --clients "$c" --duration "$duration" --warmup 1s --settle 0s \
    --vary "network=${vary%,}" --out "$out/c$c" >"$out/c$c.log" 2>&1
done
printf '%-8s %-7s %10s %10s %14s %11s %10s  %s\n' clients asked "idle (ms)" "window (ms)" "proxy held (ms)" "proxy CPU" warning "limited by"
for c in $clients; do
  for f in "$out/c$c"/cell*-rep1.json; do
    python3 - "$c" "$f" <<'PY'
import json, sys
c, f = sys.argv[1], sys.argv[2]
r = json.load(open(f))
n, s = r["network"], r["measured_s"]
asked, idle, win = n["rtt_ms"], n["measured_rtt_ms"], n.get("window_rtt_ms", 0)
want = max(asked, idle)
warn = "yes" if win > 0 and (win > want * 1.2 or win < asked * 0.8) else "no"
cpu = "%.0f%%" % (100 * n.get("proxy_cpu_s", 0) / s) if s else "-"
print("%-8s %-7s %10.3f %10.3f %14.3f %11s %10s  %s" % (c, n["shape"].removeprefix("rtt="), idle, win, n.get("proxy_held_ms", 0), cpu, warn, r.get("limited_by", {}).get("line", "-")))
PY
  done
done
