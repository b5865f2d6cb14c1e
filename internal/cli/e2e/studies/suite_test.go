package studies

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
	"github.com/txnbench/txnbench/internal/suite"

	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

func TestSuiteBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return testutil.WriteFile(t, dir, name, text) }
	one := func(workload, flags string) string {
		return "name = \"s\"\n[[scenario]]\nname = \"a\"\nworkload = \"" + workload + "\"\ntiers = [\"smoke\"]\n[scenario.flags]\n" + flags
	}
	cases := []struct {
		file, tier, want string
	}{
		{write("wl.toml", one("nosuch", "")), "smoke", `wl.toml: scenario "a": unknown workload "nosuch"`},
		{write("flag.toml", one("train-events", "bogus = 1\n")), "smoke", `flag.toml: scenario "a": unknown flag: --bogus (a flag of txnbench run train-events)`},
		{write("value.toml", one("train-events", "clients = \"many\"\n")), "smoke", `invalid argument "many" for "--clients" flag`},
		{write("variant.toml", one("train-events", "variant = \"xml\"\n")), "smoke", `unknown --variant "xml"`},
		{write("conf.toml", one("train-events", "pg-conf = [\"a=b\"]\n")), "smoke", "--pg-conf only applies to --db temp-postgres"},
		{write("settle.toml", one("train-events", "settle = \"1s\"\n")), "smoke", "unknown flag: --settle (a flag of txnbench run train-events)"},
		{write("vary.toml", one("train-events", "[scenario.vary]\nnosuch = [1, 2]\n")), "smoke", `unknown --vary name "nosuch"`},
		{write("out.toml", one("train-events", "json = \"x.json\"\n")), "smoke", "json cannot be set in a suite file"},
		{write("tier.toml", one("train-events", "")), "nightly", `no scenario is in tier "nightly": choose one of smoke`},
		{write("tier2.toml", one("train-events", "")), "", "no --tier given: choose one of smoke"},
		{write("syntax.yaml", "name: [s\n"), "smoke", "syntax.yaml:"},
		{filepath.Join(dir, "missing.toml"), "smoke", "missing.toml: no such file"},
	}
	for _, c := range cases {
		args := []string{"suite", "run", c.file, "--out", filepath.Join(dir, "out")}
		if c.tier != "" {
			args = append(args, "--tier", c.tier)
		}
		code, _, stderr := clitest.Run(args...)
		if code != exitcode.Usage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d saying %q", filepath.Base(c.file), code, stderr, exitcode.Usage, c.want)
		}
		if n := strings.Count(strings.TrimSpace(stderr), "\n"); n > 0 {
			t.Errorf("%s: error not one line: %q", filepath.Base(c.file), stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Error("a suite that did not validate created its output directory")
	}
}

