package studies

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"

	"github.com/txnbench/txnbench/internal/localdb"
)

// TestPostgresVersions: one study through the real binary runs the quick
// workload on temp-postgres@15, @16 and @17, each cell named by its
// server's version, each with invariants OK and the database counters and
// statement times its telemetry reads on that version (pg_stat_statements'
// columns and pg_stat_database's differ between versions).
func TestPostgresVersions(t *testing.T) {
	t.Parallel()
	majors, _ := testutil.PostgresVersions(t, 1)
	var dbs []string
	for _, m := range majors {
		dbs = append(dbs, "temp-postgres@"+m)
	}
	out := filepath.Join(t.TempDir(), "st")
	cmd, stdout, stderr := clitest.Start(t, "study", "connect-overhead", "--vary", "db="+strings.Join(dbs, ","),
		"--rows", "200", "--clients", "2", "--iterations", "300", "--settle", "0s", "--out", out)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("study: %v\n%s\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stdout.String(), "invariants: OK") {
		t.Errorf("no invariants: OK:\n%s", stdout)
	}
	s := clitest.ReadStudy(t, out)
	if len(s.Cells) != len(majors) {
		t.Fatalf("%d cells, want %d", len(s.Cells), len(majors))
	}
	for i, c := range s.Cells {
		m := majors[i]
		if !strings.HasPrefix(c.Label, "pg "+m+".") {
			t.Errorf("cell %d is named %q, want its server's version pg %s.x", i, c.Label, m)
		}
		if !strings.Contains(stdout.String(), c.Label) {
			t.Errorf("the tables do not name cell %q:\n%s", c.Label, stdout)
		}
		if !c.InvariantsOK || len(c.Results) != 1 {
			t.Errorf("cell %s: invariants OK %v, results %v", c.Label, c.InvariantsOK, c.Results)
			continue
		}
		r := clitest.LoadResult(t, filepath.Join(out, filepath.Base(c.Results[0])))
		if !strings.HasPrefix(r.Server.Version, m+".") {
			t.Errorf("cell %s ran on PostgreSQL %q", c.Label, r.Server.Version)
		}
		if r.Telemetry == nil {
			t.Errorf("PostgreSQL %s: no telemetry", m)
			continue
		}
		for _, k := range []string{"xact_commit", "blks_hit", "tup_returned", "wal_bytes"} {
			if _, ok := r.Telemetry.Database[k]; !ok {
				t.Errorf("PostgreSQL %s: telemetry lacks %s: %v (notes %q)", m, k, r.Telemetry.Database, r.Telemetry.Notes)
			}
		}
		if len(r.Telemetry.Statements) == 0 {
			t.Errorf("PostgreSQL %s: no statement times (notes %q)", m, r.Telemetry.Notes)
		}
		for _, n := range r.Telemetry.Notes {
			if strings.Contains(n, "no database telemetry") || strings.Contains(n, "no statement times") {
				t.Errorf("PostgreSQL %s: %s", m, n)
			}
		}
	}
}

// TestPostgresVersionNotFound: temp-postgres@V of a version not installed
// is refused before any work, in one line listing the versions found.
func TestPostgresVersionNotFound(t *testing.T) {
	majors, _ := testutil.PostgresVersions(t, 1)
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := clitest.Run("run", "connect-overhead", "--db", "temp-postgres@3", "--json", out)
	if code != exitcode.Usage || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("exit %d, want %d in one line: %q", code, exitcode.Usage, stderr)
	}
	for _, m := range majors {
		if !strings.Contains(stderr, " "+m+".") {
			t.Errorf("the error does not list the installed %s.x: %q", m, stderr)
		}
	}
	if !strings.Contains(stderr, localdb.PGDirsEnv) || strings.Contains(stdout+stderr, "ready on") {
		t.Errorf("the error names no fix or something started: %q %q", stdout, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused run left %s", out)
	}
	code, _, stderr = clitest.Run("run", "connect-overhead", "--db", "temp-postgres@"+majors[0], "--pg-bin", "/usr/bin")
	if code != exitcode.Usage || !strings.Contains(stderr, "give one of them") {
		t.Errorf("--pg-bin with temp-postgres@V: exit %d %q", code, stderr)
	}
}
