package inputs

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// historySeries writes 20 results from the diff package's recorded
// train-events run, p01.json to p20.json a minute apart, each op's figures
// scaled by its own noise (5% relative, from a fixed seed) and, from the
// point slowFrom (1-based; 0 for none), by 0.7: 30% fewer ops, each 1/0.7
// as long. It returns the directory and the files in reverse order.
func historySeries(t *testing.T, slowFrom int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(43, 2))
	var files []string
	for i := 1; i <= 20; i++ {
		r := clitest.LoadResult(t, clitest.SampleRun(t))
		r.Started = r.Started.Add(time.Duration(i) * time.Minute)
		for j := range r.Ops {
			o := &r.Ops[j]
			f := 1 + 0.05*rng.NormFloat64()
			if slowFrom > 0 && i >= slowFrom {
				f *= 0.7
			}
			o.Count = int64(float64(o.Count*10) * f) // enough samples for every latency to be compared
			o.Mean, o.P50, o.P90, o.P95, o.P99 = o.Mean/f, o.P50/f, o.P90/f, o.P95/f, o.P99/f
		}
		p := filepath.Join(dir, fmt.Sprintf("p%02d.json", i))
		if err := r.Save(p); err != nil {
			t.Fatal(err)
		}
		files = append([]string{p}, files...)
	}
	return dir, files
}

// TestHistoryNamesThePlantedSlowdown: 20 results, 30% slower from the
// 12th, given in reverse order (ordered by their start times): every
// changed metric is named at #12 p12, worse, and nowhere else; the
// Markdown says so too, and --html writes a page with a chart that needs
// no network.
func TestHistoryNamesThePlantedSlowdown(t *testing.T) {
	dir, files := historySeries(t, 12)
	page := filepath.Join(t.TempDir(), "history.html")
	stdout, _ := clitest.MustRun(t, append([]string{"history", "--html", page}, files...)...)
	rows := regexp.MustCompile(`(?m)^(\S+(?: \S+)*?)\s+#(\d+) (p\d\d)\s.*\b(WORSE|better)$`).FindAllStringSubmatch(stdout, -1)
	if len(rows) == 0 || !strings.Contains(stdout, "txn/s ") {
		t.Fatalf("no change named:\n%s", stdout)
	}
	for _, r := range rows {
		if r[2] != "12" || r[3] != "p12" || r[4] != "WORSE" {
			t.Errorf("%s: named at #%s %s %s, want #12 p12 WORSE", r[1], r[2], r[3], r[4])
		}
	}
	if !regexp.MustCompile(`(?m)^txn/s\s+#12 p12\s.*-3\d\.\d%`).MatchString(stdout) {
		t.Errorf("txn/s is not named at #12 with about -30%%:\n%s", stdout)
	}
	b := string(clitest.Read(t, page))
	if !strings.Contains(b, "<svg") || !strings.Contains(b, "change at #12 p12") || strings.Contains(b, "<script") || strings.Contains(b, "http") {
		t.Errorf("the page has no chart of the change, or reaches for a script or the network:\n%.2000s", b)
	}
	code, md, _ := clitest.Run("history", dir, "--format", "markdown")
	if code != exitcode.OK || !strings.Contains(md, "### txnbench history: ") || !strings.Contains(plain.Squeeze(md), "| txn/s | #12 p12 |") || !strings.Contains(md, "**WORSE**") {
		t.Errorf("markdown (exit %d):\n%s", code, md)
	}
}

// TestHistoryOfNoiseNamesNone: the same 20 results without the slowdown:
// no change in any metric.
func TestHistoryOfNoiseNamesNone(t *testing.T) {
	dir, _ := historySeries(t, 0)
	stdout, _ := clitest.MustRun(t, "history", dir)
	if !regexp.MustCompile(`(?m)^no changes in \d+ metrics over 20 results`).MatchString(stdout) || strings.Contains(stdout, "#") && strings.Contains(stdout, "WORSE") {
		t.Errorf("changes named in noise:\n%s", stdout)
	}
}

