package emulate

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/target"
)

// TestPgbenchMeasuresOnlyWhatItShows: `txnbench pgbench` measures each
// command's latency only when -r or --json shows it, as pgbench times
// commands only for -r, and keeps the slowest runs only for --json
// (issue 40: two clock reads and a latency record per command, and a
// heap per op, otherwise): without them the commands' rows record no
// latency, with either they record one per command run.
func TestPgbenchMeasuresOnlyWhatItShows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args        []string
		timed, slow bool
	}{
		{nil, false, false},
		{[]string{"-r"}, true, false},
		{[]string{"--json", filepath.Join(dir, "r.json")}, true, true},
	} {
		o := newPgbenchOpts(pgbench17)
		if err := o.parse(append([]string{"-n", "-S", "-t", "7", "--telemetry", "off"}, c.args...)); err != nil {
			t.Fatal(err)
		}
		o.w.NoAutoInit = false // SQLite in a temporary file: make the tables
		db, err := target.ParseSpec("sqlite:" + filepath.Join(dir, "t.db"))
		if err != nil {
			t.Fatal(err)
		}
		e := &emulator{}
		spec := job.Spec{DB: db, Name: "script", Workload: o.w, Runner: e.runnerConfig(o, newRetryTally(1))}
		spec.Telemetry.Off = true
		d, err := job.Open(context.Background(), spec, spec.ServerConnections())
		if err != nil {
			t.Fatal(err)
		}
		r, err := job.Run(context.Background(), spec, d)
		d.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := len(r.SlowOps) > 0; got != c.slow {
			t.Errorf("%q: slowest runs kept %v, want %v", c.args, got, c.slow)
		}
		steps := o.w.Steps()
		if len(steps) != 2 { // \set aid, SELECT
			t.Fatalf("%q: steps %v", c.args, steps)
		}
		for _, st := range steps {
			want := int64(0)
			if c.timed {
				want = 7
			}
			if op := r.Op(st.Name); op == nil || op.Count != want {
				t.Errorf("%q: command %q recorded %v, want %d latencies", c.args, st.Name, op, want)
			}
		}
	}
}
