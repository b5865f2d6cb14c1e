package setup_test

import (
	"os"
	"os/exec"
	"testing"
)

// needPgbench stands in for testutil.NeedPgbench until it lands: the
// pgbench path; skips when it is missing, fails when CI is set.
func needPgbench(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("pgbench")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs pgbench: %v", err)
		}
		t.Skipf("pgbench missing: %v", err)
	}
	return p
}
