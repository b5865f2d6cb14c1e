package studies

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestStudy runs a small study on SQLite: every cell twice, interleaved,
// one JSON per run, study.json and study.md, and the comparisons printed:
// along the varied setting (the default --compare axis) and the fixed
// work's wall times, the same again from study.json.
func TestStudy(t *testing.T) {
	out := filepath.Join(t.TempDir(), "st")
	args := append([]string{"study", "train-events", "--db", "sqlite:" + filepath.Join(t.TempDir(), "s.db"),
		"--vary", "variant=manual,text", "--iterations", "6", "--clients", "2", "--settle", "0s", "--repeat", "2", "--out", out}, clitest.Quick...)
	stdout, stderr := clitest.MustRun(t, args...)
	plain.Contains(t, "output", stdout+stderr, "## add", "variant=manual", "variant=text", "## variant: manual -> text", " manual -> text |", "## fixed work (--iterations)", " vs previous variant |", "invariants: OK in every run", "[4/4]")
	if strings.Contains(stdout, "vs first") {
		t.Errorf("--compare axis still compares with the first cell:\n%s", stdout)
	}
	md, _ := os.ReadFile(filepath.Join(out, "study.md"))
	js, _ := os.ReadFile(filepath.Join(out, "study.json"))
	if !bytes.Contains(js, []byte(`"comparisons"`)) || !bytes.Contains(js, []byte(`"axis": "variant"`)) || !bytes.Contains(js, []byte(`"fixed_work"`)) {
		t.Errorf("study.json lacks the comparisons:\n%s", js)
	}
	if code, again, stderr := clitest.Run("report", filepath.Join(out, "study.json")); code != exitcode.OK || again != string(md) {
		t.Errorf("report of study.json: exit %d %s, and it differs from study.md:\n%s", code, stderr, again)
	}
	files, _ := filepath.Glob(filepath.Join(out, "cell*-rep*.json"))
	if len(files) != 4 {
		t.Errorf("%d result files, want 4: %v", len(files), files)
	}
	for _, f := range []string{"study.json", "study.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	r, err := result.Load(filepath.Join(out, "cell02-rep2.json"))
	if err != nil || r.Settings["variant"] != "text" || r.Op("cycle").Count != 6 {
		t.Errorf("cell 2: %v %+v", err, r)
	}
}

// TestStudyComparisonVerdicts: a study's comparison rows carry their 95%
// interval and verdict in the terminal, study.md, study.html and
// study.json alike. The planted difference is a script's sleep in each
// transaction, 50 ms against 200 ms (-D ms=...), so that both cells'
// latencies are made of time the test sets, four times apart: the mean's
// verdict is worse, or ~ where a stalled repetition widened the interval
// (in CI one repetition of the 50 ms cell measured 208 ms on a loaded
// runner), never better; whichever it is, every output says the same.
func TestStudyComparisonVerdicts(t *testing.T) {
	dir := t.TempDir()
	script, out := testutil.WriteFile(t, dir, "s.sql", "\\sleep :ms ms\nSELECT 1;\n"), filepath.Join(dir, "st")
	args := []string{"study", "script", "--db", "sqlite:" + filepath.Join(dir, "s.db"), "-f", script,
		"--iterations", "5", "--settle", "0s", "--repeat", "3", "--out", out, "--vary", "define=ms=50,ms=200"}
	stdout, _ := clitest.MustRun(t, args...)
	var meanRow string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "| s.sql ") && strings.Contains(l, "| mean (ms)") {
			meanRow = l
			break
		}
	}
	var st struct {
		Comparisons struct {
			Axes []struct {
				Rows []struct {
					Op, Metric string
					Stats      []*study.PairStats
				}
			}
		}
	}
	clitest.ReadJSON(t, filepath.Join(out, "study.json"), &st)
	var mean *study.PairStats
	for _, a := range st.Comparisons.Axes {
		for _, r := range a.Rows {
			if r.Op == "s.sql" && r.Metric == "mean_ms" && len(r.Stats) == 1 {
				mean = r.Stats[0]
			}
		}
	}
	if mean == nil {
		t.Fatalf("study.json has no comparison of s.sql's mean with its stats")
	}
	interval := fmt.Sprintf("%+.0f%% to %+.0f%%", mean.LowPct, mean.HighPct)
	word := map[string]string{"worse": " worse (+", "~": " ~ (p="}[mean.Verdict]
	if word == "" || !strings.Contains(meanRow, word) || !strings.Contains(meanRow, interval) {
		t.Fatalf("the mean row of ms=50 -> ms=200 is %q; study.json says %s, %s (want worse or ~, and the terminal saying the same)\n%s", meanRow, mean.Verdict, interval, stdout)
	}
	md, _ := os.ReadFile(filepath.Join(out, "study.md"))
	html, _ := os.ReadFile(filepath.Join(out, "study.html"))
	verdict := meanRow[strings.LastIndex(meanRow[:len(meanRow)-2], "|")+1 : len(meanRow)-1]
	verdict = strings.TrimSpace(verdict)
	if !bytes.Contains(md, []byte(verdict)) || !bytes.Contains(html, []byte(strings.ReplaceAll(verdict, "+", "&#43;"))) {
		t.Errorf("study.md or study.html lacks the terminal's %q", verdict)
	}
}

