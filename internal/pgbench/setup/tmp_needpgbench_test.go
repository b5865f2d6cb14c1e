package setup_test

import (
	"os/exec"
	"testing"
)

// TEMPORARY until testutil.NeedPgbench lands.
func needPgbench(t testing.TB) string {
	p, err := exec.LookPath("pgbench")
	if err != nil {
		t.Skip("no pgbench")
	}
	return p
}
