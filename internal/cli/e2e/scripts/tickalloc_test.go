package scripts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
)

// TestScriptTicksAllocateLittle: progress ticks every 10 ms add little to
// what a transaction of a script of many commands allocates (SQLite's
// driver alone allocates about 10 KB): the runner puts every interval
// histogram at rest, the script commands' too (which the result does not
// keep), so a tick reuses the counts of the last one. Until issue 18 each
// tick allocated a 190 KB counts array per op and command and a zlib
// compressor per op: 30-50 KB more per transaction here (27 KB with
// only the script commands' histograms left out), over 2 MB per tick.
func TestScriptTicksAllocateLittle(t *testing.T) {
	dir := t.TempDir()
	custom := filepath.Join(dir, "c.sql")
	script := "\\set x random(1, 1000)\n" + strings.Repeat("SELECT :x;\n", 10)
	if err := os.WriteFile(custom, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	type run struct{ perTxnKB, txns, intervals float64 }
	measure := func(progress string) run {
		out := filepath.Join(dir, progress+".json")
		clitest.MustRun(t, "run", "script", "-f", custom, "--db", "sqlite:"+filepath.Join(dir, progress+".db"),
			"--clients", "2", "--warmup", "300ms", "--duration", "1s", "--progress", progress, "--json", out)
		r := clitest.LoadResult(t, out)
		txns, _ := r.Transactions()
		if txns == 0 || r.Client.AllocPerTxnKB <= 0 || len(r.Intervals) == 0 {
			t.Fatalf("--progress %s: %d transactions, %d intervals, %.1f KB allocated each", progress, txns, len(r.Intervals), r.Client.AllocPerTxnKB)
		}
		t.Logf("--progress %s: %d transactions, %d intervals, %.1f KB allocated per transaction", progress, txns, len(r.Intervals), r.Client.AllocPerTxnKB)
		return run{r.Client.AllocPerTxnKB, float64(txns), float64(len(r.Intervals))}
	}
	quiet, ticking := measure("1h"), measure("10ms")
	// What the ticks add, per tick: a figure of the code, not of how many
	// transactions this machine fits between two ticks (the 190 KB per op
	// and command of before made it over 2 MB).
	perTick := (ticking.perTxnKB - quiet.perTxnKB) * ticking.txns / ticking.intervals
	if perTick > 400 {
		t.Errorf("a tick every 10 ms adds %.0f KB per tick (%.1f KB per transaction against %.1f with one tick); want at most 400", perTick, ticking.perTxnKB, quiet.perTxnKB)
	}
}
