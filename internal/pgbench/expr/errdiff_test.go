package expr_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/pgbench/expr"
	"github.com/txnbench/txnbench/internal/pgbench/prng"
	"github.com/txnbench/txnbench/internal/testutil"
)

// badSyntax are expressions pgbench rejects when it reads the script.
var badSyntax = []string{
	"1 + * 2", "foo(1)", "foo + 1", "abs + 1", "abs(1,2) + 3", "1 $ 2",
	"99999999999999999999", "(1 + 2", "1 2", "abs(,,1)", "abs(1,)",
	"9223372036854775808", "1 - 9223372036854775808", "1 < 2 < 3",
	"1 = 2 = 3", "1 < 2 + 3 >= 4", "1e-400", "1e400", "1e", "true(",
	"least()", "hash(1,2,3)", "hash()", "permute(1)", "permute(1,2,3,4)",
	":", ": x", ".", "!", "case 1 when 1 then 2 end", "x", "NOT", "(", ")",
	"1 IS 2", "1 is not", "pi", "abs(1", "random(1,2", "é", "case when 1 end",
	"case when 1 then 2 else end", "1 + (2 * 3))", "greatest(1,2", "mod(1)",
	"1 + * 2 $ 99999999999999999999", "1 2 $ 3 @", "foo(1) 1e999 )", "1 $ 2 + 3",
	"abs(1,2) & 9223372036854775809", "(1 + 2 $", "1 ~ 2", "\\", "1 ISNULL 2", "case when true then 1 else 2", "random(1,2)(",
	"int(1.5", "1 ! 2", "1 <> <> 2", "-", "--", "~", "1 +", "not not",
}