// TestHistoryBadInput: no files, a file that is not a result, too few,
// mixed kinds and a bad flag are each one line and exit 2, with nothing
// on stdout.
func TestHistoryBadInput(t *testing.T) {
	dir, files := historySeries(t, 0)
	notResult := filepath.Join(t.TempDir(), "notes.json")
	os.WriteFile(notResult, []byte(`{"hello": 1}`), 0o644)
	studyDir := filepath.Join(t.TempDir(), "s")
	os.MkdirAll(studyDir, 0o755)
	os.WriteFile(filepath.Join(studyDir, "study.json"), []byte(`{"format":"txnbench-study/1","cells":[]}`), 0o644)
	empty := t.TempDir()
	cases := []struct {
		args   []string
		stderr string
	}{
		{[]string{"history"}, "history needs at least 6 saved results, studies or suites"},
		{[]string{"history", empty}, "holds no result JSONs and no study or suite directories"},
		{append([]string{"history", notResult}, files[:6]...), "is not a txnbench result, study.json or suite.json"},
		{files[:3], "history needs at least 6"},
		{append([]string{"history", studyDir}, files[:6]...), "a history is of one kind"},
		{[]string{"history", dir, "--format", "csv"}, "--format \"csv\": give text or markdown"},
		{[]string{"history", dir, "--p", "2"}, "--p 2: give a probability between 0 and 1"},
	}
	cases[3].args = append([]string{"history"}, files[:3]...)
	for _, c := range cases {
		code, stdout, stderr := clitest.Run(c.args...)
		if code != exitcode.Usage || !strings.Contains(stderr, c.stderr) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args[1:], code, stdout, stderr, c.stderr)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: not one line: %q", c.args[1:], stderr)
		}
	}
}

// TestHistoryOfSuites: 12 copies of two scenarios of a recorded
// smoke-tier suite (directories s01 to s12, ordered by label: their runs'
// times are the same), the SQLite select-only scenario twice as slow from
// the 7th: its metrics are named at #7 s07 with the scenario's name, the
// other scenario's are not, and the points are counted as suites.
func TestHistoryOfSuites(t *testing.T) {
	src := clitest.Repo(t, "internal", "diff", "testdata", "rq-suite-base")
	keep := []string{"pgbench-select-only-sqlite-smoke", "connect-overhead-per-txn-smoke"}
	var doc map[string]any
	clitest.ReadJSON(t, filepath.Join(src, "suite.json"), &doc)
	var scenarios []any
	for _, sc := range doc["scenarios"].([]any) {
		if slices.Contains(keep, sc.(map[string]any)["name"].(string)) {
			scenarios = append(scenarios, sc)
		}
	}
	doc["scenarios"] = scenarios
	suiteJSON, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for i := 1; i <= 12; i++ {
		dir := filepath.Join(root, fmt.Sprintf("s%02d", i))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "suite.json"), suiteJSON, 0o644)
		for _, name := range keep {
			r := clitest.LoadResult(t, filepath.Join(src, name+".json"))
			if i >= 7 && name == keep[0] {
				for j := range r.Ops {
					o := &r.Ops[j]
					o.Count /= 2
					o.Mean, o.P50, o.P95, o.P99 = o.Mean*2, o.P50*2, o.P95*2, o.P99*2
				}
			}
			if err := r.Save(filepath.Join(dir, name+".json")); err != nil {
				t.Fatal(err)
			}
		}
	}
	stdout, _ := clitest.MustRun(t, "history", root, "--order", "label")
	if !regexp.MustCompile(`(?m)^pgbench-select-only-sqlite-smoke: txn/s\s+#7 s07\s.*-50\.0%.*WORSE$`).MatchString(stdout) {
		t.Errorf("the slowed scenario's txn/s is not named at #7 s07:\n%s", stdout)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.Contains(line, "#") && strings.Contains(line, ": ") && !strings.HasPrefix(line, "pgbench-select-only-sqlite-smoke: ") && !strings.HasPrefix(line, "txnbench history") {
			t.Errorf("another scenario named: %s", line)
		}
	}
	if !strings.Contains(stdout, "over 12 suites") {
		t.Errorf("not counted as 12 suites:\n%s", stdout)
	}
}
