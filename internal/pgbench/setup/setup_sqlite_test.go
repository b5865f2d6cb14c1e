package setup_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/pgbench/setup"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// openSQLite opens a session to a new in-memory SQLite database for the
// rest of the test.
func openSQLite(t *testing.T) (target.Conn, target.Dialect) {
	t.Helper()
	tg, c, done := testutil.Conn(t, "sqlite:")
	t.Cleanup(done)
	return c, tg.Dialect()
}

// queryString is the one value of the one row q reads, failing the test
// on an error or no row.
func queryString(t *testing.T, c target.Conn, q string) string {
	t.Helper()
	var s string
	if err := target.QueryRow(context.Background(), c, q, nil, &s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

// stepClock is a clock that moves on by step each time it is read.
func stepClock(step time.Duration) func() time.Time {
	now := time.Unix(0, 0)
	return func() time.Time { t := now; now = now.Add(step); return t }
}

func TestSQLite(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		steps string
		quiet bool
		// step is how far the clock moves each time -q reads it (every
		// 100 rows), so its five-second lines come from the test, not from
		// how fast the machine generates
		step time.Duration
		want string
	}{
		{"dtgvp", false, 0, `dropping old tables...
creating tables...
generating data (client-side)...
100000 of 200000 tuples (50%) done (elapsed X s, remaining X s)
200000 of 200000 tuples (100%) done (elapsed X s, remaining X s)
vacuuming...
creating primary keys...
done in X s (drop tables X s, create tables X s, client-side generate X s, vacuum X s, primary keys X s).
`},
		{"dtGvp", false, 0, `dropping old tables...
creating tables...
generating data (server-side)...
vacuuming...
creating primary keys...
done in X s (drop tables X s, create tables X s, server-side generate X s, vacuum X s, primary keys X s).
`},
		{"dtg", true, 0, `dropping old tables...
creating tables...
generating data (client-side)...
200000 of 200000 tuples (100%) done (elapsed X s, remaining X s)
done in X s (drop tables X s, create tables X s, client-side generate X s).
`},
		// 7 ms per 100 rows: 5.005 s at row 71,500, 10.003 s at 142,900,
		// then the last row
		{"dtg", true, 7 * time.Millisecond, `dropping old tables...
creating tables...
generating data (client-side)...
71500 of 200000 tuples (35%) done (elapsed X s, remaining X s)
142900 of 200000 tuples (71%) done (elapsed X s, remaining X s)
200000 of 200000 tuples (100%) done (elapsed X s, remaining X s)
done in X s (drop tables X s, create tables X s, client-side generate X s).
`},
	} {
		c, d := openSQLite(t)
		o := setup.Defaults()
		o.Scale, o.Steps, o.Quiet, o.Now = 2, tc.steps, tc.quiet, stepClock(tc.step)
		var out bytes.Buffer
		if err := setup.Run(ctx, c, d, o, &out); err != nil {
			t.Fatalf("%s: %v\n%s", tc.steps, err, out.String())
		}
		if got := maskTimings(out.String()); got != tc.want {
			t.Errorf("%s output:\n%s\nwant:\n%s", tc.steps, got, tc.want)
		}
		for q, want := range map[string]string{
			"select count(*) || ' ' || sum(bid) || ' ' || sum(bbalance) || ' ' || count(filler) from pgbench_branches":                          "2 3 0 0",
			"select count(*) || ' ' || sum(tid) || ' ' || sum(bid) || ' ' || sum(tbalance) || ' ' || count(filler) from pgbench_tellers":        "20 210 30 0 0",
			"select count(*) || ' ' || sum(aid) || ' ' || sum(bid) || ' ' || sum(abalance) || ' ' || sum(length(filler)) from pgbench_accounts": "200000 20000100000 300000 0 16800000",
			"select count(*) from pgbench_history": "0",
			"select typeof(aid) || typeof(bid) || typeof(abalance) || typeof(filler) from pgbench_accounts where aid = 150000": "integerintegerintegertext",
			"select bid from pgbench_accounts where aid = 100001":                                                              "2",
		} {
			if got := queryString(t, c, q); got != want {
				t.Errorf("%s: %s = %q, want %q", tc.steps, q, got, want)
			}
		}
		if strings.Contains(tc.steps, "p") {
			if got := queryString(t, c, "select group_concat(name, ',') from (select name from sqlite_master where type = 'index' order by name)"); got != "pgbench_accounts_pkey,pgbench_branches_pkey,pgbench_tellers_pkey" {
				t.Errorf("indexes: %q", got)
			}
		}
		if s, err := setup.Scale(ctx, c); err != nil || s != 2 {
			t.Errorf("Scale = %d, %v", s, err)
		}
		if n, m, err := setup.Partitioning(ctx, c); err != nil || n != 0 || m != "none" {
			t.Errorf("Partitioning = %d, %q, %v", n, m, err)
		}
	}
}

func TestSQLiteRefusesWhatCannotApply(t *testing.T) {
	ctx := context.Background()
	for name, f := range map[string]func(o *setup.Options){
		"--unlogged-tables":  func(o *setup.Options) { o.Unlogged = true },
		"-F/--fillfactor":    func(o *setup.Options) { o.FillFactor = 90 },
		"--partitions":       func(o *setup.Options) { o.Partitions = 2 },
		"--tablespace":       func(o *setup.Options) { o.Tablespace = "x" },
		"--index-tablespace": func(o *setup.Options) { o.IndexTablespace = "x" },
		"--foreign-keys":     func(o *setup.Options) { o.ForeignKeys = true },
		"step f":             func(o *setup.Options) { o.Steps = "dtf" },
	} {
		c, d := openSQLite(t)
		o := setup.Defaults()
		f(&o)
		var out bytes.Buffer
		err := setup.Run(ctx, c, d, o, &out)
		if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(strings.Split(name, " ")[0], "step")) || !strings.Contains(err.Error(), "SQLite") {
			t.Errorf("%s: error %v", name, err)
		}
		if out.Len() != 0 {
			t.Errorf("%s: ran before refusing: %q", name, out.String())
		}
	}
}

func TestSQLiteScaleWithoutTables(t *testing.T) {
	c, _ := openSQLite(t)
	_, err := setup.Scale(context.Background(), c)
	if err == nil {
		t.Fatal("no error")
	}
	got := render(err)
	if !strings.HasPrefix(got, "pgbench: error: could not count number of branches: ") ||
		!strings.Contains(got, "pgbench: hint: Perhaps you need to do initialization (\"pgbench -i\") in database \"/") {
		t.Errorf("got %q", got)
	}
}

// TestTerminalProgress: on a terminal pgbench ends progress lines with a
// carriage return and moves to a new line when generation ends.
func TestTerminalProgress(t *testing.T) {
	c, d := openSQLite(t)
	o := setup.Defaults()
	o.Scale, o.Steps, o.Terminal = 2, "dtg", true
	var out bytes.Buffer
	if err := setup.Run(context.Background(), c, d, o, &out); err != nil {
		t.Fatal(err)
	}
	want := "generating data (client-side)...\n100000 of 200000 tuples (50%) done (elapsed X s, remaining X s)\r200000 of 200000 tuples (100%) done (elapsed X s, remaining X s)\r\ndone in"
	if got := maskTimings(out.String()); !strings.Contains(got, want) {
		t.Errorf("got %q, want it to contain %q", got, want)
	}
}
