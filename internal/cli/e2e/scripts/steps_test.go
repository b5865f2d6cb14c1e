package scripts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/result"
)

// TestScriptStatementsExcludeWarmup: a script's statement rows (-r) are
// recorded by the runner in the measured window, so with --warmup each
// command counts exactly the transactions of the window (those completed
// after it included), not those of the warm-up too.
func TestScriptStatementsExcludeWarmup(t *testing.T) {
	dir := t.TempDir()
	custom := filepath.Join(dir, "c.sql")
	if err := os.WriteFile(custom, []byte("\\set x random(1, 1000)\nSELECT :x;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	clitest.MustRun(t, "run", "script", "-f", custom, "--db", "sqlite:"+filepath.Join(dir, "c.db"),
		"--clients", "2", "--warmup", "300ms", "--duration", "300ms", "--json", out)
	r := clitest.LoadResult(t, out)
	op := r.Op("c.sql")
	if op == nil || op.Count == 0 {
		t.Fatalf("no transactions of c.sql in %+v", r.Ops)
	}
	var stmts int
	for _, o := range r.Ops {
		if o.Kind != result.KindStatement {
			continue
		}
		stmts++
		if !strings.HasPrefix(o.Name, "c.sql") {
			t.Errorf("statement %q is not of c.sql", o.Name)
		}
		if got, want := o.Count+o.AfterWindow, op.Count+op.AfterWindow; got != want {
			t.Errorf("statement %q counts %d, want the window's %d transactions", o.Name, got, want)
		}
	}
	if stmts != 2 {
		t.Errorf("%d statement rows, want 2", stmts)
	}
}
