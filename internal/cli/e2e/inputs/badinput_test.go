package inputs

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
)

// badInput is one command line txnbench must refuse: with exit status
// code (exitcode.Usage when 0) and one line on stderr that contains want.
// "{dir}" in args is the case's own directory, holding files.
type badInput struct {
	args  []string
	want  string
	code  int
	files map[string]string
	setup func(dir string) error // makes what files cannot (links, a sparse file), after them
}

// goodSuite is a valid suite file, for the cases that get its flags wrong.
const goodSuite = `name = "s"
[[scenario]]
name = "one"
workload = "train-events"
tiers = ["t"]
[scenario.flags]
db = "sqlite:"
duration = "1s"
`

// resultJSON is a valid saved result, edited by edit, as JSON.
func resultJSON(t *testing.T, edit func(map[string]any)) string {
	var d map[string]any
	clitest.ReadJSON(t, clitest.SampleRun(t), &d)
	edit(d)
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func badInputs(t *testing.T) []badInput {
	firstOp := func(d map[string]any) map[string]any { return d["ops"].([]any)[0].(map[string]any) }
	valid := resultJSON(t, func(map[string]any) {})
	noOps := resultJSON(t, func(d map[string]any) { d["ops"] = []any{} })
	negCount := resultJSON(t, func(d map[string]any) { firstOp(d)["count"] = -5 })
	negRetries := resultJSON(t, func(d map[string]any) { firstOp(d)["retries"] = -1 })
	negErrors := resultJSON(t, func(d map[string]any) { firstOp(d)["errors"] = map[string]any{"other": -3} })
	noHist := resultJSON(t, func(d map[string]any) { delete(firstOp(d), "histogram") })
	otherFormat := resultJSON(t, func(d map[string]any) { d["format"] = "something-else/1" })
	a := map[string]string{"a.json": valid}
	file := map[string]string{"file": "x"}
	cases := []badInput{
		// commands and workloads
		{args: []string{"frobnicate"}, want: "unknown command"},
		{args: []string{"run"}, want: "no workload given"},
		{args: []string{"run", "nosuch"}, want: `unknown workload "nosuch": choose one of `},
		{args: []string{"run", "-x"}, want: "no workload given"},
		{args: []string{"init"}, want: "no workload given"},
		{args: []string{"init", "nosuch"}, want: `unknown workload "nosuch"`},
		{args: []string{"version", "extra"}, want: "unknown command"},
		// run train-events: numbers
		{args: clitest.TrainEvents("--nosuch"), want: "unknown flag: --nosuch"},
		{args: clitest.TrainEvents("--clients", "0"), want: "--clients 0: give at least 1"},
		{args: clitest.TrainEvents("--clients", "-1"), want: "--clients -1: give at least 1"},
		{args: clitest.TrainEvents("--clients", "many"), want: "invalid argument"},
		{args: clitest.TrainEvents("--clients", "99999999999999999999"), want: "invalid argument"},
		{args: clitest.TrainEvents("--clients", "100000000"), want: "--clients 100000000 x --max-batch 100 needs about"},
		{args: clitest.TrainEvents("--clients", "100000", "--max-batch", "100000"), want: "this machine has"},
		{args: clitest.TrainEvents("--max-batch", "100000000"), want: "--clients 8 x --max-batch 100000000 needs about"},
		{args: clitest.TrainEvents("--min-batch", "0"), want: "--min-batch 0: give at least 1"},
		// --isolation: a level that is none, or that the engine lacks
		{args: clitest.TrainEvents("--isolation", "bogus"), want: `unknown --isolation "bogus": choose read-uncommitted, read-committed, repeatable-read or serializable`},
		{args: clitest.TrainEvents("--isolation", "read-committed"), want: "--isolation read-committed: SQLite runs every transaction SERIALIZABLE; give --isolation serializable or leave it out"},
		{args: []string{"run", "tpcc", "--db", "temp-postgres", "--isolation", "read-uncommitted"}, want: "--isolation read-uncommitted: PostgreSQL has no such level of its own; choose read-committed, repeatable-read, serializable"},
		{args: []string{"study", "train-events", "--db", "temp-mariadb", "--vary", "isolation=serializable,snapshot"}, want: `unknown --isolation "snapshot"`},
		{args: clitest.TrainEvents("--min-batch", "50", "--max-batch", "10"), want: "make min <= max"},
		{args: clitest.TrainEvents("--max-batch", "-1"), want: "make min <= max"},
		{args: clitest.TrainEvents("--rows", "lots"), want: "invalid argument"},
		{args: clitest.TrainEvents("--min-success", "NaN"), want: "--min-success NaN: give a percentage from 0 (off) to 100"},
		{args: clitest.TrainEvents("--rate", "1e12"), want: "--rate 1e+12 is more than one start per nanosecond"},
		{args: clitest.TrainEvents("--progress", "1ns"), want: "--progress 1ns: give at least 10ms"},
		{args: clitest.TrainEvents("--rate", "fast"), want: "invalid argument"},
		{args: clitest.TrainEvents("--iterations", "5", "--duration", "5s"), want: "--duration and --iterations both given: choose one"},
		{args: clitest.TrainEvents("--iterations", "0"), want: "neither --duration nor --iterations given"},
		{args: clitest.TrainEvents("--max-tries", "0"), want: "--max-tries 0: give at least 1"},
		{args: clitest.TrainEvents("--pool-max", "0", "--conn", "pool"), want: "--pool-max 0"},
		{args: clitest.TrainEvents("--conn", "pool", "--pool-min", "-1"), want: "--pool-min -1"},
		{args: clitest.TrainEvents("--conn", "pool", "--pool-min", "20", "--pool-max", "10"), want: "--pool-min 20"},
		{args: clitest.TrainEvents("--pgbouncer-pool-size", "0", "--via", "pgbouncer"), want: "--pgbouncer-pool-size 0"},
		{args: clitest.TrainEvents("--poolers", "0", "--via", "pgbouncer"), want: "--poolers 0: give 1 to 16"},
		{args: clitest.TrainEvents("--poolers", "17", "--via", "pgbouncer"), want: "--poolers 17: give 1 to 16"},
		{args: clitest.TrainEvents("--poolers", "2"), want: "--poolers needs --via pgbouncer"},
		{args: clitest.TrainEvents("--seed", "-1"), want: "invalid argument"},
		// run train-events: durations
		{args: clitest.TrainEvents("--duration", "5"), want: "missing unit"},
		{args: clitest.TrainEvents("--duration", "forever"), want: "invalid argument"},
		{args: clitest.TrainEvents("--duration", "9999999999h"), want: "invalid argument"},
		{args: clitest.TrainEvents("--think-min", "50ms", "--think-max", "10ms"), want: "make min <= max"},
		{args: clitest.TrainEvents("--warmup", "1s", "--iterations", "5"), want: "--warmup with --iterations"},
		{args: clitest.TrainEvents("--progress", "0s"), want: "--progress 0s"},
		{args: clitest.TrainEvents("--progress", "-1s"), want: "--progress -1s"},
		{args: clitest.TrainEvents("--conn", "pool", "--pool-lifetime", "-1s"), want: "must not be negative"},
		{args: clitest.TrainEvents("--telemetry-sample", "0s"), want: "--telemetry-sample 0s"},
		// run train-events: choices
		{args: clitest.TrainEvents("--variant", "bogus"), want: `unknown --variant "bogus": choose one of jsonb, manual, text`},
		{args: clitest.TrainEvents("--payload", "xml"), want: "--payload"},
		{args: clitest.TrainEvents("--flat-columns", "sideways"), want: `unknown --flat-columns "sideways"`},
		{args: clitest.TrainEvents("--inverted-index=maybe"), want: "invalid argument"},
		{args: clitest.TrainEvents("--conn", "bogus"), want: `unknown --conn "bogus"`},
		{args: clitest.TrainEvents("--via", "bogus"), want: `unknown --via "bogus"`},
		{args: clitest.TrainEvents("--via", "pgbouncer", "--pool-mode", "bogus"), want: `unknown --pool-mode "bogus"`},
		{args: clitest.TrainEvents("--telemetry", "maybe"), want: `unknown --telemetry "maybe": choose on or off`},
		{args: clitest.TrainEvents("--metrics-addr", "nonsense"), want: "--metrics-addr"},
		{args: clitest.TrainEvents("--metrics-addr", "127.0.0.1:99999"), want: "--metrics-addr"},
		// run train-events: URLs and targets
		{args: clitest.TrainEvents("--db", ""), want: "--db is empty"},
		{args: []string{"init", "train-events", "--db", ""}, want: "--db is empty"},
		{args: clitest.TrainEvents("--db", "mongodb://x"), want: `unknown --db "mongodb://x"`},
		{args: clitest.TrainEvents("--db", "/tmp/x.db"), want: `unknown --db "/tmp/x.db"`},
		{args: clitest.TrainEvents("--db", "postgres://u:hunter22@[::1/db"), want: "malformed database URL"},
		{args: clitest.TrainEvents("--db", "postgres://u:hunter22@127.0.0.1:notaport/db"), want: "malformed database URL"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--pg-conf", "nonsense"), want: "want key=value"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--pg-conf", "=1"), want: "want key=value"},
		{args: clitest.TrainEvents("--pg-conf", "work_mem=1MB"), want: "only applies to --db temp-postgres"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--via", "postgres://u@127.0.0.1/db"), want: "cannot front a throwaway server"},
		{args: clitest.TrainEvents("--db", "postgres://u:pw@127.0.0.1:1/db", "--seed", "1", "--shards", "0"), want: "--shards 0: give how many shards the run has, 1 or more"},
		// --replicas, --replication
		{args: clitest.TrainEvents("--db", "temp-postgres", "--replicas", "-1"), want: "--replicas -1: give 1 to 8 standbys, or 0 for one server"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--replicas", "9"), want: "--replicas 9: give 1 to 8"},
		{args: clitest.TrainEvents("--replicas", "1"), want: "standbys of SQLite, an embedded database, are not supported"},
		{args: clitest.TrainEvents("--db", "temp-mariadb", "--replicas", "1"), want: "use --db temp-postgres (standbys of temp-mariadb are not supported)"},
		{args: clitest.TrainEvents("--db", "postgres://u:secret@127.0.0.1:5/x", "--replicas", "1"), want: "(standbys of postgres://u:xxxxx@127.0.0.1:5/x are not supported)"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--replication", "sync"), want: "--replication sync with no standby to wait for: add --replicas 1"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--replicas", "1", "--replication", "quorum"), want: `unknown --replication "quorum": choose async, sync or sync-apply`},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--fault", "1s:failover"), want: "--fault failover and switchover promote a standby: add --replicas 1"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--fault", "1s:switchover"), want: "promote a standby: add --replicas 1"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--replicas", "1", "--fault", "1s:failover", "--fault", "3s:failover"), want: "2 failovers and switchovers with --replicas 1"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--replicas", "1", "--fault", "1s:failover:2s"), want: "failover takes no ARG"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--replicas", "1", "--fault", "1s:blackhole:1s"), want: "with --replicas: the fault proxy fronts one server"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--replicas", "1", "--network", "rtt=1ms"), want: "--network and --pooler-network with --replicas"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--replicas", "1", "--pg-bin", "{dir}"), want: "--replicas makes each standby with pg_basebackup, which {dir} lacks", setup: fakePostgresBin},
		{args: []string{"study", "train-events", "--db", "temp-postgres", "--replicas", "2", "--via", "pgbouncer", "--fault", "5s:failover", "--vary", "poolers=1,2"}, want: "cells poolers=1 and poolers=2 share one primary and its standbys, and poolers=1 fails it over"},
		{args: []string{"study", "train-events", "--db", "temp-postgres", "--replicas", "2", "--vary", "replication=async,sync", "--vary", "fault=5s:switchover,5s:kill-server"}, want: "and replication=async fault=5s:switchover fails it over"},
		{args: []string{"study", "train-events", "--db", "temp-postgres", "--replicas", "2", "--fault", "5s:failover", "--vary", "replication=async,sync", "--repeat", "2"}, want: "--fault failover or switchover with --repeat 2"},
		{args: []string{"capacity", "train-events", "--db", "temp-postgres", "--replicas", "1", "--fault", "5s:failover", "--by", "clients", "--slo", "cycle.p99<=1s"}, want: "--fault failover or switchover in a capacity search"},
		// --read-from
		{args: clitest.TrainEvents("--db", "temp-postgres", "--replicas", "1", "--read-from", "bogus"), want: `--read-from "bogus": choose primary, replicas or any`},
		{args: []string{"run", "script", "-b", "ycsb-c", "--db", "temp-postgres", "--read-from", "replicas"}, want: "--read-from replicas reads from standbys: add --replicas 1 (or more) with --db temp-postgres"},
		{args: []string{"run", "script", "-b", "ycsb-c", "--read-from", "any"}, want: "--read-from any reads from standbys: add --replicas 1"},
		{args: []string{"run", "script", "-b", "ycsb-c", "--db", "temp-mariadb", "--read-from", "replicas"}, want: "--read-from replicas reads from standbys: add --replicas 1"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--replicas", "1", "--read-from", "replicas"), want: "--read-from replicas: train-events declares no read-only transaction"},
		{args: []string{"run", "script", "-b", "ycsb-b", "--db", "temp-postgres", "--replicas", "1", "--read-from", "any"}, want: "script declares no read-only transaction to send to a standby (see docs/replication.md: script's read-only builtins, e.g. -b ycsb-read@95 -b ycsb-update@5 for YCSB-B)"},
		{args: []string{"run", "script", "-b", "ycsb-read", "--db", "temp-postgres", "--replicas", "1", "--read-from", "replicas", "--via", "pgbouncer"}, want: "--read-from replicas with --via pgbouncer: txnbench's PgBouncers front the primary only, so the reads would bypass them; drop --via pgbouncer"},
		{args: []string{"study", "script", "-b", "ycsb-read", "--db", "temp-postgres", "--via", "pgbouncer", "--read-from", "any", "--vary", "replicas=0,1"}, want: "--read-from any with --via pgbouncer"},
		// --fault
		{args: clitest.TrainEvents("--fault", "bogus"), want: "want AT:KIND[:ARG]"},
		{args: clitest.TrainEvents("--fault", "x:kill-server"), want: `AT "x" is not a duration`},
		{args: clitest.TrainEvents("--fault", "1s:explode"), want: `unknown fault "explode": choose one of kill-server, `},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--fault", "1s:hang-server"), want: "hang-server needs how long it lasts"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--fault", "1s:hang-server:soon"), want: `the time it lasts "soon" is not a duration`},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--fault", "1s:restart-server:2s"), want: "restart-server takes no ARG"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--fault", "1s:latency:0s"), want: "latency of 0s does nothing"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--fault", "1s:latency:5ms/x"), want: `the time it lasts "x" is not a duration`},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--duration", "10s", "--fault", "10s:kill-server"), want: "not inside the 10s window"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--duration", "10s", "--fault", "8s:blackhole:5s"), want: "ends at 13s, after the 10s window"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--iterations", "10", "--fault", "1s:reset"), want: "--fault with --iterations"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--duration", "10s", "--fault", "3s:blackhole:3s", "--fault", "4s:blackhole:1s"), want: "--fault 4s:blackhole:1s starts while --fault 3s:blackhole:3s is going on (until 6s): one fault at a time"},
		{args: clitest.TrainEvents("--db", "postgres://u:hunter22@127.0.0.1/db", "--fault", "1s:kill-server"), want: "acts on a server txnbench started: use --db temp-postgres"},
		{args: clitest.TrainEvents("--db", "temp-postgres", "--fault", "1s:kill-pooler"), want: "acts on a PgBouncer txnbench started: add --via pgbouncer"},
		{args: clitest.TrainEvents("--fault", "1s:terminate-backends"), want: "needs a database server"},
		{args: clitest.TrainEvents("--fault", "1s:latency:5ms"), want: "which an embedded database has not"},
		{args: clitest.TrainEvents("--db", "postgres://u@/db?host=/run/postgresql", "--fault", "1s:reset"), want: "give host:port in the URL (not a Unix socket or several hosts)"},
		{args: []string{"study", "train-events", "--db", "temp-postgres", "--vary", "fault=1s:kill-server,1s:bogus"}, want: `unknown fault "bogus"`},
		{args: []string{"init", "train-events", "--db", "temp-postgres"}, want: "would be thrown away"},
		{args: []string{"init", "train-events", "--clients", "4"}, want: "unknown flag: --clients"},
		{args: []string{"init", "train-events", "--rows", "-1"}, want: "--rows -1 is negative"},
		// run: output paths
		{args: clitest.TrainEvents("--json", "/nonexistent/dir/r.json"), want: "directory /nonexistent/dir does not exist"},
		{args: clitest.TrainEvents("--json", "{dir}"), want: "is a directory"},
		{args: clitest.TrainEvents("--json", "{dir}/file/r.json"), want: "does not exist", files: file},
		{args: clitest.TrainEvents("--json", "/proc/r.json"), want: "cannot write in /proc"},
		{args: clitest.TrainEvents("--json", "/dev/null"), want: "--json /dev/null is not a regular file"},
		{args: []string{"report", "{dir}/a.json", "--json", "/dev/null"}, want: "is not a regular file", files: map[string]string{"a.json": "{}"}},
		{args: clitest.TrainEvents("--html", "{dir}"), want: "--html {dir} is a directory"},
		{args: clitest.TrainEvents("--html", "/nonexistent/r.html"), want: "directory /nonexistent does not exist"},
		{args: clitest.TrainEvents("--cpu-profile", "{dir}"), want: "--cpu-profile {dir} is a directory"},
		{args: clitest.TrainEvents("--cpu-profile", "/nonexistent/cpu.out"), want: "does not exist"},
		// run script and connect-overhead
		{args: []string{"run", "script", "-f", "{dir}/missing.sql"}, want: "missing.sql"},
		{args: []string{"run", "script", "-f", "{dir}/bad.sql"}, want: "bad.sql", files: map[string]string{"bad.sql": "\\set\n"}},
		{args: []string{"run", "script", "-f", "{dir}/empty.sql"}, want: "empty.sql", files: map[string]string{"empty.sql": ""}},
		{args: []string{"run", "script", "-b", "nosuch"}, want: "nosuch"},
		{args: []string{"run", "script", "-b", "tpcb-like@-1"}, want: "weight"},
		{args: []string{"run", "script", "-b", "tpcb-like", "-D", "noequals"}, want: "noequals"},
		{args: []string{"run", "script", "-b", "tpcb-like", "-M", "bogus"}, want: "bogus"},
		{args: []string{"run", "script", "--rate", "NaN"}, want: "--rate NaN"},
		{args: []string{"run", "script", "-b", "tpcb-like", "--clients", "100000000"}, want: "--clients 100000000 needs about"},
		{args: []string{"run", "connect-overhead", "--query", "bogus"}, want: "bogus"},
		{args: []string{"run", "connect-overhead", "--rows", "-1"}, want: "--rows -1"},
		{args: []string{"run", "connect-overhead", "--delay", "-1s"}, want: "--delay -1s"},
		// study (TestStudyBadInput has more)
		{args: []string{"study", "nosuch", "--vary", "clients=1,2"}, want: `unknown workload "nosuch"`},
		{args: []string{"study", "train-events", "--vary", "clients=1,0"}, want: "--clients 0"},
		{args: []string{"study", "train-events", "--vary", "rate=1,NaN"}, want: "--rate NaN"},
		{args: []string{"study", "train-events", "--vary", "max-batch=10,100000000"}, want: "needs about"},
		{args: []string{"study", "train-events", "--vary", "clients=1,2", "--settle", "-1s"}, want: "--settle -1s is negative"},
		{args: []string{"study", "train-events", "--vary", "clients=1,2", "--db", ""}, want: "--db is empty"},
		{args: []string{"study", "train-events", "--vary", "clients=1,2", "--out", "{dir}/file"}, want: "--out {dir}/file is a file", files: file},
		{args: []string{"study", "train-events", "--vary", "clients=1,2", "--out", "{dir}/file/sub"}, want: "is a file, not a directory", files: file},
		{args: []string{"study", "train-events", "--vary", "clients=1,2", "--out", "/proc/study"}, want: "cannot write in /proc"},
		// suite
		{args: []string{"suite", "run"}, want: "suite run takes one argument, got 0: FILE, the suite file (TOML or YAML)"},
		{args: []string{"suite", "run", "{dir}/missing.toml", "--tier", "t"}, want: "missing.toml"},
		{args: []string{"suite", "list", "{dir}/missing.toml"}, want: "missing.toml"},
		{args: []string{"suite", "run", "{dir}/bad.toml", "--tier", "t"}, want: "bad.toml", files: map[string]string{"bad.toml": "not toml [[["}},
		{args: []string{"suite", "run", "{dir}/s.toml"}, want: "no --tier given", files: map[string]string{"s.toml": goodSuite}},
		{args: []string{"suite", "run", "{dir}/s.toml", "--tier", "nosuch"}, want: `no scenario is in tier "nosuch"`, files: map[string]string{"s.toml": goodSuite}},
		{args: []string{"suite", "run", "{dir}/s.toml", "--tier", "t", "--out", "{dir}/file"}, want: "--out {dir}/file is a file", files: map[string]string{"s.toml": goodSuite, "file": "x"}},
		{args: []string{"suite", "run", "{dir}/s.toml", "--tier", "t", "--out", "/proc/suite"}, want: "cannot write in /proc", files: map[string]string{"s.toml": goodSuite}},
		{args: []string{"suite", "run", "{dir}/s.toml", "--tier", "t"}, want: "--clients -1", files: map[string]string{"s.toml": goodSuite + "clients = -1\n"}},
		{args: []string{"suite", "run", "{dir}/s.toml", "--tier", "t"}, want: "--rate NaN", files: map[string]string{"s.toml": goodSuite + "rate = \"NaN\"\n"}},
		{args: []string{"suite", "run", "{dir}/s.toml", "--tier", "t"}, want: "nosuch", files: map[string]string{"s.toml": strings.Replace(goodSuite, `"train-events"`, `"nosuch"`, 1)}},
		{args: []string{"suite", "run", "{dir}/s.toml", "--tier", "t"}, want: "json", files: map[string]string{"s.toml": goodSuite + "json = \"x.json\"\n"}},
		// report
		{args: []string{"report"}, want: "no result files given"},
		{args: []string{"report", "{dir}/missing.json"}, want: "missing.json"},
		{args: []string{"report", "{dir}/garbage.json"}, want: "is not a txnbench result", files: map[string]string{"garbage.json": "not json"}},
		{args: []string{"report", "{dir}/empty.json"}, want: "is not a txnbench result", files: map[string]string{"empty.json": ""}},
		{args: []string{"report", "{dir}/other.json"}, want: "something-else/1", files: map[string]string{"other.json": otherFormat}},
		{args: []string{"report", "{dir}/noops.json"}, want: "{dir}/noops.json: holds no ops", files: map[string]string{"noops.json": noOps}},
		{args: []string{"report", "{dir}/neg.json"}, want: "{dir}/neg.json: op add has a negative count (-5)", files: map[string]string{"neg.json": negCount}},
		{args: []string{"report", "{dir}/neg.json"}, want: "negative retries", files: map[string]string{"neg.json": negRetries}},
		{args: []string{"report", "{dir}/neg.json"}, want: "negative count of other errors", files: map[string]string{"neg.json": negErrors}},
		{args: []string{"report", "{dir}/nohist.json"}, want: "has no histogram", files: map[string]string{"nohist.json": noHist}},
		{args: []string{"report", "{dir}/a.json", "--json", "{dir}"}, want: "--json {dir} is a directory", files: a},
		{args: []string{"report", "{dir}/a.json", "--json", "/nonexistent/m.json"}, want: "does not exist", files: a},
		{args: []string{"report", "{dir}/a.json", "--html", "{dir}"}, want: "--html {dir} is a directory", files: a},
		{args: []string{"report", "{dir}/a.json", "--html", "/proc/r.html"}, want: "cannot write in /proc", files: a},
		{args: []string{"report", "{dir}/a.json", "--nosuch"}, want: "unknown flag", files: a},
		// diff
		{args: []string{"diff"}, want: "diff takes two arguments"},
		{args: []string{"diff", "{dir}/a.json"}, want: "diff takes two arguments", files: a},
		{args: []string{"diff", "{dir}/a.json", "{dir}/a.json", "{dir}/a.json"}, want: "got 3", files: a},
		{args: []string{"diff", "{dir}/missing.json", "{dir}/a.json"}, want: "BASE: {dir}/missing.json", files: a},
		{args: []string{"diff", "{dir}/a.json", "{dir}/garbage.json"}, want: "NEW:", files: map[string]string{"a.json": valid, "garbage.json": "{"}},
		{args: []string{"diff", "{dir}/noops.json", "{dir}/a.json"}, want: "BASE: {dir}/noops.json: holds no ops", files: map[string]string{"a.json": valid, "noops.json": noOps}},
		{args: []string{"diff", "{dir}/a.json", "{dir}/neg.json"}, want: "NEW: {dir}/neg.json: op add has a negative count", files: map[string]string{"a.json": valid, "neg.json": negCount}},
		{args: []string{"diff", "{dir}/a.json", "{dir}/a.json", "--threshold", "NaN"}, want: "--threshold NaN: give a finite number", files: a},
		{args: []string{"diff", "{dir}/a.json", "{dir}/a.json", "--threshold", "+Inf"}, want: "--threshold +Inf: give a finite number", files: a},
		{args: []string{"diff", "{dir}/a.json", "{dir}/a.json", "--threshold", "-5"}, want: "--threshold -5", files: a},
		{args: []string{"diff", "{dir}/a.json", "{dir}/a.json", "--threshold", "lots"}, want: "invalid argument", files: a},
		{args: []string{"diff", "{dir}/a.json", "{dir}/a.json", "--json", "{dir}"}, want: "--json {dir} is a directory", files: a},
		{args: []string{"diff", "{dir}/a.json", "{dir}/a.json", "--json", "/nonexistent/d.json"}, want: "does not exist", files: a},
		{args: []string{"diff", "{dir}", "{dir}/a.json"}, want: "BASE", files: a},
		// pgbench (pgbench's own exit status 1 for bad options)
		{args: []string{"pgbench", "-c", "0"}, want: "-c/--clients must be in range", code: exitcode.Failure},
		{args: []string{"pgbench", "--isolation", "bogus"}, want: `unknown --isolation "bogus"`, code: exitcode.Failure},
		{args: []string{"pgbench", "--db", "sqlite:{dir}/x.db", "--isolation", "repeatable-read"}, want: "SQLite runs every transaction SERIALIZABLE", code: exitcode.Failure},
		{args: []string{"pgbench", "-c", "100000000"}, want: "need at least 100000003 open files", code: exitcode.Failure},
		{args: []string{"pgbench", "-j", "0"}, want: "-j/--jobs must be in range", code: exitcode.Failure},
		{args: []string{"pgbench", "-t", "-1"}, want: "-t/--transactions must be in range", code: exitcode.Failure},
		{args: []string{"pgbench", "-T", "0"}, want: "-T/--time must be in range", code: exitcode.Failure},
		{args: []string{"pgbench", "-T", "5", "-t", "5"}, want: "specify either", code: exitcode.Failure},
		{args: []string{"pgbench", "-R", "NaN"}, want: "invalid rate limit", code: exitcode.Failure},
		{args: []string{"pgbench", "-R", "-1"}, want: "invalid rate limit", code: exitcode.Failure},
		{args: []string{"pgbench", "-R", "1e12"}, want: "more than one start per nanosecond", code: exitcode.Failure},
		{args: []string{"pgbench", "-L", "0"}, want: "invalid latency limit", code: exitcode.Failure},
		{args: []string{"pgbench", "-M", "bogus"}, want: "invalid query mode", code: exitcode.Failure},
		{args: []string{"pgbench", "-b", "nosuch"}, want: "nosuch", code: exitcode.Failure},
		{args: []string{"pgbench", "-f", "{dir}/missing.sql"}, want: "missing.sql", code: exitcode.Failure},
		{args: []string{"pgbench", "-f", "{dir}/bad.sql"}, want: "bad.sql", code: exitcode.Failure, files: map[string]string{"bad.sql": "\\set\n"}},
		{args: []string{"pgbench", "-D", "noequals"}, want: "noequals", code: exitcode.Failure},
		{args: []string{"pgbench", "--random-seed", "bogus"}, want: "bogus", code: exitcode.Failure},
		{args: []string{"pgbench", "--sampling-rate", "2", "-l"}, want: "invalid sampling rate", code: exitcode.Failure},
		{args: []string{"pgbench", "--aggregate-interval", "5"}, want: "log aggregation", code: exitcode.Failure},
		{args: []string{"pgbench", "-i", "-s", "0"}, want: "scale", code: exitcode.Failure},
		{args: []string{"pgbench", "-i", "-F", "5"}, want: "fillfactor", code: exitcode.Failure},
		{args: []string{"pgbench", "-i", "-c", "4"}, want: "cannot be used in initialization", code: exitcode.Failure},
		{args: []string{"pgbench", "--json", "{dir}"}, want: "--json {dir} is a directory", code: exitcode.Failure},
		{args: []string{"pgbench", "--json", "/nonexistent/p.json"}, want: "does not exist", code: exitcode.Failure},
		{args: []string{"pgbench", "-l", "--log-prefix", "/nonexistent/log"}, want: "No such file or directory", code: exitcode.Failure},
		{args: []string{"pgbench", "-l", "--log-prefix", "/proc/log"}, want: "could not open logfile \"/proc/log.", code: exitcode.Failure},
		{args: []string{"pgbench", "--db", ""}, want: "--db is empty", code: exitcode.Failure},
		{args: []string{"pgbench", "--nosuch"}, want: "unrecognized option", code: exitcode.Failure},
		{args: []string{"pgbench", "a", "b"}, want: "too many command-line arguments", code: exitcode.Failure},
	}
	// run train-events: a number or duration that must not be negative, a rate that must be finite
	for _, fv := range [][2]string{{"--rows", "-5"}, {"--rate", "-1"}, {"--iterations", "-1"}, {"--duration", "-1s"}, {"--delay", "-1s"}, {"--think-min", "-1ms"}, {"--ramp", "-1s"}, {"--warmup", "-1s"}, {"--latency-limit", "-1ms"}} {
		cases = append(cases, badInput{args: clitest.TrainEvents(fv[0], fv[1]), want: fv[0] + " " + fv[1] + " is negative"})
	}
	for _, v := range []string{"NaN", "+Inf", "-Inf"} {
		cases = append(cases, badInput{args: clitest.TrainEvents("--rate", v), want: "--rate " + v + ": give a finite number"})
	}
	return cases
}

