package outputs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/live/promtext"
)

// TestWorkflowPhasesPerInterval: a workflow run's phases are in every
// view over time, as ops are: the progress line, the saved intervals (of
// kind phase, adding up to the totals), the HTML charts over time and the
// live metrics, labelled kind="phase" in a valid exposition.
func TestWorkflowPhasesPerInterval(t *testing.T) {
	out, html := filepath.Join(t.TempDir(), "r.json"), filepath.Join(t.TempDir(), "r.html")
	url, stderr, code := startMain(t, "run", "workflow", "--db", "sqlite:"+filepath.Join(t.TempDir(), "w.db"),
		"--duration", "3s", "--progress", "1s", "--clients", "2", "--signal-workers", "2", "--poll-interval", "5ms",
		"--metrics-addr", "127.0.0.1:0", "--json", out, "--html", html)
	phaseOps := func(fams []promtext.Family) float64 {
		f := promtext.Find(fams, "txnbench_ops_total")
		if f == nil {
			return 0
		}
		for _, s := range f.Samples {
			if s.Label("op") == "signal_to_completion" && s.Label("kind") == "phase" {
				return s.Value
			}
		}
		return 0
	}
	var exit int
	scraped := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && !scraped; {
		select {
		case exit = <-code:
			t.Fatalf("exit %d before a scrape showed the phase:\n%s", exit, stderr)
		case <-time.After(100 * time.Millisecond):
		}
		fams := scrapeURL(t, url) // parsed strictly: histograms consistent
		if phaseOps(fams) > 0 {
			scraped = true
			if n := series(fams, "txnbench_op_latency_seconds_count")["|workflow"]; n == 0 {
				t.Errorf("no latency histogram of the workflow phase")
			}
		}
	}
	if !scraped {
		t.Fatalf("no signal_to_completion{kind=\"phase\"} in the metrics:\n%s", stderr)
	}
	if exit = <-code; exit != exitcode.OK {
		t.Fatalf("exit %d:\n%s", exit, stderr)
	}
	if !strings.Contains(stderr.String(), "| signal_to_completion ") {
		t.Errorf("progress lines lack the phase:\n%s", stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "latency over time: signal_to_completion") {
		t.Error("the HTML report has no chart over time of signal_to_completion")
	}
	r := clitest.LoadResult(t, out)
	for _, name := range []string{"signal_to_completion", "workflow", "claim", "apply"} {
		total := r.Op(name)
		var n int64
		for _, iv := range r.Intervals {
			for _, o := range iv.Ops {
				if o.Name == name {
					n += o.Count
					if o.Kind != total.Kind {
						t.Errorf("interval's %s of kind %s, want %s", name, o.Kind, total.Kind)
					}
				}
			}
		}
		if total.Count == 0 || n != total.Count {
			t.Errorf("%s: intervals count %d, the run %d", name, n, total.Count)
		}
	}
}

// TestDiffFlagsPhaseRegression: of two workflow runs, the one whose
// workers poll far less often takes longer from signal to completion;
// diff flags signal_to_completion p95 as a regression (exit 4). The slow
// run polls every second, so its p95 is near a second however busy the
// machine is, far above the threshold the base run's own noise sets (a
// 200 ms poll made a +41% difference under load, below a 71% threshold).
func TestDiffFlagsPhaseRegression(t *testing.T) {
	dir := t.TempDir()
	run := func(name, poll string) string {
		out := filepath.Join(dir, name+".json")
		clitest.MustRun(t, "run", "workflow", "--db", "sqlite:"+filepath.Join(dir, name+".db"), "--iterations", "150",
			"--clients", "16", "--signal-workers", "8", "--claim-batch", "8", "--poll-interval", poll, "--json", out)
		return out
	}
	base, slow := run("base", "2ms"), run("slow", "1s")
	code, stdout, stderr := clitest.Run("diff", "--allow-different", base, slow)
	if code != exitcode.Regression {
		t.Fatalf("diff: exit %d, want %d:\n%s%s", code, exitcode.Regression, stdout, stderr)
	}
	found := false
	for _, line := range strings.Split(stdout, "\n") {
		if strings.Contains(line, "signal_to_completion (phase) p95 ms") {
			found = true
			if !strings.Contains(strings.ToLower(line), "worse") {
				t.Errorf("not flagged: %s", line)
			}
		}
	}
	if !found {
		t.Errorf("diff lacks signal_to_completion (phase) p95 ms:\n%s", stdout)
	}
}
