package outputs

import (
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
)

// TestOneMeasurementWindow: the table, the JSON's intervals and its op
// counts describe the same window: the intervals add up to the counts, the
// last one ends where the window does, and the table's rate is the count
// over the window.
func TestOneMeasurementWindow(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "train-events", "--db", "sqlite:" + filepath.Join(t.TempDir(), "w.db"), "--clients", "4",
		"--duration", "1s", "--progress", "300ms", "--json", out}, clitest.Quick...)
	stdout, _ := clitest.MustRun(t, args...)
	r := clitest.LoadResult(t, out)
	last := r.Intervals[len(r.Intervals)-1]
	if math.Abs(last.ElapsedS-r.MeasuredS) > 0.001 {
		t.Errorf("last interval ends at %.4f s, measured_s %.4f", last.ElapsedS, r.MeasuredS)
	}
	for _, o := range r.Ops {
		if sum := intervalsCount(r, o.Name); sum != o.Count {
			t.Errorf("%s: intervals add up to %d, count %d", o.Name, sum, o.Count)
		}
		row := regexp.MustCompile(`(?m)^\s*\d+\s+` + regexp.QuoteMeta(o.Name) + `\s+\d+\s+([\d,]+)\s+([\d,.]+)\s`).FindStringSubmatch(stdout)
		if row == nil {
			t.Fatalf("no row for %s:\n%s", o.Name, stdout)
		}
		rate, _ := strconv.ParseFloat(strings.ReplaceAll(row[2], ",", ""), 64)
		if row[1] != thousandsOf(o.Count) || math.Abs(rate-float64(o.Count)/r.MeasuredS) > 0.05 {
			t.Errorf("%s: table says %s ops at %s/s; JSON %d over %.3f s", o.Name, row[1], row[2], o.Count, r.MeasuredS)
		}
	}
}

// thousandsOf formats n as the table does.
func thousandsOf(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestGraceUsage: --grace must be positive.
func TestGraceUsage(t *testing.T) {
	for arg, want := range map[string]string{"0s": "--grace 0s: give a positive duration", "-1s": "--grace -1s is negative"} {
		code, _, stderr := clitest.Run("run", "train-events", "--grace", arg)
		if code != exitcode.Usage || !strings.Contains(stderr, want) {
			t.Errorf("--grace %s: exit %d, stderr %q; want %d saying %q", arg, code, stderr, exitcode.Usage, want)
		}
	}
}

// intervalsCount is how many ops named name r's intervals count, summed.
func intervalsCount(r *result.Result, name string) int64 {
	var sum int64
	for _, iv := range r.Intervals {
		for _, io := range iv.Ops {
			if io.Name == name {
				sum += io.Count
			}
		}
	}
	return sum
}