// TestBadInputIsRefused runs the real binary on every bad input: each is
// refused with its exit status and one line naming the fix (pgbench's
// emulation: pgbench-style lines), no stack trace, nothing printed on
// stdout, and nothing left behind: no process, no temporary directory, no
// file beside the case's own.
func TestBadInputIsRefused(t *testing.T) {
	cases := append(append(append(badInputs(t), inputEdges(t)...), lateRefusals()...), anomalyInputs()...)
	if len(cases) < 100 {
		t.Fatalf("%d cases, want at least 100", len(cases))
	}
	for _, c := range cases {
		c := c
		name := strings.ReplaceAll(strings.Join(c.args, " "), "/", ":") // a slash would nest subtests
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, tmp := t.TempDir(), t.TempDir()
			for f, content := range c.files {
				testutil.WriteFile(t, dir, f, content)
			}
			if c.setup != nil {
				if err := c.setup(dir); err != nil {
					t.Fatal(err)
				}
			}
			given, _ := os.ReadDir(dir)
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "{dir}", dir)
			}
			want := strings.ReplaceAll(c.want, "{dir}", dir)
			code := c.code
			if code == 0 {
				code = exitcode.Usage
			}
			// A refusal takes milliseconds; the deadline only keeps an input
			// that is not refused (it runs) from hanging the test.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], args...)
			cmd.Env = append(os.Environ(), "TXNBENCH_CLI_MAIN=1", "TMPDIR="+tmp)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group: anything it started is found
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if got := clitest.Exited(t, cmd); got != code {
				t.Errorf("exit %d, want %d (stderr %q)", got, code, stderr.String())
			}
			errText := stderr.String()
			if !strings.Contains(errText, want) {
				t.Errorf("stderr %q does not say %q", errText, want)
			}
			lines := strings.Split(strings.TrimRight(errText, "\n"), "\n")
			if c.args[0] == "pgbench" { // its error, then maybe pgbench's detail, hint or list
				if !strings.HasPrefix(lines[0], "pgbench: ") {
					t.Errorf("not a pgbench-style error: %q", errText)
				}
			} else if len(lines) != 1 || !strings.HasPrefix(lines[0], "txnbench: ") {
				t.Errorf("want one line starting txnbench:, got %q", errText)
			}
			if strings.Contains(errText, "goroutine") || strings.Contains(errText, "panic") {
				t.Errorf("stack trace: %q", errText)
			}
			if strings.Contains(errText+stdout.String(), "hunter22") {
				t.Errorf("password printed: %q", errText)
			}
			if stdout.Len() > 0 {
				t.Errorf("printed on stdout: %q", stdout.String())
			}
			if err := syscall.Kill(-cmd.Process.Pid, 0); err != syscall.ESRCH {
				t.Errorf("a process of its group is left (kill 0: %v)", err)
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR: %v", names(left))
			}
			left, _ := os.ReadDir(dir)
			var extra []string
			for _, e := range left {
				if !slices.ContainsFunc(given, func(g os.DirEntry) bool { return g.Name() == e.Name() }) {
					extra = append(extra, e.Name())
				}
			}
			if len(extra) > 0 {
				t.Errorf("left beside the input files: %v", extra)
			}
			for f, content := range c.files {
				if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(b) != content {
					t.Errorf("input %s changed (%v)", f, err)
				}
			}
		})
	}
}

func names(es []os.DirEntry) []string {
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	sort.Strings(n)
	return n
}

// fakePostgresBin puts an initdb and a postgres in dir, executables that
// are none, as an installation without pg_basebackup: enough for the
// checks made before anything starts.
func fakePostgresBin(dir string) error {
	for _, name := range []string{"initdb", "postgres"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			return err
		}
	}
	return nil
}
