package outputs

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestFaultsInHTMLReport renders a saved result with faults: the text
// report has the faults table and its notes, and in Chromium every chart
// draws with the faults' lines on it.
func TestFaultsInHTMLReport(t *testing.T) {
	t.Parallel()
	chromium := testutil.NeedChromium(t)
	r := clitest.LoadResult(t, clitest.SampleRun(t))
	withTelemetry(r)
	first, tput, recs := 0.42, 1.3, int64(4)
	r.Faults = []result.Fault{
		{AtS: 1, Kind: "kill-server", Arg: "1s", Target: "server", Injected: true, LastedS: 1.6,
			Recovery: &result.Recovery{FirstOKS: &first, ThroughputS: &tput, BaselinePerS: 40, OutageS: 2.3,
				Errors: map[string]int64{"connection_lost": 7, "connect_refused": 3}, Reconnects: &recs, Invariants: "OK"}},
		{AtS: 2, Kind: "reset", Target: "network", Injected: true, Note: "4 connections reset",
			Recovery: &result.Recovery{Invariants: "OK", Note: "throughput baseline: the fault before's (less than 1 s since its outage ended)"}},
	}
	dir := t.TempDir()
	in, page := filepath.Join(dir, "faults.json"), filepath.Join(dir, "faults.html")
	if err := r.Save(in); err != nil {
		t.Fatal(err)
	}
	stdout, _ := clitest.MustRun(t, "report", in, "--html", page)
	plain.Contains(t, "report", stdout,
		"\nfaults\n", "kill-server:1s  server", "10 (connect_refused 3, connection_lost 7) in 2.3 s",
		"fault at 2.0 s (reset): 4 connections reset; throughput baseline",
	)
	n, dom := drawn(t, chromium, page, filepath.Join(testutil.Artifacts(t), "faults.png"))
	if want := report.ChartCount(r); n != want {
		t.Errorf("%d charts drawn, want %d", n, want)
	}
	if !strings.Contains(dom, `"marks":[{"x":1,"label":"kill-server:1s"},{"x":2,"label":"reset"}]`) || !strings.Contains(dom, "<h2>faults</h2>") {
		t.Error("the page lacks the faults' marks or table")
	}
}
