package script

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
)

// runPgbench runs the real pgbench in a fresh directory holding s.sql with
// src, pointed at a server that does not exist: pgbench parses its scripts
// while reading its options, so a script error ends it before it tries to
// connect. It returns pgbench's stderr, exit code, and whether it got as far
// as connecting (the scripts were accepted).
func runPgbench(t *testing.T, bin string, src string, args ...string) (stderr string, code int, accepted bool) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.sql"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append(args, "-t1", "-h", filepath.Join(dir, "nosocket"))...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") && !strings.HasPrefix(kv, "LC_") && !strings.HasPrefix(kv, "LANG") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "LC_ALL=C")
	var eb bytes.Buffer
	cmd.Stderr = &eb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("running pgbench: %v", err)
	}
	stderr = eb.String()
	return stderr, code, strings.Contains(stderr, "could not create connection for setup")
}

// brokenScripts are scripts pgbench rejects; the differential test compares
// its stderr and exit code with ours.
var brokenScripts = []string{
	`\set`,
	`\set x`,
	"\\set x\n",
	"\\set x 1 +",
	"\\set x 1 +\n",
	"\\set x 1 +\r\n",
	"\\set x (1",
	"\\set x 1 + @ 2",
	"\\set x 1 + @ 2 @ 3\n",
	"\\set x 1 $ 2 \\\n 3 ?\n",
	"\\set x 1 + \\\n 2 +\n",
	"\\set  x\t1 +\n",
	"select 1;\n  \\set x foo(1)\n",
	"\\set x abs(1,2)\n",
	"\\set x 99999999999999999999\n",
	"\\set x 1 ! 2\n",
	"\\set x 1 == 2\n",
	"\\if\n",
	"\\if 1 +\n\\endif\n",
	"\\if 1\n\\elif\n\\endif\n",
	"\\SET x 1 +\n",
	"select 1 \\set x 1 +\n",
	`\sleep`,
	`\sleep 1 2 3`,
	"\\sleep 1 \\\n 2 3\n",
	"\\sleep 1 \\\r\n 2 3\n",
	`\sleep x`,
	`\sleep 10 min`,
	`\sleep 10min`,
	"\\sleep 5 Ms x\n",
	`\sleep -x`,
	`\setshell x`,
	`\setshell`,
	`\shell`,
	`\else x`,
	`\endif x`,
	`\startpipeline x`,
	`\endpipeline x`,
	`\gset`,
	`\aset`,
	"\\set x 1\n\\gset",
	"\\set x 1\n\\aset a b\n",
	"select 1\n\\gset\n\\gset",
	"select 1 \\gset a b\n",
	`\foo bar`,
	"select 1 \\\\ x\n",
	"\\if 1\n",
	"\\endif\n",
	"\\if 1\n\\else\n\\else\n\\endif",
	"\\if 1\n\\else\n\\elif 1\n\\endif",
	"\\elif 1",
	"\\else",
	"\\if 1\n\\if 2\n\\endif\n",
	"",
	"-- only comment\n",
	"   \n\n",
	"select 1;\r\\foo\n",
	"select 1;\r\n\\foo\n",
	"select 'x';\n\n\n   \\bad\n",
}

// acceptedScripts are scripts pgbench accepts. Each gets "\endif" appended
// so that pgbench's condition error tells how many commands it made of it.
var acceptedScripts = []string{
	"select 1; select 2;",
	"select 1 \\; select 2;",
	"select ';' ; select 2",
	"select $$;$$ ; select $a$ $$ ; $a$ ;",
	"select (1;2); select 3",
	"select /* ; /* ; */ ; */ 1; ",
	"select 1 -- ;\n; select 2 ",
	"select E'a\\';' ; x",
	"select \"a;\" ; x",
	"create function f() returns int begin atomic select 1; select 2; end; select 3;",
	"create or replace function f() returns int begin atomic select case when true then 1 end; end; select 3;",
	"select 1 \\gset",
	"select 1; \\gset",
	"select 1 \\; \\gset",
	"\\set x 1\nselect 1",
	"select 1\n\n -- c",
	"   ",
	"/* c */",
	"select 1;;",
	"\\",
	"\\ ",
	"\\startpipeline\nselect 1 \\gset\n\\endpipeline",
	"\\sleep -",
	"\\sleep :x ms",
	"\\sleep 5",
	"select 'a'\n'b;' ; x",
	"select 1 \\set x 2\n;",
	"select b'1;' ; x'ff;' ; u&'a;' ; u&\"b;\" ; n'c;' ;",
	"select :'x;' ; select :\"y;\" ;",
	"select $1; select a$$ ; b",
	"select 1+--x;\n2;",
	"select 1 \\: 2 ; x",
	"\\set x 1 +\\\n 2\n\\setshell y echo 1\n\\shell true\n\\if :x\n\\elif 2\n\\else\n\\endif",
	builtins[0].text, builtins[1].text, builtins[2].text,
}

