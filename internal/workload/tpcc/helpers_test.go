package tpcc

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

// small is the scale of the tests: two warehouses (so remote payments and
// order lines happen), 1,000 items, 30 customers per district.
var small = []string{"--warehouses", "2", "--items", "1000", "--customers-per-district", "30", "--wait=false"}

// parseWorkload parses args into a fresh workload and validates it.
func parseWorkload(args ...string) (*Workload, error) {
	w := &Workload{}
	return w, workload.Parse(w, args...)
}

// initWorkload validates args and runs Init with seed 1 (loading in
// parallel where the dialect can), then Start.
func initWorkload(t *testing.T, tg target.Target, c target.Conn, fresh bool, args ...string) *Workload {
	t.Helper()
	return initSeed(t, tg, c, fresh, 1, tg.Connect, args...)
}

// initSeed is initWorkload with the seed and the sessions of a parallel
// load (nil: Init's own only).
func initSeed(t *testing.T, tg target.Target, c target.Conn, fresh bool, seed uint64, connect func(context.Context) (target.Conn, error), args ...string) *Workload {
	t.Helper()
	w, err := parseWorkload(args...)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	o := workload.InitOptions{Fresh: fresh, Seed: seed, Progress: func(string) {}, Connect: connect}
	if _, err := w.Init(context.Background(), c, tg.Dialect(), o); err != nil {
		t.Fatalf("Init %q: %v", args, err)
	}
	if err := w.Start(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return w
}

// checkOK fails the test unless every condition holds.
func checkOK(t *testing.T, w *Workload, c target.Conn) result.Check {
	t.Helper()
	ch, err := w.Check(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !ch.OK || len(ch.Items) != len(conditions)+1 {
		t.Fatalf("check failed: %q %+v", testutil.FailedItems(ch), ch)
	}
	return ch
}

// runCycles runs n cycles of terminal id on c as the runner would, one
// attempt each, and returns how many of each transaction ran.
func runCycles(t *testing.T, w *Workload, c target.Conn, id, n int) [5]int {
	t.Helper()
	ctx := context.Background()
	cl := w.NewClient(id, rand.New(rand.NewPCG(uint64(id), 7))).(*client)
	var ran [5]int
	for range n {
		i := cl.Choose()
		cl.NextCycle()
		if err := cl.Ops()[i].Run(ctx, c); err != nil {
			t.Fatalf("%s: %v", opNames[i], err)
		}
		ran[i]++
	}
	return ran
}