// A tiny suite end to end on SQLite: a run, a scenario that fails at
// runtime (the suite goes on), and a small study; suite.md, suite.json
// and the scenarios' files exist and agree.
func TestSuiteRunEndToEnd(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.yaml")
	// quick train-events flags, as in the other cli tests.
	quick := "rows: 200, delay: 1ms, think-min: 0s, think-max: 1ms, max-batch: 20"
	text := `name: tiny
defaults:
  db: "sqlite:"
  seed: 7
scenario:
  - name: one-run
    workload: train-events
    tiers: [smoke]
    flags: {clients: 2, duration: 1s, variant: text, ` + quick + `}
  - name: not-in-tier
    workload: train-events
    tiers: [nightly]
  - name: refused
    workload: connect-overhead
    tiers: [smoke]
    flags: {db: "postgres://bob:s3cretpw@127.0.0.1:1/db", rows: 10, duration: 1s}
  - name: ladder
    workload: train-events
    tiers: [smoke, nightly]
    repeat: 1
    flags: {duration: 1s, settle: 0s, ` + quick + `}
    vary:
      clients: [1, 2]
`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := clitest.Run("suite", "run", file, "--tier", "smoke", "--out", out)
	if code != exitcode.Failure {
		t.Fatalf("exit %d, want %d (one scenario failed):\n%s", code, exitcode.Failure, stderr)
	}
	plain.Contains(t, "stderr", stderr, "[1/3] scenario one-run (train-events run, tier smoke)", "[3/3] scenario ladder (train-events study, tier smoke)", "scenario refused failed", "1 of 3 scenarios failed")
	if strings.Contains(stdout+stderr, "s3cretpw") {
		t.Error("password printed")
	}
	if strings.Contains(stderr, "not-in-tier") {
		t.Error("ran a scenario of another tier")
	}
	b := clitest.Read(t, filepath.Join(out, "suite.json"))
	if strings.Contains(string(b), "s3cretpw") {
		t.Error("password in suite.json")
	}
	var rep suite.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Format != suite.Format || rep.Name != "tiny" || rep.Tier != "smoke" || len(rep.Scenarios) != 3 || rep.Machine.CPUs == 0 {
		t.Fatalf("report %+v", rep)
	}
	run, refused, ladder := rep.Scenarios[0], rep.Scenarios[1], rep.Scenarios[2]

	// The run: its result file agrees with its row.
	if run.Kind != suite.KindRun || run.Result != "one-run.json" || run.Error != "" {
		t.Errorf("run scenario %+v", run)
	}
	r := clitest.LoadResult(t, filepath.Join(out, run.Result))
	if got := suite.RunSummary(r); !reflect.DeepEqual(got, run.Summary) || got.Ops == 0 || !got.InvariantsOK || got.Clients != 2 {
		t.Errorf("row %+v, result says %+v", run.Summary, got)
	}
	if r.Settings["variant"] != "text" || r.Config.Seed != 7 {
		t.Errorf("the run did not get its flags: %v seed %d", r.Settings, r.Config.Seed)
	}
	if run.Settings["variant"] != "text" || run.Settings["seed"] != "7" || run.Settings["payload"] != "text" {
		t.Errorf("settings %v", run.Settings)
	}

	// The failed scenario is recorded and did not stop the suite.
	if refused.Error == "" || !strings.Contains(refused.Error, "connection refused") || refused.Result != "" {
		t.Errorf("failed scenario %+v", refused)
	}

	// The study: study.json, study.md and one result per run.
	if ladder.Kind != suite.KindStudy || ladder.Study != "ladder/study.json" || ladder.Error != "" {
		t.Errorf("study scenario %+v", ladder)
	}
	var sum study.Summary
	sb := clitest.Read(t, filepath.Join(out, ladder.Study))
	if err := json.Unmarshal(sb, &sum); err != nil || len(sum.Cells) != 2 {
		t.Fatalf("study.json: %v %+v", err, sum)
	}
	if _, err := os.Stat(filepath.Join(out, "ladder", "study.md")); err != nil {
		t.Error(err)
	}
	var cells [][]*result.Result
	for _, c := range sum.Cells {
		var reps []*result.Result
		for _, f := range c.Results {
			r := clitest.LoadResult(t, f)
			reps = append(reps, r)
		}
		cells = append(cells, reps)
	}
	if got := suite.StudySummary(cells); !reflect.DeepEqual(got, ladder.Summary) || got.Clients != 2 || got.Ops == 0 {
		t.Errorf("study row %+v, its results say %+v", ladder.Summary, got)
	}
	if ladder.Settings["clients"] != "1,2" {
		t.Errorf("study settings %v", ladder.Settings)
	}

	md := clitest.Read(t, filepath.Join(out, "suite.md"))
	plain.Contains(t, "suite.md", string(md), "# Suite tiny, tier smoke", "[`one-run`](one-run.json)", "[`ladder`](ladder/study.md) (study)", "FAILED: ", "`seed` = `7`", "outcome: 3 scenarios, 2 OK, 1 failed")

	// A second run into the same directory is refused.
	if code, _, stderr := clitest.Run("suite", "run", file, "--tier", "smoke", "--out", out); code != exitcode.Usage || !strings.Contains(stderr, "already holds") {
		t.Errorf("rerun into %s: exit %d %s", out, code, stderr)
	}
	// suite list shows every scenario and tier.
	code, stdout, _ = clitest.Run("suite", "list", file)
	if code != exitcode.OK || !strings.Contains(stdout, "tiers smoke, nightly") || !strings.Contains(stdout, "ladder  (study of train-events; tiers smoke, nightly)") || strings.Contains(stdout, "s3cretpw") {
		t.Errorf("suite list: exit %d\n%s", code, stdout)
	}
}

