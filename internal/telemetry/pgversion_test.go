package telemetry

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// TestUntaggedNote: on PostgreSQL 18, whose pg_stat_statements drops a
// query's leading comment (measured on 18.4: the op tags are gone from
// every text), statements without any op get a note instead of silently
// losing server(ms); earlier versions, or any statement that kept its op,
// get none.
func TestUntaggedNote(t *testing.T) {
	untagged := []result.Statement{{Query: "SELECT id FROM co_users WHERE id = $1", Calls: 9}}
	tagged := []result.Statement{{Op: "query", Query: "/* txnbench op=query */ SELECT 1", Calls: 9}}
	if n := untaggedNote(180004, untagged); !strings.Contains(n, "PostgreSQL 18") || !strings.Contains(n, "no server time per op") {
		t.Errorf("18 without op tags: note %q", n)
	}
	for _, c := range []struct {
		num int
		st  []result.Statement
	}{{170010, untagged}, {180004, tagged}, {180004, nil}} {
		if n := untaggedNote(c.num, c.st); n != "" {
			t.Errorf("%d %v: note %q, want none", c.num, c.st, n)
		}
	}
}
