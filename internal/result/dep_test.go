package result_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoDrivers keeps the packages that read, compare and show results
// away from the database drivers: they must build (and a tool made of them
// must link) without pgx, SQLite, the targets or the local servers, as
// cockroach's pkg/workload/dep_test.go does for its packages.
func TestNoDrivers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	pkgs := []string{"result", "report", "diff", "study", "suite", "live"}
	forbidden := []string{
		"github.com/jackc/pgx",
		"modernc.org/sqlite",
		"github.com/txnbench/txnbench/internal/target",
		"github.com/txnbench/txnbench/internal/localdb",
	}
	for _, p := range pkgs {
		out, err := exec.Command("go", "list", "-deps", "github.com/txnbench/txnbench/internal/"+p).Output()
		if err != nil {
			t.Fatalf("go list -deps internal/%s: %v", p, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") {
					t.Errorf("internal/%s depends on %s: give it result's types instead of the drivers'", p, dep)
				}
			}
		}
	}
}
