package target_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

func TestQueryRow(t *testing.T) {
	ctx := context.Background()
	c := connectTo(t, testutil.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "x.db")))
	var a, b int64
	if err := target.QueryRow(ctx, c, "SELECT ?, ? + 1", []any{int64(4), int64(4)}, &a, &b); err != nil || a != 4 || b != 5 {
		t.Fatalf("QueryRow = %d, %d, %v; want 4, 5, nil", a, b, err)
	}
	err := target.QueryRow(ctx, c, "SELECT 1 WHERE 1 = 0", nil, &a)
	if !errors.Is(err, target.ErrNoRow) || !strings.Contains(err.Error(), "no row from SELECT 1 WHERE 1 = 0") {
		t.Fatalf("QueryRow of no row: %v, want an error naming the query", err)
	}
}
