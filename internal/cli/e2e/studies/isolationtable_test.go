package studies

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/testutil"
)

// isolationLevels are the cells of the studies below.
var isolationLevels = []string{"read-committed", "repeatable-read", "serializable"}

// isolationTable runs a study of args over --vary
// isolation=read-committed,repeatable-read,serializable on db and returns
// the rows of study.md's table of what each level cost and let through,
// after asserting it has one row a level, each with its throughput,
// retries, errors, anomalies and invariants.
func isolationTable(t *testing.T, db string, args ...string) map[string][]string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "st")
	all := append(append([]string{"study"}, args...), "--db", db, "--vary", "isolation="+strings.Join(isolationLevels, ","), "--settle", "0s", "--out", out)
	clitest.MustRun(t, all...)
	md, _ := os.ReadFile(filepath.Join(out, "study.md"))
	_, table, ok := strings.Cut(string(md), "## isolation: cost and check\n")
	if !ok {
		t.Fatalf("study.md has no isolation table:\n%s", md)
	}
	lines := strings.Split(strings.TrimSpace(table), "\n")
	cols := func(l string) []string {
		var cs []string
		for _, c := range strings.Split(strings.Trim(l, "|"), "|") {
			cs = append(cs, strings.TrimSpace(c))
		}
		return cs
	}
	if len(lines) < 2+len(isolationLevels) || strings.Join(cols(lines[0]), ",") != "cell,txn/s,retries,errors,errors by class,anomalies,invariants" {
		t.Fatalf("the isolation table's heading or rows:\n%s", table)
	}
	rows := map[string][]string{}
	for _, l := range lines[2 : 2+len(isolationLevels)] {
		cs := cols(l)
		rows[strings.TrimPrefix(cs[0], "isolation=")] = cs
	}
	for _, level := range isolationLevels {
		r, ok := rows[level]
		if !ok || len(r) != 7 || r[1] == "" || r[2] == "" || r[6] == "" {
			t.Errorf("no full row for %s in the isolation table:\n%s", level, md)
		}
	}
	return rows
}

// TestStudyIsolationTable: a study over isolation on PostgreSQL (the
// package's shared cluster) shows each level's throughput, retries and
// check side by side: for train-events and tpcc the check is their
// invariants (OK at every level, no history: anomalies "-"); for
// list-append it is the history, checked at each level (none at
// serializable, and a verdict in every row).
func TestStudyIsolationTable(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"train-events", append([]string{"train-events", "--iterations", "6", "--clients", "2"}, clitest.Quick...)},
		{"tpcc", []string{"tpcc", "--iterations", "6", "--clients", "2", "--warehouses", "1", "--items", "1000", "--customers-per-district", "30", "--wait=false"}},
		{"list-append", []string{"list-append", "--iterations", "15", "--clients", "4", "--keys", "8"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := isolationTable(t, testutil.SharedPostgres(t), c.args...)
			for _, level := range isolationLevels {
				r := rows[level]
				switch {
				case len(r) != 7:
				case c.name != "list-append" && (r[5] != "-" || r[6] != "OK"):
					t.Errorf("%s at %s: anomalies %q, invariants %q; want - (no history) and OK", c.name, level, r[5], r[6])
				case c.name == "list-append" && (!strings.Contains(r[5], " in ") || level == "serializable" && !strings.HasPrefix(r[5], "none in ")):
					t.Errorf("%s at %s: anomalies %q; want the history's verdict (none at serializable)", c.name, level, r[5])
				}
			}
		})
	}
}
