package cli

import (
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/workload"
)

// The example suite checks with the same flag sets run and study use, has
// the tiers the docs promise and covers every workload.
func TestExampleSuiteValidates(t *testing.T) {
	for _, path := range []string{"../../examples/suite.toml"} {
		a := &app{stdout: io.Discard, stderr: io.Discard}
		f, err := a.loadSuite(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		tiers := f.Tiers()
		for _, want := range []string{"smoke", "nightly", "soak", "capacity", "serial-latency", "parallel-throughput"} {
			if !slices.Contains(tiers, want) {
				t.Errorf("%s: no tier %s (has %v)", path, want, tiers)
			}
		}
		for _, tier := range tiers {
			es, err := f.Tier(tier)
			if err != nil || len(es) == 0 {
				t.Errorf("%s: tier %s: %v", path, tier, err)
			}
			// Every scenario of the tier plans as suite run would plan it.
			for _, e := range es {
				p, err := a.planScenario(e, filepath.Join(t.TempDir(), e.Name))
				if err != nil {
					t.Errorf("%s: %s: %v", path, e.Name, err)
					continue
				}
				if e.Name == "pgbench-tpcb-like-smoke" && (p.settings["builtin"] != "tpcb-like" || p.settings["conn"] != "session" || p.settings["seed"] != "42") {
					t.Errorf("%s: %s: settings %v", path, e.Name, p.settings)
				}
			}
		}
		workloads := map[string]bool{}
		all := ""
		for _, e := range f.Entries {
			workloads[e.Workload] = true
			all += " " + strings.Join(e.Args, " ")
		}
		for _, w := range workload.Names() {
			if !workloads[w] {
				t.Errorf("%s: no scenario of workload %s", path, w)
			}
		}
		for _, want := range []string{"--variant=jsonb", "--variant=manual", "--variant=text", "--builtin=tpcb-like", "--builtin=select-only", "--conn=per-txn", "--conn=pool"} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: no scenario with %s", path, want)
			}
		}
		smoke, _ := f.Tier("smoke")
		for _, e := range smoke {
			if !slices.ContainsFunc(e.Args, func(a string) bool { return strings.HasPrefix(a, "--duration=") && len(a) <= len("--duration=5s") }) {
				t.Errorf("%s: smoke scenario %s is not a few seconds: %v", path, e.Name, e.Args)
			}
		}
	}
}