func TestDifferentialErrors(t *testing.T) {
	bin := testutil.NeedPgbench(t)
	for _, src := range brokenScripts {
		sameRefusal(t, bin, src, "move it to acceptedScripts")
	}
}

func TestDifferentialCommandCount(t *testing.T) {
	bin := testutil.NeedPgbench(t)
	for _, src := range acceptedScripts {
		sameRefusal(t, bin, src+"\n\\endif\n", "an \\endif without \\if")
	}
}

// sameRefusal holds Parse to pgbench's refusal of src: pgbench exits 1,
// and Parse returns a ParseError whose Stderr is pgbench's to the byte;
// ifAccepted says what to do where pgbench took src.
func sameRefusal(t *testing.T, bin, src, ifAccepted string) {
	t.Helper()
	stderr, code, accepted := runPgbench(t, bin, src, "-f", "s.sql")
	if accepted {
		t.Errorf("%q: pgbench accepted it (%s)", src, ifAccepted)
		return
	}
	_, err := Parse("s.sql", src)
	var pe *ParseError
	if !errors.As(err, &pe) || code != 1 || pe.Stderr() != stderr {
		t.Errorf("%q:\npgbench (exit %d): %q\nours:             %v", src, code, stderr, err)
	}
}

// TestDifferentialSyncPipeline pins our one deliberate difference: pgbench 15
// does not know \syncpipeline (added in 17); we accept it as 17 does.
func TestDifferentialSyncPipeline(t *testing.T) {
	bin := testutil.NeedPgbench(t)
	src := "\\startpipeline\nselect 1;\n\\syncpipeline\n\\endpipeline\n"
	stderr, _, accepted := runPgbench(t, bin, src, "-f", "s.sql")
	if !accepted && !strings.Contains(stderr, `invalid command in command "syncpipeline"`) {
		t.Errorf("pgbench: %q", stderr)
	}
	s, err := Parse("s.sql", src)
	if err != nil || s.Commands[2].Meta != SyncPipeline {
		t.Errorf("ours: %v", err)
	}
}

func TestDifferentialShowScript(t *testing.T) {
	bin := testutil.NeedPgbench(t)
	for _, name := range []string{"tpcb-like", "simple-update", "select-only", "t", "si", "sel", "s", "x", ""} {
		stderr, code, _ := runPgbench(t, bin, "", "--show-script="+name)
		want, err := ShowBuiltin(name)
		wantCode := 0
		if err != nil {
			want, wantCode = "pgbench: error: "+err.Error()+"\n"+ListBuiltins(), 1
		}
		if stderr != want || code != wantCode {
			t.Errorf("--show-script=%s:\npgbench (exit %d): %q\nours (exit %d):    %q", name, code, stderr, wantCode, want)
		}
		if err == nil {
			s, _ := Builtin(name)
			if Show(s) != want {
				t.Errorf("Show(Builtin(%q)) = %q", name, Show(s))
			}
		}
	}
	stderr, code, _ := runPgbench(t, bin, "", "-b", "list")
	if stderr != ListBuiltins() || code != 0 {
		t.Errorf("-b list: exit %d %q", code, stderr)
	}
}

func TestDifferentialOptions(t *testing.T) {
	bin := testutil.NeedPgbench(t)
	for _, arg := range []string{"tpcb-like@2", "t@+2", "t@-1", "t@2x", "t@", "t@99999999999", "t@99999999999999999999",
		"si@0x1", "foo", "s", "sel@3", "a@b@1"} {
		stderr, code, accepted := runPgbench(t, bin, "", "-b", arg)
		var ours string
		name, _, err := ParseWeighted(arg)
		if err == nil {
			_, err = Builtin(name)
			if err != nil {
				ours = "pgbench: error: " + err.Error() + "\n" + ListBuiltins()
			}
		} else {
			ours = "pgbench: error: " + err.Error() + "\n"
		}
		if accepted != (err == nil) || !accepted && (stderr != ours || code != 1) {
			t.Errorf("-b %s:\npgbench (exit %d): %q\nours: %q", arg, code, stderr, ours)
		}
	}
	for _, arg := range []string{"x", "=1", "x=", "1x=3", "x-y=3", "é=3", "x=a=b", "_=1", "a b=1"} {
		stderr, _, accepted := runPgbench(t, bin, "select 1;", "-f", "s.sql", "-D", arg)
		_, _, err := ParseDefine(arg)
		if accepted != (err == nil) || err != nil && stderr != "pgbench: error: "+err.Error()+"\n" {
			t.Errorf("-D %s:\npgbench: %q\nours: %v", arg, stderr, err)
		}
	}
}