// TestSyntaxErrorsDifferential compares our SyntaxError with pgbench's
// message and caret column; pgbench reports them before connecting.
func TestSyntaxErrorsDifferential(t *testing.T) {
	pgbench := testutil.Pgbench(t)
	dir := t.TempDir()
	for i, src := range badSyntax {
		script := filepath.Join(dir, fmt.Sprintf("s%d.sql", i))
		line := "\\set x " + src
		if err := os.WriteFile(script, []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, _ := runPgbench(t, pgbench, "host=/nonexistent", "-n", "-t", "1", "-f", script)
		lines := strings.Split(stderr, "\n")
		prefix := "pgbench: error: " + script + ":1: "
		if len(lines) < 3 || !strings.HasPrefix(lines[0], prefix) {
			t.Errorf("%q: pgbench did not report a syntax error:\n%s", src, stderr)
			continue
		}
		want := strings.TrimSuffix(strings.TrimPrefix(lines[0], prefix), ` in command "set"`)
		wantCol := strings.Index(lines[2], "^") - len("\\set x ")
		_, err := expr.Parse(src + "\n")
		se, ok := err.(*expr.SyntaxError)
		if !ok {
			t.Errorf("%q: pgbench %q at %d, we %v", src, want, wantCol, err)
			continue
		}
		got := se.Msg
		if se.Near != "" {
			got += " (" + se.Near + ")"
		}
		if got != want || se.Col != wantCol {
			t.Errorf("%q: pgbench %q at column %d, we %q at %d", src, want, wantCol, got, se.Col)
		}
	}
}

// badRuntime are expressions pgbench accepts but fails to evaluate.
var badRuntime = []string{
	"1 / 0", "5 % 0", "1.5 % 0", "9223372036854775807 + 1", "-9223372036854775808 - 1",
	"9223372036854775807 * 2", "-9223372036854775808 / -1", "random(10, 1)",
	"random(-9223372036854775808, 9223372036854775807)", "random(0, 9223372036854775807)",
	"random_gaussian(1, 10, 1.5)", "random_zipfian(1, 10, 0.5)", "random_zipfian(1, 10, 1001)",
	"random_exponential(1, 10, 0)", "random_exponential(1, 10, -1.5)", "permute(1, 0)",
	"permute(1, -5, 3)", "int(1e30)", "int(-1e19)", "int(0.0/0.0)", "int(1e300*1e300)", ":undefined",
	"true + 1", "1.5 + true", "NOT 1", "1 AND true", "false OR 2.5", "least(true, 1)",
	"greatest(1.5, false)", "sqrt(true)", "ln(false)", "hash(true)", "random(1, true)",
	"random_gaussian(1, 10, true)", "true = true", "true < false", "1 << true",
	"least(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17)", "case when true then 1/0 end",
	"(1 = 1) AND (1 / 0 = 1)", "double(null AND true) + 0 + (true + 1)",
}

// TestRuntimeErrorsDifferential compares our evaluation errors with
// pgbench's error line.
func TestRuntimeErrorsDifferential(t *testing.T) {
	pgbench, u, dir := pgbenchAndServer(t)
	for i, src := range badRuntime {
		script := filepath.Join(dir, fmt.Sprintf("r%d.sql", i))
		if err := os.WriteFile(script, []byte("\\set x "+src+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, _ := runPgbench(t, pgbench, u, "-n", "-t", "1", "--random-seed=1", "-f", script)
		var msgs []string
		for _, l := range strings.Split(stderr, "\n") {
			if m, ok := strings.CutPrefix(l, "pgbench: error: "); ok && !strings.HasPrefix(m, "client ") && !strings.HasPrefix(m, "Run was aborted") {
				msgs = append(msgs, m)
			}
		}
		if len(msgs) != 1 || !strings.Contains(stderr, "evaluation of meta-command failed") {
			t.Errorf("%q: pgbench did not fail evaluating it as expected:\n%s", src, stderr)
			continue
		}
		e, err := expr.Parse(src)
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		s := prng.Derive(1, 1, 1)
		env := newEnv(s.Client[0])
		env.vals["default_seed"] = expr.IntValue(s.DefaultSeed)
		_, err = e.Eval(env)
		if err == nil || err.Error() != msgs[0] {
			t.Errorf("%q: pgbench %q, we %v", src, msgs[0], err)
		}
	}
}

// variableStrings are -D values read by an expression (makeVariableValue).
var variableStrings = []string{
	"12", " 12", "+7", "-0", "1e3", "1.5", " .5", "inf", "-Infinity", "nan",
	"0x1p3", "0x1.8", "yes", "Y", "ye", "no", "n", "t", "TRUE", "tr", "f", "FALSE",
	"on", "ON", "off", "of", "null", "NULL", "0x1p-1074", "2.2250738585072014e-308",
	"9223372036854775807", "-9223372036854775808", "1e308",
}

// badVariableStrings fail when an expression reads them.
var badVariableStrings = []string{
	"", "o", "nu", "12 ", "abc", "+", "-", " ", "99999999999999999999",
	"-9223372036854775809", "4.9e-324", "1e-400", "1e400", "0x", "1e", "1_0", "infinit", "nan(",
}

// TestVariableValuesDifferential compares ParseValue with pgbench reading
// -D variables in an expression.
func TestVariableValuesDifferential(t *testing.T) {
	pgbench, u, dir := pgbenchAndServer(t)
	script := filepath.Join(dir, "vars.sql")
	var b strings.Builder
	args := []string{"-n", "-t", "1", "-f", script}
	for i, s := range variableStrings {
		args = append(args, "-D", fmt.Sprintf("s%d=%s", i, s))
		fmt.Fprintf(&b, "\\set v%d :s%d\n\\shell echo V %d :v%d\n", i, i, i, i)
	}
	if err := os.WriteFile(script, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runPgbench(t, pgbench, u, args...)
	if err != nil {
		t.Fatalf("pgbench: %v\n%s", err, stderr)
	}
	got := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "V" {
			got[f[1]] = f[2]
		}
	}
	for i, s := range variableStrings {
		v, err := expr.ParseValue("s", s)
		if err != nil {
			t.Errorf("%q: pgbench %q, we %v", s, got[fmt.Sprint(i)], err)
			continue
		}
		if v.String() != got[fmt.Sprint(i)] {
			t.Errorf("%q: pgbench %q, we %q", s, got[fmt.Sprint(i)], v.String())
		}
	}
	for i, s := range badVariableStrings {
		script := filepath.Join(dir, fmt.Sprintf("b%d.sql", i))
		text, args := "\\set v :s\n", []string{"-n", "-t", "1", "-f", script}
		if s == "" { // -D refuses an empty value; \gset gives one
			text = "SELECT '' AS s \\gset\n" + text
		} else {
			args = append(args, "-D", "s="+s)
		}
		if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, _ := runPgbench(t, pgbench, u, args...)
		var msgs []string
		for _, l := range strings.Split(stderr, "\n") {
			if m, ok := strings.CutPrefix(l, "pgbench: error: "); ok && !strings.HasPrefix(m, "client ") && !strings.HasPrefix(m, "Run was aborted") {
				msgs = append(msgs, m)
			}
		}
		if !strings.Contains(stderr, "evaluation of meta-command failed") {
			t.Errorf("%q: pgbench accepted it:\n%s", s, stderr)
			continue
		}
		_, err := expr.ParseValue("s", s)
		ee, ok := err.(*expr.EvalError)
		if !ok {
			t.Errorf("%q: pgbench %q, we %v", s, msgs, err)
			continue
		}
		want := ""
		if len(msgs) == 1 {
			want = msgs[0]
		}
		if ee.Msg != want || len(msgs) > 1 {
			t.Errorf("%q: pgbench %q, we %q", s, msgs, ee.Msg)
		}
	}
}