// Ctrl-C (here SIGTERM) mid-suite: what finished and the interrupted
// scenario are written, the rest does not start, exit 130.
func TestSuiteInterrupted(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "stop.toml")
	quick := "rows = 200\ndelay = \"1ms\"\nthink-min = \"0s\"\nthink-max = \"1ms\"\nmax-batch = 20\n"
	text := "name = \"stop\"\n[defaults]\ndb = \"sqlite:\"\nclients = 2\nprogress = \"300ms\"\n" + quick
	for _, sc := range []struct{ name, duration string }{{"first", "1s"}, {"long", "60s"}, {"never", "1s"}} {
		text += "[[scenario]]\nname = \"" + sc.name + "\"\nworkload = \"train-events\"\ntiers = [\"t\"]\n[scenario.flags]\nduration = \"" + sc.duration + "\"\n"
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd, _, stderr := clitest.Start(t, "suite", "run", file, "--tier", "t", "--out", out)
	clitest.InterruptWhen(cmd, stderr, func(s string) bool {
		_, after, ok := strings.Cut(s, "[2/3]")
		return ok && strings.Contains(after, "s |") // a progress line of the long run
	})
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", code, exitcode.Interrupted, stderr.String())
	}
	rep := readSuite(t, out)
	if len(rep.Scenarios) != 2 || rep.Scenarios[0].Error != "" || rep.Scenarios[1].Error != suite.Interrupted {
		t.Fatalf("scenarios %+v", rep.Scenarios)
	}
	if r, err := result.Load(filepath.Join(out, "long.json")); err != nil || !r.Interrupted {
		t.Errorf("the interrupted run's result: %v", err)
	}
	if strings.Contains(stderr.String(), "[3/3]") {
		t.Error("the scenario after the interrupt started")
	}
	if md, _ := os.ReadFile(filepath.Join(out, "suite.md")); !bytes.Contains(md, []byte("INTERRUPTED")) {
		t.Errorf("suite.md:\n%s", md)
	}
}

// TestSuiteRunSeveralTiers: --tier a,b runs both tiers, tier by tier, a
// scenario in both once; suite.json records the tiers and each
// scenario's, suite.md has the Tier column and its tables are printed at
// the end; --tier all runs every tier.
func TestSuiteRunSeveralTiers(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tiers.toml")
	text := "name = \"tiers\"\n[defaults]\ndb = \"sqlite:\"\nclients = 1\niterations = 3\nrows = 50\ndelay = \"0s\"\nthink-min = \"0s\"\nthink-max = \"0s\"\n"
	for _, sc := range []struct{ name, tiers string }{{"a-nightly", `"nightly"`}, {"b-both", `"smoke", "nightly"`}, {"c-smoke", `"smoke"`}, {"d-soak", `"soak"`}} {
		text += "[[scenario]]\nname = \"" + sc.name + "\"\nworkload = \"train-events\"\ntiers = [" + sc.tiers + "]\n"
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tier, want, tiers, bTier string }{
		{"smoke,nightly", "b-both@smoke c-smoke@smoke a-nightly@nightly", "smoke,nightly", "smoke"},
		{"all", "a-nightly@nightly b-both@nightly c-smoke@smoke d-soak@soak", "nightly,smoke,soak", "nightly"},
	} {
		out := filepath.Join(dir, c.tiers)
		stdout, _ := clitest.MustRun(t, "suite", "run", file, "--tier", c.tier, "--out", out)
		// The tables are printed at the end, as suite.md has them.
		if _, end, _ := strings.Cut(stdout, "## Scenario summary"); !strings.Contains(plain.Squeeze(end), "| [`b-both`](b-both.json) | "+c.bTier+" | train-events |") || strings.Contains(end, "| [`d-soak`]") != (c.tier == "all") {
			t.Errorf("--tier %s: the summary table is not printed at the end:\n%s", c.tier, stdout)
		}
		rep := readSuite(t, out)
		var got []string
		for _, s := range rep.Scenarios {
			got = append(got, s.Name+"@"+s.Tier)
		}
		if strings.Join(got, " ") != c.want || rep.Tier != c.tiers {
			t.Errorf("--tier %s ran %v as tier %q, want %s as %q", c.tier, got, rep.Tier, c.want, c.tiers)
		}
		md := clitest.Read(t, filepath.Join(out, "suite.md"))
		plain.Contains(t, "suite.md", plain.Squeeze(string(md)), "| Scenario | Tier | Workload |", "| [`b-both`](b-both.json) | "+c.bTier+" | train-events |")
	}
	if code, _, stderr := clitest.Run("suite", "run", file, "--tier", "smoke,nighty", "--out", filepath.Join(dir, "bad")); code != exitcode.Usage || !strings.Contains(stderr, `no scenario is in tier "nighty"`) {
		t.Errorf("an unknown tier in the list: exit %d %s", code, stderr)
	}
}

// readSuite is the suite.json of the suite run written into out.
func readSuite(t *testing.T, out string) suite.Report {
	t.Helper()
	var rep suite.Report
	clitest.ReadJSON(t, filepath.Join(out, "suite.json"), &rep)
	return rep
}
