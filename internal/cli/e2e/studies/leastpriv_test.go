package studies

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestStudyAsNonSuperuser: a study by a role that may not reset the
// server's statistics (pg_stat_reset is for superusers) still runs, saying
// so once, and compares runs by their before/after snapshots.
func TestStudyAsNonSuperuser(t *testing.T) {
	t.Parallel()
	cl := testutil.Postgres(t)
	testutil.Exec(t, cl.URL(),
		"CREATE ROLE bench LOGIN PASSWORD 'bench-pw-1'",
		"CREATE DATABASE benchdb OWNER bench", // PostgreSQL 15: only the owner creates in public
	)
	url := fmt.Sprintf("postgres://bench:bench-pw-1@127.0.0.1:%d/benchdb?sslmode=disable", cl.Port())
	out := filepath.Join(t.TempDir(), "st")
	args := append([]string{"study", "train-events", "--db", url, "--vary", "variant=manual,text",
		"--iterations", "4", "--clients", "2", "--settle", "0s", "--out", out}, clitest.Quick...)
	stdout, stderr := clitest.MustRun(t, args...)
	if n := strings.Count(stderr, "cannot reset the server's statistics"); n != 1 {
		t.Errorf("the note appears %d times, want once:\n%s", n, stderr)
	}
	if !strings.Contains(stdout+stderr, "invariants: OK in every run") {
		t.Errorf("output:\n%s\n%s", stdout, stderr)
	}
}
