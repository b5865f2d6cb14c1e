package pgbenchscript

import (
	"slices"
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

// TestReadOnlyOps: the read-only builtins are declared read-only (ycsb-c
// twice, under both its names), a script file and the writing builtins
// are not, and the stale-read count is kept only with ycsb-read.
func TestReadOnlyOps(t *testing.T) {
	file := testutil.WriteFile(t, t.TempDir(), "select.sql", "SELECT 1;\n")
	w := New()
	if err := workload.Parse(w, "-b", "ycsb-read@5", "-b", "ycsb-update@1", "-b", "ycsb-c", "-b", "ycsb-c", "-b", "ycsb-b", "-b", "select-only", "-f", file); err != nil {
		t.Fatal(err)
	}
	if got, want := workload.ReadOnly(w), []string{"ycsb-read", "ycsb-c", "ycsb-c#2", "select-only"}; !slices.Equal(got, want) {
		t.Errorf("read-only ops %v, want %v", got, want)
	}
	if _, _, _, ok := w.StaleReads(); !ok {
		t.Error("stale reads not counted with ycsb-read")
	}
	w = New()
	if err := workload.Parse(w, "-b", "ycsb-c"); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := w.StaleReads(); ok {
		t.Error("stale reads counted without ycsb-read")
	}
}
