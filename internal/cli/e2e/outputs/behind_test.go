package outputs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
)

// TestBehindSchedule: one client whose cycles take 200 ms cannot keep a
// --rate of 50 cycles/s; the run says so in one line and in its JSON, and
// a study of it in study.md and study.json (such a run reached a quarter
// of its rate and nothing said so).
func TestBehindSchedule(t *testing.T) {
	dir := t.TempDir()
	slow := []string{"--rows", "200", "--delay", "200ms", "--think-min", "0s", "--think-max", "1ms", "--max-batch", "20",
		"--clients", "1", "--rate", "50", "--duration", "1s"}
	js := filepath.Join(dir, "r.json")
	stdout, _ := clitest.MustRun(t, append([]string{"run", "train-events", "--db", "sqlite:" + filepath.Join(dir, "r.db"), "--json", js}, slow...)...)
	if n := strings.Count(stdout, "BEHIND SCHEDULE: "); n != 1 || !strings.Contains(stdout, "cycles/s of --rate 50.0 (") {
		t.Errorf("the run says %d times that it fell behind:\n%s", n, stdout)
	}
	r := clitest.LoadResult(t, js)
	if b := r.Behind; b == nil || b.RatePerS != 50 || b.AchievedPerS >= 0.95*50 {
		t.Errorf("the JSON's behind_schedule: %+v", b)
	}
	out := filepath.Join(dir, "st")
	stdout, _ = clitest.MustRun(t, append([]string{"study", "train-events", "--db", "sqlite:" + filepath.Join(dir, "s.db"), "--vary", "variant=text", "--settle", "0s", "--out", out}, slow...)...)
	md, _ := os.ReadFile(filepath.Join(out, "study.md"))
	sj, _ := os.ReadFile(filepath.Join(out, "study.json"))
	if !strings.Contains(string(md), "**cell variant=text fell behind its schedule** in 1 of 1 runs: ") || !strings.Contains(stdout, "fell behind its schedule") {
		t.Errorf("study.md does not say the cell fell behind:\n%s", md)
	}
	if !strings.Contains(string(sj), `"behind_schedule"`) {
		t.Errorf("study.json lacks behind_schedule:\n%s", sj)
	}
}
