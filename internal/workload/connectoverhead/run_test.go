package connectoverhead

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

// testRows is the dataset of the end-to-end tests: 25 regions of about 20
// users, like every region of a full-size dataset.
const testRows = 500

// testCycles is how many queries of each kind the end-to-end tests run.
const testCycles = 300

// initWorkload validates args and runs Init with seed 1.
func initWorkload(t *testing.T, tg target.Target, c target.Conn, fresh bool, args ...string) (*Workload, bool) {
	t.Helper()
	w := newTestWorkload(t, args...)
	created, err := w.Init(context.Background(), c, tg.Dialect(), workload.InitOptions{
		Fresh: fresh, Seed: 1, Progress: func(string) {},
	})
	if err != nil {
		t.Fatalf("Init %q: %v", args, err)
	}
	return w, created
}

func checkOK(t *testing.T, w *Workload, c target.Conn) {
	t.Helper()
	ch, err := w.Check(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !ch.OK || len(testutil.FailedItems(ch)) > 0 || len(ch.Items) != 4 || ch.UnknownCommits != 0 {
		t.Fatalf("check failed: %+v", ch)
	}
}

func median(ds []time.Duration) time.Duration { return percentile(ds, 50) }

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)*p/100]
}

// runAllKinds loads the dataset on tg, then runs testCycles queries of
// each kind on one session through NextCycle and the op, compares every
// answer with the dataset regenerated in Go, checks the invariants and
// logs the median latencies.
func runAllKinds(t *testing.T, tg target.Target) {
	ctx := context.Background()
	conn := testutil.Session(t, tg)
	if _, created := initWorkload(t, tg, conn, true, "--rows", fmt.Sprint(testRows)); !created {
		t.Fatal("Init with Fresh did not create the dataset")
	}
	exp := generate(1, testRows)
	name := tg.Dialect().Name + " " + tg.Dialect().Version

	// What a new session costs here, for comparison.
	var connects []time.Duration
	for range 20 {
		start := time.Now()
		c, err := tg.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		connects = append(connects, time.Since(start))
		c.Close(ctx)
	}
	t.Logf("%s: connect median %v", name, median(connects))

	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			w, created := initWorkload(t, tg, conn, false, "--rows", fmt.Sprint(testRows), "--query", kind)
			if created {
				t.Fatal("Init without Fresh reloaded an existing dataset")
			}
			if err := w.Start(ctx, conn); err != nil {
				t.Fatal(err)
			}
			if w.base != exp.totals {
				t.Fatalf("Start counted %+v, the generator made %+v", w.base, exp.totals)
			}
			cl := w.NewClient(0, rand.New(rand.NewPCG(9, 9))).(*client)
			ops := cl.Ops()
			if len(ops) != 1 || ops[0].Name != "query" {
				t.Fatalf("ops %v", ops)
			}
			// Each cycle runs the op, then the same query alone (without
			// Begin and Commit) for comparison: interleaved, so that the
			// machine's noise falls on both alike.
			lat := make([]time.Duration, 0, testCycles)
			bare := make([]time.Duration, 0, testCycles)
			seen := map[int64]bool{} // users or regions queried
			for i := range testCycles {
				if p := cl.NextCycle(); p != 0 {
					t.Fatalf("pause %v with --delay 0", p)
				}
				start := time.Now()
				if err := ops[0].Run(ctx, conn); err != nil {
					t.Fatalf("cycle %d: %v", i, err)
				}
				lat = append(lat, time.Since(start))
				switch kind {
				case kindSelect1:
					if cl.n != 1 || cl.one != 1 {
						t.Fatalf("select1: %d rows, value %d", cl.n, cl.one)
					}
					seen[0] = true
				case kindPoint:
					u, want := cl.user, exp.users[cl.id-1]
					if cl.n != 1 || u.id != want.id || u.email != want.email || u.name != want.name ||
						u.region != want.region || u.status != want.status || !u.createdAt.Equal(want.createdAt) {
						t.Fatalf("point %d: %d rows, %+v, want %+v", cl.id, cl.n, u, want)
					}
					seen[cl.id] = true
				case kindComplex:
					want := exp.top[regionName(cl.region)]
					if len(want) == 0 || cl.n != len(want) || !slices.Equal(cl.top, want) {
						t.Fatalf("complex %s: %d rows\n got %+v\nwant %+v", regionName(cl.region), cl.n, cl.top, want)
					}
					seen[int64(cl.region)] = true
				}
				start = time.Now()
				rows, err := conn.Query(ctx, cl.sql, cl.args...)
				if err == nil {
					err = cl.scan(rows)
				}
				if err != nil {
					t.Fatal(err)
				}
				bare = append(bare, time.Since(start))
			}
			if kind != kindSelect1 && len(seen) < 5 {
				t.Errorf("%d cycles queried only %d users or regions", testCycles, len(seen))
			}
			allocs := testing.AllocsPerRun(100, func() {
				cl.NextCycle()
				if err := ops[0].Run(ctx, conn); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("%s %s: median %v (p10 %v) per transaction (Begin, query, read rows, Commit), %.0f allocations; %v (p10 %v) for the query alone",
				name, kind, median(lat), percentile(lat, 10), allocs, median(bare), percentile(bare, 10))
			checkOK(t, w, conn)
		})
	}
}
