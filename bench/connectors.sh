#!/usr/bin/env bash
# connectors.sh: what each connector (--conn session, per-txn, pool) costs
# txnbench itself, and whether a pool of 64 connections carries 10,000
# clients on a 2-core machine: client CPU per transaction, per new connection
# and per pool acquire, peak memory, throughput and the connect / pool_wait
# medians, all with connect-overhead --query select1 on a throwaway
# PostgreSQL.
#
#   bench/connectors.sh [-r REPEATS] [-d DURATION] [-c CLIENTS] [-p POOL_MAX]
#                       [-D SCALE_DURATION] [-n SCALE_CLIENTS] [-s "conn scale"] [BIN_A [BIN_B]]
#
# Part "conn": CLIENTS clients (16) with session, per-txn and pool (POOL_MAX
# connections, default CLIENTS, so nobody waits and pool minus session is
# the acquire and release alone). Part "scale": session with 64 clients,
# pool with 64 clients over 64 connections, pool with SCALE_CLIENTS (10000)
# over 64 connections, 10 s ramp inside a 10 s warm-up; the server gets
# max_connections=200 in all three so it is the same server (left alone,
# temp-postgres sizes it for 10,020 connections). Runs are interleaved
# (A B C A B C ...), medians are printed. Every run also writes a CPU profile:
# the CPU spent inside the pool's Get and Put (pgxpool Acquire and Release)
# divided by the pool's acquires is the second measure of the acquire cost.
# With no binary it builds the working tree. With two binaries (before and
# after a change) every cell runs A then B in each repetition, and each
# summary line is printed for both, so both see the same machine noise.
# Targets (issue 3, and issue 18 for the waiters): peak memory < 300 MB and
# acquire overhead < 2 us of CPU with 10,000 clients over 64 connections.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

repeats=3 duration=20s clients=16 poolmax="" sduration=30s sclients=10000 parts="conn scale"
options "r=repeats d=duration c=clients p=poolmax D=sduration n=sclients s=parts" "[-r repeats] [-d duration] [-c clients] [-p pool-max] [-D scale-duration] [-n scale-clients] [-s \"conn scale\"] [BIN_A [BIN_B]]" "$@"
shift $((OPTIND - 1))
poolmax=${poolmax:-$clients}

new_out connectors
use_txnbenches "$out" "$@"

common=(run connect-overhead --query select1 --rows 0 --db temp-postgres --progress 1h)
# cell NAME ARGS...: one run per binary; NAME is part-cell, written to $out/bI-NAME-rREP.json
cell() {
  local name=$1 f i
  shift
  for i in "${!bins[@]}"; do
    f="$out/b$i-$name-r$rep.json"
    "${bins[$i]}" "${common[@]}" --seed "$rep" --json "$f" --cpu-profile "$f.prof" "$@" >/dev/null 2>"$f.log" ||
      { echo "run failed: see $f.log" >&2; exit 1; }
    # the profile's functions with their cumulative CPU, for the breakdown
    go tool pprof -top -cum -unit=ms -nodefraction=0 -nodecount=100000 "${bins[$i]}" "$f.prof" >"$f.top" 2>/dev/null
  done
}

say_machine
for i in "${!bins[@]}"; do echo "# binary $i: ${bins[$i]}: $("${bins[$i]}" version)"; done
echo "# conn: $clients clients, pool-max $poolmax, $duration + 5s warm-up; scale: $sclients clients, $sduration + 10s warm-up; $repeats repeats, interleaved"
scale=(--duration "$sduration" --warmup 10s --ramp 10s --pg-conf max_connections=200)
for rep in $(seq 1 "$repeats"); do
  for part in $parts; do
    case $part in
      conn)
        for conn in session per-txn pool; do
          cell "conn-$conn" --conn "$conn" --pool-max "$poolmax" --clients "$clients" --duration "$duration" --warmup 5s
        done ;;
      scale)
        cell scale-session64 --conn session --clients 64 "${scale[@]}"
        cell scale-pool64 --conn pool --pool-max 64 --clients 64 "${scale[@]}"
        cell "scale-pool$sclients" --conn pool --pool-max 64 --clients "$sclients" "${scale[@]}" ;;
      *) echo "unknown part $part: choose conn, scale" >&2; exit 2 ;;
    esac
  done
