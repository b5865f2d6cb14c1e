package telemetry

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/workload"
)

func TestParseOpTag(t *testing.T) {
	for _, tc := range []struct {
		q, op string
		ok    bool
	}{
		{"/* txnbench op=add */ INSERT INTO t VALUES (1)", "add", true},
		{"  \n/* txnbench op=process */ SELECT 1", "process", true},
		{"/* txnbench op=a b */ SELECT 1", "a b", true},
		{"/* txnbench op= */ SELECT 1", "", false},
		{"/* txnbench op=add", "", false},
		{"SELECT 1 /* txnbench op=add */", "", false},
		{"/* other */ SELECT 1", "", false},
		{"BEGIN", "", false},
		{"", "", false},
		{ownTag + "SELECT 1", "", false},
	} {
		op, ok := ParseOpTag(tc.q)
		if op != tc.op || ok != tc.ok {
			t.Errorf("ParseOpTag(%q) = %q, %v; want %q, %v", tc.q, op, ok, tc.op, tc.ok)
		}
	}
}

// FuzzParseOpTag: whatever OpTag makes of a name parses back to it, and
// no input makes the parser fail or return a name with the comment's end.
func FuzzParseOpTag(f *testing.F) {
	for _, s := range []string{"add", "process", "query", "a*/b", "", " ", "x */ y"} {
		f.Add(s, "SELECT 1")
	}
	f.Fuzz(func(t *testing.T, name, sql string) {
		op, ok := ParseOpTag(workload.OpTag(name) + sql)
		if ok && strings.Contains(op, " */") {
			t.Fatalf("name %q parsed as %q, which holds the comment's end", name, op)
		}
		if name != "" && !strings.Contains(name, "*/") && !strings.HasSuffix(name, " ") {
			if !ok || op != name {
				t.Fatalf("OpTag(%q) parsed back as %q, %v", name, op, ok)
			}
		}
		ParseOpTag(name + sql) // any text: no panic
	})
}
