package mysql

import (
	"reflect"
	"testing"
)

func TestPlaceholders(t *testing.T) {
	for _, c := range []struct {
		in, want string
		args     []any
		wantArgs []any
	}{
		{"SELECT 1", "SELECT 1", nil, nil},
		{"SELECT a FROM t WHERE id = $1", "SELECT a FROM t WHERE id = ?", []any{7}, []any{7}},
		{"UPDATE t SET a = $2 WHERE id = $1 AND b = $2", "UPDATE t SET a = ? WHERE id = ? AND b = ?", []any{1, "x"}, []any{"x", 1, "x"}},
		{"SELECT '$1', \"$2\", `$3`, 'it''s $1', 'a\\'$1' FROM t WHERE x = $1", "SELECT '$1', \"$2\", `$3`, 'it''s $1', 'a\\'$1' FROM t WHERE x = ?", []any{5}, []any{5}},
		{"SELECT $10 -- $1\n, /* $2 */ $1", "SELECT ? -- $1\n, /* $2 */ ?", []any{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []any{10, 1}},
		{"SELECT price$ FROM t WHERE a = $1", "SELECT price$ FROM t WHERE a = ?", []any{1}, []any{1}},
	} {
		got, args := placeholders(c.in, c.args)
		if got != c.want || !reflect.DeepEqual(args, c.wantArgs) {
			t.Errorf("placeholders(%q, %v) = %q, %v; want %q, %v", c.in, c.args, got, args, c.want, c.wantArgs)
		}
	}
}