done
echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$out" <<'PY'
import json, glob, os, re, statistics, sys
out = sys.argv[1]
T = "github.com/txnbench/txnbench/internal/"
# the pool handle's methods: value receivers before issue 18's gate, pointer ones after
GETS = [T + "connect.poolHandle.Get", T + "connect.(*poolHandle).Get"]
PUTS = [T + "connect.poolHandle.Put", T + "connect.(*poolHandle).Put"]
PARTS = {  # where the client's CPU goes, by cumulative profile samples
    "query": [T + "workload/connectoverhead.(*client).query"],  # the SELECT 1 round trip
    "  write(2)": ["syscall.write", T + "target/pg.(*rawConn).Write"],  # raw system calls since issue 4
    "Get": GETS + [T + "connect.perTxnHandle.Get", T + "connect.(*sessionHandle).Get"],
    "Put": PUTS + [T + "connect.perTxnHandle.Put", T + "connect.(*sessionHandle).Put"],
    "record": [T + "metrics.(*Recorder).Record"],
    "GC": ["runtime.gcBgMarkWorker", "runtime.gcAssistAlloc"],
    "scheduler": ["runtime.mcall"],
}
runs = {}
for f in sorted(glob.glob(os.path.join(out, "*.json"))):
    b, part, cell, rep = re.match(r"b(\d+)-(\w+)-(.+)-r(\d+)\.json$", os.path.basename(f)).groups()
    r = json.load(open(f))
    txns = sum(o["count"] for o in r["ops"] if not o.get("kind"))
    wait = next(o for o in r["ops"] if o.get("kind") == "wait")
    errs = sum(sum(o.get("errors", {}).values()) for o in r["ops"])
    c = r["client"]
    cpu = c["cpu_user_s"] + c["cpu_sys_s"]
    top = open(f + ".top").read()
    prof_ms = float(re.search(r"Total samples = ([\d.]+)ms", top).group(1))
    cum = {l.split()[-1]: float(l.split()[3][:-2]) for l in top.splitlines()
           if len(l.split()) >= 6 and l.split()[3].endswith("ms")}
    # CPU per transaction in each part of the profile: its share of the
    # samples times the measured CPU per transaction
    share = lambda *names: sum(cum.get(n, 0) for n in names) / prof_ms * cpu * 1e6 / txns
    parts = {k: share(*v) for k, v in PARTS.items()}
    get_ms, put_ms = sum(cum.get(n, 0) for n in GETS), sum(cum.get(n, 0) for n in PUTS)
    acq = r["pool"]["acquires"] if r.get("pool") else 0
    runs.setdefault((int(b), part, cell), []).append(dict(
        cpu=cpu * 1e6 / txns, user=c["cpu_user_s"] * 1e6 / txns, sys=c["cpu_sys_s"] * 1e6 / txns,
        tps=txns / r["measured_s"], wname=wait["name"], wn=wait["count"], w50=wait["p50_ms"],
        p50=next(o["p50_ms"] for o in r["ops"] if not o.get("kind")),
        peak=c["max_rss_mb"], alloc=c.get("alloc_per_txn_kb", 0), errs=errs,
        prof=(get_ms + put_ms) * 1e3 / acq if acq else None, parts=parts))
med = {}
def m(xs, k):
    v = [x[k] for x in xs if x[k] is not None]
    return statistics.median(v) if v else None
print(f"\n{'bin':>3} {'cell':18} {'cpu/txn us':>10} {'user/sys us':>11} {'spread':>11} {'txn/s':>8} {'txn p50 ms':>10} "
      f"{'wait':>9} {'waits':>8} {'wait p50 ms':>11} {'alloc KB':>8} {'peak MB':>7} {'errors':>6}  (medians of {max(len(v) for v in runs.values())})")
