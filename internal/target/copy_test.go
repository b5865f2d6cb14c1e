package target_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// copyRows are awkward values for both encodings: quotes, COPY's escape
// characters, NULLs, empty strings, negative and 64-bit numbers.
var copyRows = []struct {
	id   int64
	text *string
}{
	{1, ptr("plain")},
	{-2, ptr("it's \"quoted\"")},
	{3, ptr("tab\there\nnewline\r\\backslash \\N")},
	{4, nil},
	{1 << 40, ptr("")},
	{6, ptr("ünïcode ✓")},
}

func ptr(s string) *string { return &s }

func copySource(n int) target.CopySource {
	i := 0
	return func(r *target.CopyRow) (bool, error) {
		if i == n {
			return false, nil
		}
		row := copyRows[i%len(copyRows)]
		i++
		r.Int(row.id)
		if row.text == nil {
			r.Null()
		} else {
			r.Text(*row.text)
		}
		return true, nil
	}
}

// checkCopied reads the table back and compares it with copyRows.
func checkCopied(t *testing.T, c target.Conn, table string) {
	t.Helper()
	rows, err := c.Query(context.Background(), "SELECT id, v FROM "+table+" ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		var id int64
		var v *string
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		want := copyRows[i]
		if id != want.id || (v == nil) != (want.text == nil) || v != nil && *v != *want.text {
			t.Errorf("row %d: %d, %v; want %d, %v", i, id, deref(v), want.id, deref(want.text))
		}
		i++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(copyRows) {
		t.Errorf("%d rows read back, want %d", i, len(copyRows))
	}
}

func deref(s *string) string {
	if s == nil {
		return "NULL"
	}
	return "'" + *s + "'"
}

// testCopier runs the same checks on any target.
func testCopier(t *testing.T, c target.Conn, seqType string) {
	ctx := context.Background()
	cp, ok := c.(target.Copier)
	if !ok {
		t.Fatalf("%T is no target.Copier", c)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE copied (seq "+seqType+", id bigint, v text)"); err != nil {
		t.Fatal(err)
	}

	t.Run("round trip outside a transaction", func(t *testing.T) {
		n, err := cp.CopyFrom(ctx, target.Copy{Table: "copied", Columns: []string{"id", "v"}, Rows: copySource(len(copyRows))})
		if err != nil || n != int64(len(copyRows)) {
			t.Fatalf("CopyFrom = %d, %v", n, err)
		}
		checkCopied(t, c, "copied")
	})

	t.Run("inside a transaction it rolls back with it", func(t *testing.T) {
		if err := c.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := cp.CopyFrom(ctx, target.Copy{Table: "copied", Columns: []string{"id", "v"}, Rows: copySource(3000)}); err != nil || n != 3000 {
			t.Fatalf("CopyFrom = %d, %v", n, err)
		}
		if got := countRows(t, c, "copied"); got != len(copyRows)+3000 {
			t.Errorf("inside the transaction: %d rows", got)
		}
		if err := c.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		if got := countRows(t, c, "copied"); got != len(copyRows) {
			t.Errorf("after rollback: %d rows", got)
		}
	})

	t.Run("a source error stops the load and loads nothing", func(t *testing.T) {
		boom := errors.New("boom")
		i := 0
		_, err := cp.CopyFrom(ctx, target.Copy{Table: "copied", Columns: []string{"id", "v"}, Rows: func(r *target.CopyRow) (bool, error) {
			if i++; i == 2500 {
				return false, boom
			}
			r.Int(int64(i))
			r.Null()
			return true, nil
		}})
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v, want boom", err)
		}
		if c.Broken() {
			t.Fatal("connection broken after a source error")
		}
		if got := countRows(t, c, "copied"); got != len(copyRows) {
			t.Errorf("after a failed load: %d rows", got)
		}
	})

	t.Run("rows of different widths are refused", func(t *testing.T) {
		i := 0
		_, err := cp.CopyFrom(ctx, target.Copy{Table: "copied", Columns: []string{"id", "v"}, Rows: func(r *target.CopyRow) (bool, error) {
			if i++; i > 3 {
				return false, nil
			}
			r.Int(1)
			if i < 3 {
				r.Null()
			}
			return true, nil
		}})
		if err == nil || !strings.Contains(err.Error(), "fields") {
			t.Fatalf("err = %v", err)
		}
		if got := countRows(t, c, "copied"); got != len(copyRows) {
			t.Errorf("after a failed load: %d rows", got)
		}
	})
}

func TestCopySQLite(t *testing.T) {
	c := connectTo(t, testutil.Open(t, "sqlite:"))
	testCopier(t, c, "INTEGER PRIMARY KEY")
}

func TestCopyPostgres(t *testing.T) {
	tg := testutil.Open(t, testutil.SharedPostgres(t))
	c := connectTo(t, tg)
	testCopier(t, c, "bigint GENERATED ALWAYS AS IDENTITY")

	ctx := context.Background()
	cp := c.(target.Copier)
	t.Run("freeze after truncate in the transaction", func(t *testing.T) {
		if err := c.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "TRUNCATE copied"); err != nil {
			t.Fatal(err)
		}
		if _, err := cp.CopyFrom(ctx, target.Copy{Table: "copied", Columns: []string{"id", "v"}, Freeze: true, Rows: copySource(10)}); err != nil {
			t.Fatal(err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		// Without the truncate in the same transaction the server refuses
		// FREEZE: proof the option reached it.
		_, err := cp.CopyFrom(ctx, target.Copy{Table: "copied", Columns: []string{"id", "v"}, Freeze: true, Rows: copySource(1)})
		if err == nil || !strings.Contains(err.Error(), "FREEZE") {
			t.Errorf("COPY FREEZE outside the truncating transaction: %v", err)
		}
	})

	t.Run("streams in bounded memory", func(t *testing.T) {
		if _, err := c.Exec(ctx, "CREATE UNLOGGED TABLE big (a bigint, b bigint, c text)"); err != nil {
			t.Fatal(err)
		}
		const rows = 1_000_000 // about 30 MB of COPY text
		var i int64
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		n, err := cp.CopyFrom(ctx, target.Copy{Table: "big", Rows: func(r *target.CopyRow) (bool, error) {
			if i == rows {
				return false, nil
			}
			i++
			r.Int(i)
			r.Int(i / 7)
			r.Text("")
			return true, nil
		}})
		runtime.ReadMemStats(&after)
		if err != nil || n != rows {
			t.Fatalf("CopyFrom = %d, %v", n, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
			t.Errorf("copying %d rows allocated %d bytes; want it streamed without per-row allocation", rows, alloc)
		}
	})
}
