package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// TestRunSummarisesInMemoryAndGoesOn: Run summarises each scenario from
// the results its Env returns (a study's are not read back from disk),
// goes on after a failed scenario, tallies how they ended and keeps
// suite.json and suite.md written; it prints nothing.
func TestRunSummarisesInMemoryAndGoesOn(t *testing.T) {
	out := t.TempDir()
	entries := []Entry{
		{Name: "one", Workload: "w", Tiers: []string{"smoke"}},
		{Name: "ladder", Workload: "w", Tiers: []string{"smoke"}, Vary: []VaryKey{{Key: "clients", Values: []string{"1", "2"}}}},
		{Name: "broken", Workload: "w", Tiers: []string{"smoke"}},
	}
	var bases []string
	env := Env{
		Run: func(_ context.Context, e Entry, base string) (Ran, error) {
			bases = append(bases, base)
			ran := Ran{Settings: map[string]string{"db": "x"}}
			switch e.Name {
			case "one":
				ran.Results = [][]*result.Result{{run(10, 1, 1, 1, 0, true)}}
			case "ladder":
				if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
					t.Errorf("study directory %s missing: %v", base, err)
				}
				ran.Results = [][]*result.Result{{run(10, 1, 1, 1, 0, true)}, {run(30, 1, 1, 2, 0, true)}}
			default:
				ran.End = EndFailed
				return ran, errors.New("no server")
			}
			return ran, nil
		},
		Redact: func(s string) string { return s },
		Status: func(string) {},
		Markdown: func(w io.Writer, r *Report) {
			fmt.Fprintf(w, "# Suite %s, %d scenarios\n", r.Name, len(r.Scenarios))
		},
	}
	rep := &Report{Format: Format, Name: "s", Tier: "smoke", Started: time.Now()}
	tally, err := Run(context.Background(), rep, entries, out, env)
	if err != nil {
		t.Fatal(err)
	}
	if tally != (Tally{Failed: 1}) || len(rep.Scenarios) != 3 {
		t.Fatalf("tally %+v, %d scenarios: want one failure of 3", tally, len(rep.Scenarios))
	}
	if bases[0] != filepath.Join(out, "one") {
		t.Errorf("base %s", bases[0])
	}
	one, ladder, broken := rep.Scenarios[0], rep.Scenarios[1], rep.Scenarios[2]
	if one.Result != "one.json" || one.Summary.Ops != 20 {
		t.Errorf("run scenario %+v", one)
	}
	if ladder.Study != "ladder/study.json" || ladder.Summary.Ops != 80 || ladder.Summary.Clients != 2 {
		t.Errorf("study scenario %+v: want its summary from the results in memory", ladder)
	}
	if broken.Error != "no server" {
		t.Errorf("failed scenario's error %q", broken.Error)
	}
	for _, f := range []string{"suite.json", "suite.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if md, _ := os.ReadFile(filepath.Join(out, "suite.md")); string(md) != "# Suite s, 3 scenarios\n" {
		t.Errorf("suite.md is not Env.Markdown's of the whole suite: %q", md)
	}
}
