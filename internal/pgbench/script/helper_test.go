package script

import (
	"os"
	"os/exec"
	"testing"
)

// needPgbench returns the path of the real pgbench, skipping the test when
// it is missing, unless CI is set: there a missing pgbench is a failure.
func needPgbench(t *testing.T) string {
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
