package studies

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/study"
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
	code, stdout, stderr := clitest.Run(args...)
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	s := readSearch(t, out)
	if got := ladder(s); got != "1 2 4 3" || s.Best != 3 || s.Missed != 4 || !strings.HasPrefix(s.MissedGoal, "connect.count<=3 (measured 4") {
		t.Errorf("ladder %q, highest met %g, first missed %g on %q; want 1 2 4 3, 3, 4 on connect.count<=3", got, s.Best, s.Missed, s.MissedGoal)
	}
	for _, want := range []string{"highest clients that met every goal: **3**", "first clients that missed: 4, on connect.count<=3 (measured 4)", "stopped: converged: 3 met, 4 missed", "| clients=3 "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
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
// every rate tried, bounded by --max: it doubles 20, 40, 80 and stops at
// the bound, each step repeated twice (the default) as they agree. (At
// 20/s a 500ms step completes no cycle once in e^10 runs; before its
// measures were saved as null such a step left capacity.json empty.)
func TestCapacityByRate(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cap")
	args := append([]string{"capacity", "train-events", "--db", "sqlite:" + filepath.Join(dir, "s.db"), "--slo", "errors<=0%", "--slo", "cycle.max<=1h",
		"--from", "20", "--max", "80", "--duration", "500ms", "--settle", "0s", "--out", out}, clitest.Quick...)
	code, stdout, stderr := clitest.Run(args...)
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	s := readSearch(t, out)
	if got := ladder(s); got != "20 40 80" || s.Best != 80 || s.Missed != 0 || !strings.Contains(s.Stop, "up to the bound, rate 80") {
		t.Errorf("ladder %q, highest met %g, first missed %g, stopped %q", got, s.Best, s.Missed, s.Stop)
	}
	for _, st := range s.Steps {
		if len(st.Reps) != 2 || !st.Met || !st.Agreed {
			t.Errorf("step %+v: want 2 agreeing repetitions that met", st)
		}
	}
	if !strings.Contains(stdout, "highest rate that met every goal: **80**") || !strings.Contains(stdout, "no rate tried missed a goal") {
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
