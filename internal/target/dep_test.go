package target_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDriversStayInTheirPackages keeps each driver library behind its
// driver package: only internal/target/pg (and localdb, for its admin
// needs) imports pgx, only internal/target/sqlite imports modernc.org/sqlite, only
// internal/target/mysql imports github.com/go-sql-driver/mysql.
// It reads the packages' own imports (tests excluded), so packages above
// target reach the drivers only through target's interfaces.
func TestDriversStayInTheirPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	allowed := map[string][]string{
		"github.com/jackc/pgx":           {"internal/target/pg", "internal/localdb"},
		"modernc.org/sqlite":             {"internal/target/sqlite"},
		"github.com/go-sql-driver/mysql": {"internal/target/mysql"},
	}
	const mod = "github.com/txnbench/txnbench/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		for _, imp := range f[1:] {
			for lib, pkgs := range allowed {
				if imp != lib && !strings.HasPrefix(imp, lib+"/") {
					continue
				}
				ok := false
				for _, p := range pkgs {
					ok = ok || pkg == p
				}
				if !ok {
					t.Errorf("%s imports %s: only %v may; go through target's interfaces", pkg, imp, pkgs)
				}
			}
		}
	}
}
