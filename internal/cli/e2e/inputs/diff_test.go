package inputs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
)

// diffInputs writes the diff package's sample result as base.json and
// variants of it into a temporary directory.
func diffInputs(t *testing.T) (dir string, save func(name string, f func(*result.Result)) string) {
	t.Helper()
	dir = t.TempDir()
	return dir, func(name string, f func(*result.Result)) string {
		r := clitest.LoadResult(t, clitest.SampleRun(t))
		for i := range r.Ops {
			r.Ops[i].Count *= 10 // enough samples for p99 to be compared
		}
		f(r)
		p := filepath.Join(dir, name)
		if err := r.Save(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

func TestDiffExitCodes(t *testing.T) {
	dir, save := diffInputs(t)
	base := save("base.json", func(*result.Result) {})
	same := save("same.json", func(r *result.Result) { r.Config.Seed++ })
	slow := save("slow.json", func(r *result.Result) {
		for i := range r.Ops {
			r.Ops[i].Count = r.Ops[i].Count * 6 / 10
			r.Ops[i].P99 *= 3
		}
	})
	clients := save("clients.json", func(r *result.Result) { r.Config.Clients = 32 })
	os.WriteFile(filepath.Join(dir, "study.json"), []byte(`{"format":"txnbench-study/1","cells":[]}`), 0o644)
	decisions := filepath.Join(dir, "decisions.json")
	cases := []struct {
		args   []string
		code   int
		stdout string // must contain
		stderr string // must contain
	}{
		{[]string{"diff", base, same}, exitcode.OK, "no regressions", ""},
		{[]string{"diff", base, slow, "--json", decisions}, exitcode.Regression, "regressions (0 better)", ""},
		{[]string{"diff", base, slow, "--threshold", "500"}, exitcode.OK, "thresholds (--threshold): throughput 500%", ""},
		{[]string{"diff", base, clients}, exitcode.Usage, "", "clients 4 vs 32"},
		{[]string{"diff", base, clients, "--allow-different"}, exitcode.OK, "WARNING: fixed settings differ", "warning: fixed settings differ, compared anyway: clients 4 vs 32"},
		{[]string{"diff", base}, exitcode.Usage, "", "diff takes two arguments, BASE and NEW"},
		{[]string{"diff", base, filepath.Join(dir, "nosuch.json")}, exitcode.Usage, "", "NEW: " + filepath.Join(dir, "nosuch.json") + ": no such file"},
		{[]string{"diff", base, dir}, exitcode.Usage, "", "is a result and NEW " + dir + " a study"},
		{[]string{"diff", base, same, "--threshold", "0"}, exitcode.Usage, "", "--threshold 0: give a percentage above 0"},
		{[]string{"diff", base, same, "--json", "/nonexistent/d.json"}, exitcode.Usage, "", "directory /nonexistent does not exist"},
	}
	for _, c := range cases {
		code, stdout, stderr := clitest.Run(c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args[1:], code, c.code, stderr)
		}
		if !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%v:\nstdout %q\nstderr %q\nwant %q / %q", c.args[1:], stdout, stderr, c.stdout, c.stderr)
		}
		if c.code == exitcode.Usage && strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: usage error is not one line: %q", c.args[1:], stderr)
		}
	}
	var rep struct {
		Regressions int `json:"regressions"`
		Scenarios   []struct {
			Decisions []struct {
				Metric, Verdict string
			} `json:"decisions"`
		} `json:"scenarios"`
	}
	b := clitest.Read(t, decisions)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	worse := map[string]bool{}
	for _, d := range rep.Scenarios[0].Decisions {
		if d.Verdict == "worse" {
			worse[d.Metric] = true
		}
	}
	if rep.Regressions == 0 || !worse["txn/s"] || !worse["add p99 ms"] {
		t.Errorf("--json: %d regressions, worse %v", rep.Regressions, worse)
	}
}
