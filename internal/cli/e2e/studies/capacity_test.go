package studies

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/study"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// readSearch reads a capacity search's capacity.json.
func readSearch(t *testing.T, dir string) study.Search {
	t.Helper()
	var s study.Search
	clitest.ReadJSON(t, filepath.Join(dir, "capacity.json"), &s)
	return s
}

// ladder is the values of a search's steps, in the order run.
func ladder(s study.Search) string {
	var vs []string
	for _, st := range s.Steps {
		vs = append(vs, s.Value(st.Value))
	}
	return strings.Join(vs, " ")
}

// TestCapacityByClients searches clients on SQLite with a goal that is
// deterministic: with --conn session every client opens one connection,
// so connect.count<=3 is met by 1, 2 and 3 clients and missed by 4. The
// search doubles 1, 2, 4 (missed) and bisects to 3, and reports 3 as the
// highest met, 4 as the first missed and the goal it missed.
func TestCapacityByClients(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cap")
	args := append([]string{"capacity", "train-events", "--db", "sqlite:" + filepath.Join(dir, "s.db"), "--by", "clients", "--slo", "connect.count<=3",
		"--iterations", "40", "--settle", "0s", "--repeat", "1", "--out", out}, clitest.Quick...)
	stdout, _ := clitest.MustRun(t, args...)
	s := readSearch(t, out)
	if got := ladder(s); got != "1 2 4 3" || s.Best != 3 || s.Missed != 4 || !strings.HasPrefix(s.MissedGoal, "connect.count<=3 (measured 4") {
		t.Errorf("ladder %q, highest met %g, first missed %g on %q; want 1 2 4 3, 3, 4 on connect.count<=3", got, s.Best, s.Missed, s.MissedGoal)
	}
	plain.Contains(t, "output", stdout, "highest clients that met every goal: **3**", "first clients that missed: 4, on connect.count<=3 (measured 4)", "stopped: converged: 3 met, 4 missed", "| clients=3 ")
	for _, f := range []string{"capacity.md", "study.json", "study.md", "study.html", "study.csv", "cell04-rep1.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if js := string(clitest.Read(t, filepath.Join(out, "study.json"))); !strings.Contains(js, `"values": [
        "1",
        "2",
        "3",
        "4"
      ]`) {
		t.Errorf("study.json does not list the clients run in order:\n%s", js)
	}
}

// TestCapacityByRate searches the rate (open loop) with goals met at
// every rate tried, bounded by --max: it doubles 4, 8, 16 and stops at
// the bound, each step run once (--repeat 1; the repetitions are the
// unit tests' and TestCapacityDefaultsAgree's). The
// rates are low enough for one SQLite client to keep its schedule on a
// loaded machine (16/s leaves a cycle 62 ms; one takes about 20 at load
// 18), since a step that falls behind misses. (At 4/s a 2 s step
// completes no cycle once in e^8 runs; before its measures were saved as
// null such a step left capacity.json empty.)
func TestCapacityByRate(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cap")
	args := append([]string{"capacity", "train-events", "--db", "sqlite:" + filepath.Join(dir, "s.db"), "--slo", "errors<=0%", "--slo", "cycle.max<=1h",
		"--from", "4", "--max", "16", "--duration", "2s", "--settle", "0s", "--repeat", "1", "--out", out}, clitest.Quick...)
	stdout, _ := clitest.MustRun(t, args...)
	s := readSearch(t, out)
	if got := ladder(s); got != "4 8 16" || s.Best != 16 || s.Missed != 0 || !strings.Contains(s.Stop, "up to the bound, rate 16") {
		t.Errorf("ladder %q, highest met %g, first missed %g, stopped %q", got, s.Best, s.Missed, s.Stop)
	}
	for _, st := range s.Steps {
		if len(st.Reps) != 1 || !st.Met || !st.Agreed {
			t.Errorf("step %+v: want 1 repetition that met", st)
		}
	}
	if !strings.Contains(stdout, "highest rate that met every goal: **16**") || !strings.Contains(stdout, "no rate tried missed a goal") {
		t.Errorf("output:\n%s", stdout)
	}
}

// TestCapacityNothingMet: a goal no step meets halves the value down to
// the bound and exits 1, saying so.
func TestCapacityNothingMet(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cap")
	args := append([]string{"capacity", "train-events", "--db", "sqlite:" + filepath.Join(dir, "s.db"), "--by", "clients", "--slo", "connect.count<=0",
		"--from", "2", "--iterations", "4", "--settle", "0s", "--repeat", "1", "--out", out}, clitest.Quick...)
	code, stdout, stderr := clitest.Run(args...)
	if code != exitcode.Failure || !strings.Contains(stderr, "no clients tried met every goal") {
		t.Fatalf("exit %d, want %d: %s\n%s", code, exitcode.Failure, stderr, stdout)
	}
	if s := readSearch(t, out); ladder(s) != "2 1" || s.Best != 0 || s.Missed != 1 {
		t.Errorf("ladder %q, highest met %g, first missed %g", ladder(s), s.Best, s.Missed)
	}
}

// TestCapacityBadInput: bad goals and flags exit 2 with one line naming
// the fix, before anything starts (no --out directory).
func TestCapacityBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, "no goal given: add --slo"},
		{[]string{"--slo", "cycle.p99<=50"}, "a latency's bound is a positive duration with its unit"},
		{[]string{"--slo", "cycle.p98<=50ms"}, `unknown statistic "p98"`},
		{[]string{"--slo", "errors<=101%"}, "a share from 0% to 100%"},
		{[]string{"--slo", "cycle p99 50ms"}, "want OP.STAT<=VALUE"},
		{[]string{"--slo", "errors<=1%", "--rate", "10"}, "--rate is what capacity searches"},
		{[]string{"--slo", "errors<=1%", "--by", "clients", "--clients", "4"}, "--clients is what capacity searches"},
		{[]string{"--slo", "errors<=1%", "--by", "pool-max"}, `unknown --by "pool-max"`},
		{[]string{"--slo", "errors<=1%", "--vary", "variant=text"}, "--vary does not apply to capacity"},
		{[]string{"--slo", "errors<=1%", "--from", "100", "--max", "10"}, "--max at least --from"},
		{[]string{"--slo", "errors<=1%", "--by", "clients", "--from", "1.5"}, "a whole number from 1"},
		{[]string{"--slo", "errors<=1%", "--repeat", "3", "--max-repeat", "2"}, "--max-repeat 2 is below --repeat 3"},
		{[]string{"--slo", "errors<=1%", "--json", "x.json"}, "--json does not apply to a study"},
		{[]string{"--slo", "errors<=1%", "--max", "1e12"}, "--rate"},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "cap")
		args := append([]string{"capacity", "train-events", "--out", out}, c.args...)
		code, _, stderr := clitest.Run(args...)
		if code != exitcode.Usage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, want %d and one line with %q:\n%s", c.args, code, exitcode.Usage, c.want, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: --out made: %v", c.args, err)
		}
	}
}

// capacityExamples are the `txnbench capacity ...` commands of text: one
// per line, a line ending in a backslash continued on the next.
func capacityExamples(text string) []string {
	var out []string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(lines[i])
		}
		if strings.HasPrefix(line, "txnbench capacity ") && !strings.Contains(line, "WORKLOAD") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(line), "`"))
		}
	}
	return out
}

