package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/workload"
)

// TestRunHelpGrouped: "txnbench run WORKLOAD --help" lists every flag
// under a named group (none under "Other"), no line wider than 100
// characters, three examples and docs pages that exist. Before it was one
// flat list of 54 lines, 25 of them wider than 120.
func TestRunHelpGrouped(t *testing.T) {
	groups := []string{"Database:", "Load shape:", "Connections:", "Pooler:", "Faults:", "Outputs:", "Telemetry:", "Shards (one run split across processes or machines):"}
	for _, name := range workload.Names() {
		code, stdout, stderr := runMain("run", name, "--help")
		out := stdout + stderr
		if code != exitcode.OK {
			t.Fatalf("%s: exit %d:\n%s", name, code, out)
		}
		for i, line := range strings.Split(out, "\n") {
			if len(line) > helpWidth {
				t.Errorf("%s: line %d is %d characters wide: %q", name, i+1, len(line), line)
			}
		}
		for _, g := range append(groups, "Workload "+name+":", "Examples:") {
			if !strings.Contains(out, "\n"+g+"\n") {
				t.Errorf("%s: no group %q", name, g)
			}
		}
		if strings.Contains(out, "\nOther:\n") {
			t.Errorf("%s: flags in no group: add them to helpGroups (help.go):\n%s", name, out[strings.Index(out, "\nOther:\n"):])
		}
		if n := len(regexp.MustCompile(`(?m)^  txnbench run `+name+` -`).FindAllString(out, -1)); n != 3 {
			t.Errorf("%s: %d examples, want 3", name, n)
		}
		for _, page := range regexp.MustCompile(`(README\.md|docs/[a-z-]+\.md)`).FindAllString(out, -1) {
			if _, err := os.Stat(filepath.Join("..", "..", page)); err != nil {
				t.Errorf("%s: the help names %s: %v", name, page, err)
			}
		}
	}
}

// TestRootHelpNamesEveryEngine: the top-level --help names each kind of
// database --db takes, MariaDB's and MySQL's too (it named only SQLite and
// PostgreSQL-wire servers, though --db takes temp-mariadb and mysql://).
func TestRootHelpNamesEveryEngine(t *testing.T) {
	code, stdout, stderr := runMain("--help")
	if code != exitcode.OK {
		t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
	}
	flat := strings.Join(strings.Fields(stdout), " ")
	for _, want := range []string{"SQLite", "temp-postgres", "temp-mariadb", "postgres:// URL", "MariaDB or MySQL by mysql:// URL"} {
		if !strings.Contains(flat, want) {
			t.Errorf("txnbench --help does not name %q:\n%s", want, stdout)
		}
	}
}
