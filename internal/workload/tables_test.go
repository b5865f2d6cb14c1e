package workload_test

import (
	"context"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

// TestTablesExist: a missing table means "create them", every table there
// means "reuse them", and any other error is returned, never taken as
// leave to drop what is there.
func TestTablesExist(t *testing.T) {
	ctx := context.Background()
	c := testutil.Session(t, testutil.SQLite(t))
	probe := []string{"SELECT 1 FROM a LIMIT 0", "SELECT 1 FROM b LIMIT 0"}
	if ok, err := workload.TablesExist(ctx, c, probe, "test tables"); ok || err != nil {
		t.Fatalf("no tables: %v, %v; want false, nil", ok, err)
	}
	if err := workload.CreateTables(ctx, c, []string{"DROP TABLE IF EXISTS a", "DROP TABLE IF EXISTS b"}, []string{"CREATE TABLE a (x int)"}, "test tables"); err != nil {
		t.Fatal(err)
	}
	if ok, err := workload.TablesExist(ctx, c, probe, "test tables"); ok || err != nil {
		t.Fatalf("one of two tables: %v, %v; want false, nil", ok, err)
	}
	if err := workload.CreateTables(ctx, c, nil, []string{"CREATE TABLE b (x int)"}, "test tables"); err != nil {
		t.Fatal(err)
	}
	if ok, err := workload.TablesExist(ctx, c, probe, "test tables"); !ok || err != nil {
		t.Fatalf("both tables: %v, %v; want true, nil", ok, err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if ok, err := workload.TablesExist(canceled, c, probe, "test tables"); ok || err == nil || !strings.Contains(err.Error(), "looking for the test tables") {
		t.Errorf("a canceled probe: %v, %v; want its error", ok, err)
	}
	if err := workload.CreateTables(ctx, c, nil, []string{"CREATE TABLE a (x int)"}, "test tables"); err == nil || !strings.Contains(err.Error(), "creating the test tables") {
		t.Errorf("creating a table that exists: %v", err)
	}
}