// shellWords splits a command as a shell would, single quotes only.
func shellWords(cmd string) []string {
	var words []string
	var w strings.Builder
	in, quoted := false, false
	for _, r := range cmd {
		switch {
		case r == '\'':
			quoted, in = !quoted, true
		case r == ' ' && !quoted:
			if in {
				words = append(words, w.String())
				w.Reset()
			}
			in = false
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// TestCapacityExamplesRun runs every `txnbench capacity` example of
// capacity --help, docs/capacity.md and README.md as written, made
// small by flags added after it (later values win): SQLite instead of a
// throwaway server, a 1 s step, one step, no settle. Each must get past
// its arguments (exit 0 or 1, never 2). Before, the tpcb-like example of
// all three exited 2: unknown workload "tpcb-like".
func TestCapacityExamplesRun(t *testing.T) {
	t.Parallel()
	_, help, _ := clitest.Run("capacity", "--help")
	var examples []string
	for _, text := range []string{help, string(clitest.Read(t, clitest.Repo(t, "docs", "capacity.md"))), string(clitest.Read(t, clitest.Repo(t, "README.md")))} {
		examples = append(examples, capacityExamples(text)...)
	}
	if len(examples) < 6 {
		t.Fatalf("%d examples found, want the two of each of help, docs/capacity.md and README.md: %q", len(examples), examples)
	}
	dir := t.TempDir()
	for i, ex := range examples {
		args := shellWords(ex)[1:]
		if args[1] == "train-events" {
			args = append(args, clitest.Quick...)
		}
		args = append(args, "--db", "sqlite:"+filepath.Join(dir, fmt.Sprintf("%d.db", i)), "--duration", "1s", "--settle", "0s",
			"--max-steps", "1", "--repeat", "1", "--out", filepath.Join(dir, fmt.Sprint(i)))
		if code, stdout, stderr := clitest.Run(args...); code != exitcode.OK && code != exitcode.Failure || !strings.Contains(stdout, "## capacity by ") {
			t.Errorf("%s: exit %d, want 0 or 1 with its ladder: %s\n%s", ex, code, stderr, stdout)
		}
	}
}

// TestCapacityDefaultsAgree: the defaults of --repeat, --max-repeat,
// --max-steps, --precision and --out that capacity's flags print are
// those docs/capacity.md and README.md give, and the search uses the
// --repeat one. Before, --help said --repeat 1 and --out study-DATE-TIME
// where the docs said 2 and capacity-DATE-TIME (and the search did 2).
func TestCapacityDefaultsAgree(t *testing.T) {
	t.Parallel()
	_, flags, _ := clitest.Run("capacity", "train-events", "--help")
	def := func(name string) string {
		m := regexp.MustCompile(`(?m)^\s+--` + name + ` \S+\s.*\(default ([^)]+)\)$`).FindStringSubmatch(flags)
		if m == nil {
			t.Fatalf("--%s has no default in the help:\n%s", name, flags)
		}
		return m[1]
	}
	flat := func(path ...string) string {
		return strings.Join(strings.Fields(string(clitest.Read(t, clitest.Repo(t, path...)))), " ")
	}
	docs, readme := flat("docs", "capacity.md"), flat("README.md")
	for _, want := range []struct{ text, in, where string }{
		{"`--repeat` times (" + def("repeat") + ")", docs, "docs/capacity.md"},
		{"`--max-repeat` (" + def("max-repeat") + ")", docs, "docs/capacity.md"},
		{"`--max-steps` (" + def("max-steps") + ")", docs, "docs/capacity.md"},
		{"`--precision` % (" + def("precision") + ")", docs, "docs/capacity.md"},
		{"`--out` (default `" + def("out") + "`)", docs, "docs/capacity.md"},
		{"(`--repeat`, " + def("repeat") + ")", readme, "README.md"},
		{"`--max-repeat`, " + def("max-repeat") + ";", readme, "README.md"},
		{"`--precision` (" + def("precision") + "%)", readme, "README.md"},
	} {
		if !strings.Contains(want.in, want.text) {
			t.Errorf("%s does not say %s, as the flags do", want.where, want.text)
		}
	}
	_, long, _ := clitest.Run("capacity", "--help")
	if !strings.Contains(long, "--repeat\ntimes (default "+def("repeat")+")") || !strings.Contains(long, "--out (default "+def("out")+")") {
		t.Errorf("capacity --help's defaults are not its flags':\n%s", long)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "cap")
	args := append([]string{"capacity", "train-events", "--db", "sqlite:" + filepath.Join(dir, "s.db"), "--slo", "errors<=100%",
		"--by", "clients", "--iterations", "5", "--settle", "0s", "--max-steps", "1", "--out", out}, clitest.Quick...)
	clitest.MustRun(t, args...)
	if s := readSearch(t, out); fmt.Sprint(s.MinReps) != def("repeat") || len(s.Steps[0].Reps) != s.MinReps {
		t.Errorf("the search repeated its step %d times (min %d), the help says %s", len(s.Steps[0].Reps), s.MinReps, def("repeat"))
	}
}

// TestCapacityBehindAndEmptySteps: on SQLite a step at 100,000/s falls
// far behind its schedule; the cycles it never started count in no
// latency, so cycle.p99<=1h alone held and capacity reported the rate as
// met (exit 0). Now the step is missed, naming the schedule. A step at
// 0.0001/s completes nothing in 1 s (a cycle would start there once in
// 10,000 runs): the search ends at it, saying why, where before it went
// on halving into more empty steps called missed.
func TestCapacityBehindAndEmptySteps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		from  string
		want  []string
		steps int
	}{
		{"100000", []string{"| missed ", "first rate that missed: 100000, on its schedule fell behind: ", "stopped: the step bound (1 steps) was hit"}, 1},
		{"0.0001", []string{"| measured nothing ", "stopped: rate 0.0001 measured nothing (no operation completed or failed in its window), so no goal can be told: give a longer --duration"}, 1},
	} {
		out := filepath.Join(dir, tc.from)
		args := append([]string{"capacity", "train-events", "--db", "sqlite:" + filepath.Join(dir, tc.from+".db"), "--slo", "cycle.p99<=1h",
			"--from", tc.from, "--max", "100000", "--max-steps", "1", "--repeat", "1", "--duration", "1s", "--settle", "0s", "--out", out}, clitest.Quick...)
		code, stdout, stderr := clitest.Run(args...)
		if code != exitcode.Failure || !strings.Contains(stderr, "no rate tried met every goal") {
			t.Errorf("--from %s: exit %d, want %d: none met\n%s\n%s", tc.from, code, exitcode.Failure, stderr, stdout)
		}
		for _, want := range tc.want {
			if !strings.Contains(stdout, want) {
				t.Errorf("--from %s: output lacks %q:\n%s", tc.from, want, stdout)
			}
		}
		if s := readSearch(t, out); len(s.Steps) != tc.steps || s.Best != 0 || s.Stop == "" {
			t.Errorf("--from %s: ladder %q, best %g, stopped %q", tc.from, ladder(s), s.Best, s.Stop)
		}
	}
}

// TestCapacityInterruptedSaysSo: a search interrupted in its second step
// exits 130 with the ladder so far, and its stopped line (and
// capacity.json's) says it was interrupted; before it was empty.
func TestCapacityInterruptedSaysSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "cap")
	cmd, stdout, stderr := clitest.Start(t, append([]string{"capacity", "train-events", "--db", "sqlite:" + filepath.Join(dir, "s.db"), "--slo", "errors<=100%",
		"--by", "clients", "--repeat", "1", "--duration", "3s", "--settle", "0s", "--out", out}, clitest.Quick...)...)
	clitest.InterruptWhen(cmd, stderr, func(s string) bool {
		return strings.Contains(s, "[2] clients=2") && strings.Count(s, "loaded 200 of 200") >= 2
	})
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted || !strings.Contains(stdout.String(), "\nstopped: interrupted: the ladder is what finished\n") {
		t.Fatalf("exit %d, want %d and the ladder saying it was interrupted:\n%s\n%s", code, exitcode.Interrupted, stdout.String(), stderr.String())
	}
	if s := readSearch(t, out); s.Stop != "interrupted: the ladder is what finished" {
		t.Errorf("capacity.json stopped %q", s.Stop)
	}
}
