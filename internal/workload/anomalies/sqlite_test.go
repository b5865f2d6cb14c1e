package anomalies

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/history"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

// newRun makes and starts a workload of model on a SQLite database with
// args, and two clients.
func newRun(t *testing.T, model history.Model, args ...string) (*Workload, target.Conn, []workload.Client) {
	t.Helper()
	ctx := context.Background()
	tg := testutil.SQLite(t)
	conn := testutil.Session(t, tg)
	w := &Workload{model: model}
	if err := workload.Parse(w, args...); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Init(ctx, conn, tg.Dialect(), workload.InitOptions{Clients: 2, Progress: func(string) {}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(ctx, conn); err != nil {
		t.Fatal(err)
	}
	var cs []workload.Client
	for id := range 2 {
		cs = append(cs, w.NewClient(id, rand.New(rand.NewPCG(1, uint64(id)))))
	}
	return w, conn, cs
}

// cycles runs n cycles of each client in turn on conn.
func cycles(t *testing.T, conn target.Conn, cs []workload.Client, n int) {
	t.Helper()
	for range n {
		for _, c := range cs {
			c.NextCycle()
			if err := c.Ops()[0].Run(context.Background(), conn); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSQLiteRecordsAndChecks: both models on SQLite (serializable), run
// serially: every transaction is in the history with its micro-ops, none
// is an anomaly, and the saved history loads back as it was checked.
func TestSQLiteRecordsAndChecks(t *testing.T) {
	for _, model := range []history.Model{history.ListAppend, history.Register} {
		t.Run(model.String(), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "h")
			w, conn, cs := newRun(t, model, "--keys", "2", "--txn-len", "3", "--history", file)
			cycles(t, conn, cs, 60) // 240 writes at most: every key slot rotates
			ch, err := w.Check(context.Background(), conn)
			if err != nil {
				t.Fatal(err)
			}
			a := ch.Anomalies
			if !ch.OK || a == nil || a.Transactions != 120 || len(a.Found) > 0 || a.Promise != "SQLite's serializable" {
				t.Fatalf("check %+v, anomalies %+v: want OK, 120 transactions and none", ch, a)
			}
			h, err := history.Load(file)
			if err != nil || len(h.Txns) != 120 || h.Model != model {
				t.Fatalf("the saved history: %v", err)
			}
			minOps := 3 * 120
			if len(h.Ops) < minOps || slices.ContainsFunc(h.Txns, func(x history.Txn) bool { return x.Outcome != history.OK }) {
				t.Errorf("%d micro-ops (want %d at least), outcomes not all ok", len(h.Ops), minOps)
			}
		})
	}
}

// TestSQLiteLostAppendsAreAViolation: a database that loses committed
// appends (planted: every list emptied midway through the run, behind the
// clients' backs) gives reads that contradict earlier ones, which
// serializable rules out: the check fails, naming the isolation.
func TestSQLiteLostAppendsAreAViolation(t *testing.T) {
	w, conn, cs := newRun(t, history.ListAppend, "--keys", "2", "--txn-len", "4")
	cycles(t, conn, cs, 4)
	if _, err := conn.Exec(context.Background(), "UPDATE "+tableLists+" SET vals = ''"); err != nil {
		t.Fatal(err)
	}
	cycles(t, conn, cs, 4)
	testutil.CheckFails(t, w, conn, []string{"isolation kept"})
	ch, _ := w.Check(context.Background(), conn)
	if v := ch.Anomalies.Violations(); v == 0 || !strings.Contains(ch.Items[0].Detail, "SQLite's serializable") {
		t.Errorf("anomalies %+v: want a violation of SQLite's serializable", ch.Anomalies)
	}
}

func TestParseList(t *testing.T) {
	got, err := parseList(nil, ",3,17,5")
	if err != nil || !slices.Equal(got, []int64{3, 17, 5}) {
		t.Errorf("parseList: %v, %v", got, err)
	}
	if got, err := parseList(nil, ""); err != nil || len(got) != 0 {
		t.Errorf("parseList of nothing: %v, %v", got, err)
	}
	for _, bad := range []string{"3", ",3,,4", ",x"} {
		if _, err := parseList(nil, bad); err == nil {
			t.Errorf("parseList(%q) took it", bad)
		}
	}
}