// TestStudySaysWhenItCannotDecide: a study of one repetition a cell (the
// default --repeat) says in one line, in the terminal and study.md, that
// none of its changes could be decided and how many repetitions a verdict
// needs; study.json counts them.
func TestStudySaysWhenItCannotDecide(t *testing.T) {
	dir := t.TempDir()
	script, out := testutil.WriteFile(t, dir, "s.sql", "\\sleep :ms ms\nSELECT 1;\n"), filepath.Join(dir, "st")
	stdout, stderr := clitest.MustRun(t, "study", "script", "--db", "sqlite:"+filepath.Join(dir, "s.db"), "-f", script,
		"--iterations", "2", "--settle", "0s", "--out", out, "--vary", "define=ms=10,ms=40")
	const line = "No change could be decided: every cell ran once, so the machine's noise is unknown (?); --repeat 3 gives each change a 95% interval and a verdict"
	md, _ := os.ReadFile(filepath.Join(out, "study.md"))
	for name, text := range map[string]string{"the terminal's stderr": stderr, "stdout": stdout, "study.md": string(md)} {
		if !strings.Contains(text, line) {
			t.Errorf("%s lacks %q:\n%s", name, line, text)
		}
	}
	var s struct {
		Comparisons struct {
			Decisions struct {
				Decided int `json:"decided"`
				Same    int `json:"within_noise"`
				Unknown int `json:"noise_unknown"`
			} `json:"decisions"`
		} `json:"comparisons"`
	}
	js, _ := os.ReadFile(filepath.Join(out, "study.json"))
	if html, _ := os.ReadFile(filepath.Join(out, "study.html")); !bytes.Contains(html, []byte("noise is unknown (?); --repeat 3 gives each change a 95% interval and a verdict")) {
		t.Errorf("study.html lacks the line")
	}
	if err := json.Unmarshal(js, &s); err != nil || s.Comparisons.Decisions.Unknown == 0 || s.Comparisons.Decisions.Decided+s.Comparisons.Decisions.Same != 0 {
		t.Errorf("study.json's comparisons.decisions: %+v (%v), want only noise_unknown", s.Comparisons.Decisions, err)
	}
}

// TestStudyReportNoiseAndStalls: txnbench report of a study whose two
// cells have the same median and repetitions spread from 60 to 140 ms
// says ~ with its p, not a change; a third cell that stalled is named in
// the header and its summary row, and compared with nothing.
func TestStudyReportNoiseAndStalls(t *testing.T) {
	op := func(reps ...float64) study.OpStats {
		m := reps[len(reps)/2]
		return study.OpStats{Name: "add", Count: 100, OpsPerS: 10, Mean: m, P50: m, P95: m, P99: m, Max: m,
			Reps: map[string][]float64{"mean_ms": reps, "p50_ms": reps, "p95_ms": reps, "p99_ms": reps, "ops_per_s": {10, 10, 10}}}
	}
	cell := func(v string, o study.OpStats) study.CellSummary {
		return study.CellSummary{Label: "x=" + v, Settings: []study.Setting{{Key: "x", Value: v}}, InvariantsOK: true, TxnPerS: 10,
			Ops: []study.OpStats{o}, Txn: o, Reps: []study.RepStats{{TxnPerS: 10}, {TxnPerS: 10}, {TxnPerS: 10}}}
	}
	s := study.Summary{Format: study.Format, Workload: "train-events", Repeat: 3, Vary: []study.Vary{{Key: "x", Values: []string{"a", "b", "c"}}},
		Cells: []study.CellSummary{cell("a", op(60, 100, 140)), cell("b", op(140, 100, 60)), cell("c", op(4540, 4540, 4540))}}
	s.Cells[2].StalledRuns, s.Cells[2].Stalled = 3, &result.Stall{Clients: 256, SinceS: 0}
	file := filepath.Join(t.TempDir(), "study.json")
	b, _ := json.Marshal(s)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _ := clitest.MustRun(t, "report", file)
	plain.Contains(t, "report", stdout, "+0% (1.00x) ~ (p=1.00", "**cell x=c stalled in 3 of 3 runs", "| x=c (stalled) |",
		// it says it could not decide, and why: not "no difference"
		"0 of 5 changes decided (better or worse), 5 within the repetitions' noise (~): ~ is a difference 3 repetitions cannot tell from their noise, not proof of none")
	if strings.Contains(stdout, "b -> c") {
		t.Errorf("the stalled cell is compared:\n%s", stdout)
	}
}
