package script

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
)

// sqlTextScript has SQL commands whose exact text matters: pgbench --debug
// logs each statement as it sends it, which the test compares with ours.
const sqlTextScript = `-- leading comment
select :a::int + :b as "q",  -- trailing comment
  1 /* block ; comment */ as c;
select $$ ; $$ as d, :_x1 as e
;
select 1::int as u, :a as v, :b as f \gset
select :{?a} as g, :s::text as h;
select 5 as ":1a";
`

func TestDifferentialSQLText(t *testing.T) {
	bin := testutil.NeedPgbench(t)
	pg := testutil.Postgres(t)
	s, err := Parse("s.sql", sqlTextScript)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"a": "1", "b": "2", "_x1": "3", "s": "4"}
	for _, mode := range []string{"simple", "extended"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "s.sql"), []byte(sqlTextScript), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"-n", "-t1", "--debug", "-M", mode, "-f", "s.sql"}
		for k, v := range vars {
			args = append(args, "-D", k+"="+v)
		}
		cmd := exec.Command(bin, append(args, testutil.LibpqURL(pg.URL()))...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stderr, cmd.Stdout = &out, &out
		// pgbench logs each statement before the server sees it, so a
		// failing statement does not hide its text; only the texts matter.
		_ = cmd.Run()
		var want strings.Builder
		for _, c := range s.Commands {
			if c.Kind != SQL {
				continue
			}
			sql := c.ParamSQL
			if mode == "simple" {
				var b strings.Builder
				for _, p := range c.Parts {
					if p.Var != "" {
						b.WriteString(vars[p.Var])
					} else {
						b.WriteString(p.Text)
					}
				}
				sql = b.String()
			}
			want.WriteString("pgbench: client 0 sending " + sql + "\n")
		}
		var got strings.Builder
		lines := strings.SplitAfter(out.String(), "\n")
		for i := 0; i < len(lines); i++ {
			if strings.HasPrefix(lines[i], "pgbench: client 0 sending ") {
				got.WriteString(lines[i])
				// a multi-line statement continues until the next log line
				for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "pgbench: ") && lines[i+1] != "" {
					i++
					got.WriteString(lines[i])
				}
			}
		}
		if got.String() != want.String() {
			t.Errorf("-M %s:\npgbench: %q\nours:    %q", mode, got.String(), want.String())
		}
	}
}
