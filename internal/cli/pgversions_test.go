package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestPgBinCellsNamedByVersion: --vary pg-bin=DIR1,DIR2 names each cell by
// its server's version, not its directory, and a directory without a
// server is refused before anything starts.
func TestPgBinCellsNamedByVersion(t *testing.T) {
	majors, dirs := testutil.PostgresVersions(t, 2)
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
