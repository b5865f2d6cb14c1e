package setup_test

import (
	"context"
	"testing"

	"github.com/txnbench/txnbench/internal/pgbench/setup"
	"github.com/txnbench/txnbench/internal/target"
)

// TestStandardLoaders: YCSB's and sysbench's loaders make their tables
// with keys 1 to N and values of their sizes, replace what is there, and
// ReadKeys tells loaded rows from inserted ones (keys from InsertKeys).
func TestStandardLoaders(t *testing.T) {
	ctx := context.Background()
	c, _ := openSQLite(t)
	for i := 0; i < 2; i++ { // the second load replaces the first
		if err := setup.YCSB(ctx, c, 50); err != nil {
			t.Fatal(err)
		}
		if err := setup.Sysbench(ctx, c, 2, 30); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]setup.Keys{
		"usertable": {Loaded: 50, Min: 1, Max: 50}, "sbtest1": {Loaded: 30, Min: 1, Max: 30}, "sbtest2": {Loaded: 30, Min: 1, Max: 30},
	}
	key := map[string]string{"usertable": "ycsb_key", "sbtest1": "id", "sbtest2": "id"}
	for table, w := range want {
		if k, err := setup.ReadKeys(ctx, c, table, key[table]); err != nil || k != w {
			t.Errorf("%s: %+v, %v; want %+v", table, k, err, w)
		}
	}
	if got := queryString(t, c, "SELECT length(field9) || ' ' || length(c) || ' ' || length(pad) FROM usertable, sbtest2 WHERE ycsb_key = 3 AND id = 3"); got != "100 119 59" {
		t.Errorf("field9, c, pad lengths %q, want 100 119 59", got)
	}
	next, err := setup.NextKey(ctx, c, "usertable", "ycsb_key")
	if err != nil || next != setup.InsertKeys {
		t.Fatalf("NextKey = %d, %v; want %d", next, err, setup.InsertKeys)
	}
	if _, err := c.Exec(ctx, "INSERT INTO usertable (ycsb_key, field0, field1, field2, field3, field4, field5, field6, field7, field8, field9) "+
		"SELECT ?, field0, field1, field2, field3, field4, field5, field6, field7, field8, field9 FROM usertable WHERE ycsb_key = 1", next); err != nil {
		t.Fatal(err)
	}
	k, err := setup.ReadKeys(ctx, c, "usertable", "ycsb_key")
	if err != nil || k != (setup.Keys{Loaded: 50, Min: 1, Max: 50, Inserted: 1}) {
		t.Errorf("after one insert: %+v, %v", k, err)
	}
	if next, err = setup.NextKey(ctx, c, "usertable", "ycsb_key"); err != nil || next != setup.InsertKeys+1 {
		t.Errorf("NextKey after an insert = %d, %v", next, err)
	}
	if _, err := setup.ReadKeys(ctx, c, "nope", "id"); !target.IsUndefinedTable(err) {
		t.Errorf("a missing table: %v, want an undefined-table error", err)
	}
}
