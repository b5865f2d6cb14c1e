package connectoverhead

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
	"github.com/txnbench/txnbench/internal/workload"
)

// pg15Banner is what SELECT version() says on Debian 12's PostgreSQL 15.
const pg15Banner = "PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit"

// mariaBanner is what SELECT version() says on Debian 12's MariaDB.
const mariaBanner = "10.11.19-MariaDB-0+deb12u1"

// dialectNames are the dialects of the golden files, in order.
var dialectNames = []string{"postgresql-15", "sqlite", "mariadb-10.11"}

// testDialects returns PostgreSQL 15 and MariaDB 10.11 from their banners
// and SQLite from a real temporary database.
func testDialects(t *testing.T) map[string]target.Dialect {
	t.Helper()
	tg := testutil.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "dialect.db"))
	return map[string]target.Dialect{"postgresql-15": target.ParseBanner(pg15Banner), "sqlite": tg.Dialect(), "mariadb-10.11": target.ParseBanner(mariaBanner)}
}

// parseWorkload parses args into a fresh workload and validates it.
func parseWorkload(args ...string) (*Workload, error) {
	w := &Workload{}
	return w, workload.Parse(w, args...)
}

func newTestWorkload(t *testing.T, args ...string) *Workload {
	t.Helper()
	w, err := parseWorkload(args...)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return w
}

// render is the golden text of the workload's SQL on one dialect.
func render(s schema, dialect string, d target.Dialect) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# connect-overhead on %s (%s)\n", dialect, d.Name)
	section := func(name string, qs ...string) {
		for i, q := range qs {
			label := name
			if len(qs) > 1 {
				label = fmt.Sprintf("%s %d", name, i+1)
			}
			fmt.Fprintf(&b, "\n-- %s\n%s;\n", label, q)
		}
	}
	section("ddl", s.ddl...)
	section("drop", s.drop...)
	section("analyze", s.analyze...)
	section("insertUsers", s.insertUsers)
	section("insertOrders", s.insertOrders)
	section("insertItems", s.insertItems)
	section("query select1", s.select1)
	section("query point", s.point)
	section("query complex", s.complex)
	section("totals", s.totals)
	section("userRange", s.userRange)
	section("badTotals", s.badTotals)
	return b.String()
}

func TestSchemaGolden(t *testing.T) {
	ds := testDialects(t)
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			got := render(newSchema(ds[dn].Caps), dn, ds[dn])
			plain.Golden(t, "schema_"+dn+".golden", got)
		})
	}
}

// TestSchemaProperties asserts what must hold whatever the goldens say.
func TestSchemaProperties(t *testing.T) {
	for dn, d := range testDialects(t) {
		s := newSchema(d.Caps)
		if s.arrays != d.Caps.ArrayParams {
			t.Errorf("%s: arrays %v with ArrayParams %v", dn, s.arrays, d.Caps.ArrayParams)
		}
		load := s.insertUsers + s.insertOrders + s.insertItems
		jsonEach := !d.Caps.ArrayParams && !d.Caps.JSONTable
		if d.Caps.ArrayParams != strings.Contains(load, "unnest(") || jsonEach != strings.Contains(load, "json_each(") || d.Caps.JSONTable != strings.Contains(load, "JSON_TABLE(") {
			t.Errorf("%s: load statements do not fit ArrayParams=%v JSONTable=%v:\n%s", dn, d.Caps.ArrayParams, d.Caps.JSONTable, load)
		}
		all := strings.Join(append(append([]string{}, s.ddl...), s.drop...), "\n")
		for _, tbl := range []string{tableUsers, tableOrders, tableItems} {
			if !strings.Contains(all, "CREATE TABLE "+tbl+" ") || !strings.Contains(all, "DROP TABLE IF EXISTS "+tbl) {
				t.Errorf("%s: %s is not created and dropped", dn, tbl)
			}
		}
		for _, q := range []string{s.point, s.complex} {
			if !strings.Contains(q, "$1") || strings.Contains(q, "$2") {
				t.Errorf("%s: %q should take exactly one parameter", dn, q)
			}
		}
		// The queries are the same on every dialect.
		if s.point != newSchema(target.ParseBanner(pg15Banner).Caps).point || s.complex != newSchema(target.ParseBanner(pg15Banner).Caps).complex {
			t.Errorf("%s: the queries differ between dialects", dn)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		args []string
		want string // what the message names
	}{
		{[]string{"--query", "bogus"}, "--query"},
		{[]string{"--query", "SELECT1"}, "--query"},
		{[]string{"--rows", "-1"}, "--rows"},
		{[]string{"--rows", "0"}, "--rows"},
		{[]string{"--rows", "0", "--query", "complex"}, "--rows"},
		{[]string{"--rows", "100000001"}, "--rows"},
		{[]string{"--delay", "-1ms"}, "--delay"},
	}
	for _, tt := range tests {
		_, err := parseWorkload(tt.args...)
		if err == nil {
			t.Errorf("%q accepted", tt.args)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), ": ") {
			t.Errorf("%q: %q should name %s and the fix", tt.args, err, tt.want)
		}
	}
}

func TestValidateAccepts(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--query", "select1", "--rows", "0"},
		{"--query", "point", "--rows", "1"},
		{"--query", "complex", "--rows", "100000000", "--delay", "5ms"},
	} {
		if _, err := parseWorkload(args...); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
}

func TestSettings(t *testing.T) {
	w := newTestWorkload(t)
	want := map[string]any{"query": "point", "rows": 10000, "delay": "0s"}
	if got := w.Settings(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("defaults: %v, want %v", got, want)
	}
	w = newTestWorkload(t, "--query", "complex", "--rows", "50", "--delay", "20ms")
	want = map[string]any{"query": "complex", "rows": 50, "delay": "20ms"}
	if got := w.Settings(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%v, want %v", got, want)
	}
	if got := w.OpNames(); len(got) != 1 || got[0] != "query" {
		t.Errorf("op names %q", got)
	}
}

func TestRegistered(t *testing.T) {
	d, err := workload.Lookup("connect-overhead")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.New().(*Workload); !ok {
		t.Errorf("connect-overhead makes %T", d.New())
	}
}

func TestNextCyclePause(t *testing.T) {
	w := newTestWorkload(t, "--query", "select1", "--delay", "7ms")
	w.bind(target.ParseBanner(pg15Banner))
	cl := newClient(w, nil)
	if p := cl.NextCycle(); p != 7*time.Millisecond {
		t.Errorf("pause %v, want 7ms", p)
	}
}