order = ["session", "per-txn", "pool", "session64", "pool64"]
key = lambda bpc: (bpc[1], order.index(bpc[2]) if bpc[2] in order else 9, bpc[0])
for (b, part, cell), xs in sorted(runs.items(), key=lambda kv: key(kv[0])):
    d = {k: m(xs, k) for k in ("cpu", "user", "sys", "tps", "wn", "w50", "p50", "peak", "alloc", "errs", "prof")}
    med[(b, part, cell)] = d
    lo, hi = min(x["cpu"] for x in xs), max(x["cpu"] for x in xs)
    w50 = f"{d['w50']:11.3f}" if d["wn"] else f"{'-':>11}"
    print(f"{b:3} {part + ' ' + cell:18} {d['cpu']:10.2f} {d['user']:5.2f}/{d['sys']:5.2f} {lo:5.1f}-{hi:5.1f} {d['tps']:8.0f} {d['p50']:10.3f} "
          f"{xs[0]['wname']:>9} {d['wn']:8.0f} {w50} {d['alloc']:8.2f} {d['peak']:7.0f} {d['errs']:6.0f}")

print("\nwhere the CPU per transaction goes (us; CPU profile share x measured CPU per transaction; medians):")
print("Get and Put are the connector's (connect / acquire, close / release); GC and the scheduler can overlap")
print("the other rows when they run inside a client's allocation or park")
cells = sorted(runs, key=key)
print(f"{'':12}" + "".join(f"{f'{b} {p} {c}':>17}" for b, p, c in cells))
for k in PARTS:
    print(f"{k:12}" + "".join(f"{statistics.median(x['parts'][k] for x in runs[pc]):17.2f}" for pc in cells))

for b in sorted({b for b, _, _ in med}):
    def get(part, cell, k="cpu", b=b):
        d = med.get((b, part, cell))
        return None if d is None else d[k]
    print(f"\nbinary {b}:")
    s, t, p = get("conn", "session"), get("conn", "per-txn"), get("conn", "pool")
    if None not in (s, t, p):
        print(f"conn: per-txn minus session = {t - s:.1f} us of client CPU per new connection (per-txn/session {t / s:.1f}x)")
        print(f"conn: pool minus session    = {p - s:.2f} us per acquire (pool/session {p / s:.2f}); "
              f"in the profile, pool Get+Put = {get('conn', 'pool', 'prof'):.2f} us per acquire")
    big = [c for (bb, pt, c) in med if bb == b and pt == "scale" and c.startswith("pool") and c != "pool64"]
    s64, p64 = get("scale", "session64"), get("scale", "pool64")
    if s64 is not None and p64 is not None:
        print(f"scale: pool64 minus session64 = {p64 - s64:.2f} us per acquire, nobody waiting "
              f"(profile: Get+Put {get('scale', 'pool64', 'prof'):.2f} us)")
    for c in big:
        pb = get("scale", c)
        print(f"scale: {c} minus session64 = {pb - s64:.2f} us per acquire with waiters "
              f"(profile: Get+Put {get('scale', c, 'prof'):.2f} us); {c} minus pool64 = {pb - p64:.2f} us for waiting")
        peak, errs = get("scale", c, "peak"), get("scale", c, "errs")
        met = lambda ok: "met" if ok else "NOT met"
        pr = get("scale", c, "prof")
        print(f"scale: {c} peak memory {peak:.0f} MB (target < 300: {met(peak < 300)}); acquire overhead "
              f"{pb - s64:.2f} us by difference ({met(pb - s64 < 2)}), {pr:.2f} us inside Get+Put ({met(pr < 2)}) "
              f"(target < 2); errors {errs:.0f}")
PY
echo "# raw results (JSON, logs, CPU profiles) in $out"
