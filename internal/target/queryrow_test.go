package target

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestQueryRow(t *testing.T) {
	ctx := context.Background()
	c := connect(t, openSQLiteForTest(t))
	var a, b int64
	if err := QueryRow(ctx, c, "SELECT ?, ? + 1", []any{int64(4), int64(4)}, &a, &b); err != nil || a != 4 || b != 5 {
		t.Fatalf("QueryRow = %d, %d, %v; want 4, 5, nil", a, b, err)
	}
	err := QueryRow(ctx, c, "SELECT 1 WHERE 1 = 0", nil, &a)
	if !errors.Is(err, ErrNoRow) || !strings.Contains(err.Error(), "no row from SELECT 1 WHERE 1 = 0") {
		t.Fatalf("QueryRow of no row: %v, want an error naming the query", err)
	}
}
