package telemetry

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/workload"
)

func TestParseOpTag(t *testing.T) {
	for q, want := range map[string]string{ // "" for none, and ok false
		"/* txnbench op=add */ INSERT INTO t VALUES (1)": "add",
		"  \n/* txnbench op=process */ SELECT 1":         "process",
		"/* txnbench op=a b */ SELECT 1":                 "a b",
		"/* txnbench op= */ SELECT 1":                    "",
		"/* txnbench op=add":                             "",
		"SELECT 1 /* txnbench op=add */":                 "",
		"/* other */ SELECT 1":                           "",
		"BEGIN":                                          "",
		"":                                               "",
		ownTag + "SELECT 1":                              "",
	} {
		if op, ok := ParseOpTag(q); op != want || ok != (want != "") {
			t.Errorf("ParseOpTag(%q) = %q, %v; want %q", q, op, ok, want)
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
