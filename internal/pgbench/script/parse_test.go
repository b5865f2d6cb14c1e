package script

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// sqls returns the SQL texts and meta names of a parsed script, for compact
// comparisons ("\name" for meta commands, "+gset:prefix" appended when set).
func sqls(s *Script) []string {
	var out []string
	for _, c := range s.Commands {
		if c.Kind == Meta {
			out = append(out, `\`+c.Meta.String())
			continue
		}
		t := c.SQL
		if c.Gset != nil {
			kw := "gset"
			if c.Gset.All {
				kw = "aset"
			}
			t += "+" + kw + ":" + c.Gset.Prefix
		}
		out = append(out, t)
	}
	return out
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"two on a line", "select 1; select 2;", []string{"select 1;", "select 2;"}},
		{"last without semicolon", "select 1;\nselect 2\n", []string{"select 1;", "select 2\n"}},
		{"leading space and comments dropped", "  -- c\n\n  select 1 -- trailing\n, 2;",
			[]string{"select 1 -- trailing\n, 2;"}},
		{"multi-line", "select 1,\n  2\n;", []string{"select 1,\n  2\n;"}},
		{"quoted semicolon", "select ';' ; select 2", []string{"select ';' ;", "select 2"}},
		{"doubled quote", "select 'a'';' ; x", []string{"select 'a'';' ;", "x"}},
		{"backslash in standard string", `select 'a\';' ; x`, []string{`select 'a\';`, `' ; x`}},
		{"E string escapes", `select E'a\';' ; x`, []string{`select E'a\';' ;`, "x"}},
		{"identifier", `select "a;" ; x`, []string{`select "a;" ;`, "x"}},
		{"dollar quotes", "select $$;$$ ; select $a$ $$ ; $a$ ;",
			[]string{"select $$;$$ ;", "select $a$ $$ ; $a$ ;"}},
		{"dollar in identifier", "select a$b$ ; x", []string{"select a$b$ ;", "x"}},
		{"param", "select $1 ; x", []string{"select $1 ;", "x"}},
		{"parentheses", "select (1;2); select 3", []string{"select (1;2);", "select 3"}},
		{"nested block comment", "select /* ; /* ; */ ; */ 1; x", []string{"select /* ; /* ; */ ; */ 1;", "x"}},
		{"block comment kept", "/* c */", []string{"/* c */"}},
		{"dash comment in operator", "select 1+--c;\n2;", []string{"select 1+--c;\n2;"}},
		{"lone semicolon", "select 1;;", []string{"select 1;", ";"}},
		{"compound", `select 1 \; select 2;`, []string{"select 1 ; select 2;"}},
		{"escaped colon", `select 1\:a;`, []string{"select 1:a;"}},
		{"psql test variable", `select :{?x};`, []string{"select FALSE;"}},
		{"string continuation", "select 'a'\n'b;' ; x", []string{"select 'a'\n'b;' ;", "x"}},
		{"begin atomic", "create function f() returns int begin atomic select 1; select 2; end; select 3;",
			[]string{"create function f() returns int begin atomic select 1; select 2; end;", "select 3;"}},
		{"create or replace procedure", "CREATE OR REPLACE PROCEDURE p() BEGIN ATOMIC SELECT 1; END; x",
			[]string{"CREATE OR REPLACE PROCEDURE p() BEGIN ATOMIC SELECT 1; END;", "x"}},
		{"begin transaction", "begin; select 1; end;", []string{"begin;", "select 1;", "end;"}},
		{"gset", "select 1 as a \\gset\nselect 2 \\gset p_\n", []string{"select 1 as a +gset:", "select 2 +gset:p_"}},
		{"aset after compound", "select 1 \\; select 2 \\aset\n", []string{"select 1 ; select 2 +aset:"}},
		{"gset after semicolon", "select 1; \\gset\n", []string{"select 1;+gset:"}},
		{"meta mid-line", "select 1 \\set x 1\n;", []string{"select 1 ", `\set`, ";"}},
		{"empty backslash ignored", "\\\nselect 1", []string{"select 1"}},
		{"unterminated quote swallows", "select 'x;\n\\endif", []string{"select 'x;\n\\endif"}},
		{"CRLF", "select 1;\r\n\\sleep 1 ms\r\nselect 2;\r\n", []string{"select 1;", `\sleep`, "select 2;"}},
		{"all meta", "\\set x 1\n\\sleep 1\n\\setshell v echo 1\n\\shell true\n\\if 1\n\\elif 2\n\\else\n\\endif\n" +
			"\\startpipeline\n\\syncpipeline\n\\endpipeline\n",
			[]string{`\set`, `\sleep`, `\setshell`, `\shell`, `\if`, `\elif`, `\else`, `\endif`,
				`\startpipeline`, `\syncpipeline`, `\endpipeline`}},
		{"case-insensitive names", "\\SET x 1\n\\Sleep 2", []string{`\set`, `\sleep`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("s.sql", tt.src)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := sqls(s); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestVariables(t *testing.T) {
	tests := []struct {
		sql      string
		params   []string
		paramSQL string
		parts    []Part
	}{
		{"select :a, :b_2;", []string{"a", "b_2"}, "select $1, $2;",
			[]Part{{Text: "select "}, {Var: "a"}, {Text: ", "}, {Var: "b_2"}, {Text: ";"}}},
		{"select 1::int, :x::text;", []string{"x"}, "select 1::int, $1::text;",
			[]Part{{Text: "select 1::int, "}, {Var: "x"}, {Text: "::text;"}}},
		{"select ':a', :1;", []string{"a"}, "select '$1', :1;",
			[]Part{{Text: "select '"}, {Var: "a"}, {Text: "', :1;"}}},
		{"select :a:b", []string{"a", "b"}, "select $1$2", []Part{{Text: "select "}, {Var: "a"}, {Var: "b"}}},
		{"select :::x", nil, "select :::x", []Part{{Text: "select :::x"}}},
		{"select :a,:a", []string{"a", "a"}, "select $1,$2",
			[]Part{{Text: "select "}, {Var: "a"}, {Text: ","}, {Var: "a"}}},
		{"select 1", nil, "select 1", []Part{{Text: "select 1"}}},
	}
	for _, tt := range tests {
		s, err := Parse("v.sql", tt.sql)
		if err != nil {
			t.Fatalf("%q: %v", tt.sql, err)
		}
		c := s.Commands[0]
		if !reflect.DeepEqual(c.Params, tt.params) || c.ParamSQL != tt.paramSQL || !reflect.DeepEqual(c.Parts, tt.parts) {
			t.Errorf("%q: got params %q paramSQL %q parts %q", tt.sql, c.Params, c.ParamSQL, c.Parts)
		}
	}
}

func TestFirstAndLine(t *testing.T) {
	long := "select " + strings.Repeat("x", 200) + ";"
	src := "\n\nselect 1,\n 2;\n  \\sleep 2 \\\n ms\n" + long + "\n\\set x 1\r\n"
	s, err := Parse("f.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line  int
		first string
	}{{0, "select 1,"}, {5, "\\sleep 2 \\\n ms"}, {0, long[:127]}, {8, `\set x 1`}}
	for i, w := range want {
		c := s.Commands[i]
		if c.First != w.first || c.Kind == Meta && c.Line != w.line {
			t.Errorf("command %d: line %d first %q, want %d %q", i, c.Line, c.First, w.line, w.first)
		}
	}
	if sl := s.Commands[1].Sleep; sl.N != 2 || sl.Unit != 1000 {
		t.Errorf("sleep = %+v", sl)
	}
}

func TestMetaArgs(t *testing.T) {
	tests := []struct {
		src   string
		check func(c *Command) bool
	}{
		{`\sleep 10`, func(c *Command) bool { return c.Sleep == SleepArg{N: 10, Unit: 1000000} }},
		{`\sleep 10us`, func(c *Command) bool { return c.Sleep == SleepArg{N: 10, Unit: 1} }},
		{`\sleep 10 MS`, func(c *Command) bool { return c.Sleep == SleepArg{N: 10, Unit: 1000} }},
		{`\sleep -5 s`, func(c *Command) bool { return c.Sleep == SleepArg{N: -5, Unit: 1000000} }},
		{`\sleep :d ms`, func(c *Command) bool { return c.Sleep == SleepArg{Var: "d", Unit: 1000} }},
		{`\sleep -`, func(c *Command) bool { return c.Sleep == SleepArg{N: 0, Unit: 1000000} }},
		{`\setshell v echo  :x  y`, func(c *Command) bool {
			return c.Var == "v" && reflect.DeepEqual(c.Args, []string{"v", "echo", ":x", "y"})
		}},
		{"\\shell a \\\n b", func(c *Command) bool { return reflect.DeepEqual(c.Args, []string{"a", "b"}) }},
		{"\\shell a\\\r\nb", func(c *Command) bool { return reflect.DeepEqual(c.Args, []string{"a", "b"}) }},
		{`\shell a\\b`, func(c *Command) bool { return reflect.DeepEqual(c.Args, []string{`a\\b`}) }},
		{`\set v 1 + 2`, func(c *Command) bool { return c.Var == "v" && c.Expr != nil }},
	}
	for _, tt := range tests {
		s, err := Parse("m.sql", tt.src)
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		if c := s.Commands[0]; !tt.check(c) {
			t.Errorf("%q: got %+v", tt.src, c)
		}
	}
}

func TestJumps(t *testing.T) {
	src := `\if 1
select 1;
\if 2
\elif 3
select 2;
\else
\endif
\elif 4
\else
select 3;
\endif
select 4;
`
	s, err := Parse("j.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	// 0 \if, 1 sql, 2 \if, 3 \elif, 4 sql, 5 \else, 6 \endif, 7 \elif, 8 \else, 9 sql, 10 \endif, 11 sql
	want := map[int][2]int{0: {7, 10}, 2: {3, 6}, 3: {5, 6}, 5: {6, 6}, 6: {6, 6}, 7: {8, 10}, 8: {10, 10}, 10: {10, 10}}
	for i, w := range want {
		c := s.Commands[i]
		if c.Else != w[0] || c.End != w[1] {
			t.Errorf("command %d (%s): Else %d End %d, want %v", i, c.Meta, c.Else, c.End, w)
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{`\set`, "pgbench: error: e.sql:1: missing argument in command \"set\"\n"},
		{"\\sleep", "pgbench: error: e.sql:1: missing argument in command \"sleep\"\n\\sleep\n"},
		{"\\sleep 1 2 3", "pgbench: error: e.sql:1: too many arguments in command \"sleep\"\n\\sleep 1 2 3\n           ^ error found here\n"},
		{"\\sleep x", "pgbench: error: e.sql:1: invalid sleep time, must be an integer (x) in command \"sleep\"\n\\sleep x\n       ^ error found here\n"},
		{"\\sleep 10min", "pgbench: error: e.sql:1: unrecognized time unit, must be us, ms or s (min) in command \"sleep\"\n\\sleep 10min\n         ^ error found here\n"},
		{"\\setshell x\n", "pgbench: error: e.sql:1: missing argument in command \"setshell\"\n\\setshell x\n"},
		{"\\shell", "pgbench: error: e.sql:1: missing command in command \"shell\"\n\\shell\n"},
		{"\\else x", "pgbench: error: e.sql:1: unexpected argument in command \"else\"\n\\else x\n"},
		{"\\gset", "pgbench: error: e.sql:1: \\gset must follow an SQL command\n"},
		{"\\set x 1\n\\aset", "pgbench: error: e.sql:2: \\gset must follow an SQL command (\\set x 1)\n"},
		{"select 1\n\\gset\n\\gset", "pgbench: error: e.sql:3: \\gset must follow an SQL command\n"},
		{"select 1 \\gset a b", "pgbench: error: e.sql:1: too many arguments in command \"gset\"\n\\gset a b\n"},
		{"\\Foo bar", "pgbench: error: e.sql:1: invalid command in command \"Foo\"\n\\Foo bar\n"},
		{"\\if 1\n", "pgbench: error: condition error in script \"e.sql\" command 2: \\if without matching \\endif\n"},
		{"select 1;\n\\endif", "pgbench: error: condition error in script \"e.sql\" command 2: \\endif without matching \\if\n"},
		{"\\if 1\n\\else\n\\else\n\\endif", "pgbench: error: condition error in script \"e.sql\" command 3: \\else after \\else\n"},
		{"\\if 1\n\\else\n\\elif 1\n\\endif", "pgbench: error: condition error in script \"e.sql\" command 3: \\elif after \\else\n"},
		{"\\elif 1", "pgbench: error: condition error in script \"e.sql\" command 1: \\elif without matching \\if\n"},
		{"", "pgbench: error: empty command list for script \"e.sql\"\n"},
		{"-- nothing\n  \n", "pgbench: error: empty command list for script \"e.sql\"\n"},
	}
	for _, tt := range tests {
		_, err := Parse("e.sql", tt.src)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v, want a *ParseError", tt.src, err)
			continue
		}
		if got := pe.Stderr(); got != tt.want {
			t.Errorf("%q:\ngot  %q\nwant %q", tt.src, got, tt.want)
		}
	}
}

func TestCheckParams(t *testing.T) {
	var b strings.Builder
	b.WriteString("select 1")
	for i := 0; i < 255; i++ {
		b.WriteString(", :v")
	}
	s, err := Parse("p.sql", b.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckParams(); err != nil {
		t.Fatalf("255 params: %v", err)
	}
	s, err = Parse("p.sql", b.String()+", :w")
	if err != nil {
		t.Fatal(err)
	}
	err = s.CheckParams()
	if err == nil || !strings.HasPrefix(err.Error(), "statement has too many arguments (maximum is 255): select 1, :v") {
		t.Fatalf("256 params: %v", err)
	}
}

func TestBuiltins(t *testing.T) {
	for _, tt := range []struct{ arg, name string }{
		{"tpcb-like", "tpcb-like"}, {"t", "tpcb-like"}, {"simple", "simple-update"}, {"se", "select-only"}, {"", ""},
		{"s", ""}, {"x", ""}, {"tpcb-like-x", ""},
	} {
		s, err := Builtin(tt.arg)
		if tt.name == "" {
			var be *BuiltinError
			if !errors.As(err, &be) {
				t.Errorf("%q: got %v, want a BuiltinError", tt.arg, err)
			}
			continue
		}
		if err != nil || s.Name != tt.name {
			t.Errorf("%q: got %v %v", tt.arg, s, err)
			continue
		}
		if s.Commands[0].Meta != Set || !strings.Contains(s.Commands[0].First, ":scale") {
			t.Errorf("%s: first command %q", tt.arg, s.Commands[0].First)
		}
	}
	if _, err := Builtin("s"); err == nil || err.Error() != `ambiguous builtin name: 2 builtin scripts found for prefix "s"` {
		t.Errorf("ambiguous: %v", err)
	}
	s, _ := Builtin("tpcb-like")
	if len(s.Commands) != 11 || s.Desc != "<builtin: TPC-B (sort of)>" {
		t.Errorf("tpcb-like: %d commands, desc %q", len(s.Commands), s.Desc)
	}
	if got := s.Commands[5].ParamSQL; got != "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;" {
		t.Errorf("ParamSQL %q", got)
	}
	if !reflect.DeepEqual(BuiltinNames(), []string{"tpcb-like", "simple-update", "select-only"}) {
		t.Errorf("names %q", BuiltinNames())
	}
}

func TestParseWeighted(t *testing.T) {
	tests := []struct {
		arg, name string
		w         int
		err       string
	}{
		{"f.sql", "f.sql", 1, ""},
		{"f.sql@3", "f.sql", 3, ""},
		{"a@b@0", "a@b", 0, ""},
		{"f@+2", "f", 2, ""},
		{"f@ 2", "f", 2, ""},
		{"f@2147483647", "f", 2147483647, ""},
		{"f@", "", 0, "invalid weight specification: @"},
		{"f@2x", "", 0, "invalid weight specification: @2x"},
		{"a@b.sql", "", 0, "invalid weight specification: @b.sql"},
		{"f@-1", "", 0, "weight specification out of range (0 .. 2147483647): -1"},
		{"f@2147483648", "", 0, "weight specification out of range (0 .. 2147483647): 2147483648"},
		{"f@99999999999999999999", "", 0, "invalid weight specification: @99999999999999999999"},
	}
	for _, tt := range tests {
		n, w, err := ParseWeighted(tt.arg)
		checkOption(t, tt.arg, err, tt.err, fmt.Sprintf("%q %d", n, w), fmt.Sprintf("%q %d", tt.name, tt.w))
	}
}

// checkOption holds what an option's argument parsed to: the error
// wantErr, or, where that is "", no error and got equal to want.
func checkOption(t *testing.T, arg string, err error, wantErr, got, want string) {
	t.Helper()
	switch {
	case wantErr != "" && (err == nil || err.Error() != wantErr):
		t.Errorf("%q: err %v, want %q", arg, err, wantErr)
	case wantErr == "" && (err != nil || got != want):
		t.Errorf("%q: got %s, %v; want %s", arg, got, err, want)
	}
}

func TestParseDefine(t *testing.T) {
	tests := []struct{ arg, name, value, err string }{
		{"x=1", "x", "1", ""},
		{"x=a=b", "x", "a=b", ""},
		{"_x9=  ", "_x9", "  ", ""},
		{"x", "", "", `invalid variable definition: "x"`},
		{"=1", "", "", `invalid variable definition: "=1"`},
		{"x=", "", "", `invalid variable definition: "x="`},
		{"1x=3", "", "", `option: invalid variable name: "1x"`},
		{"x-y=3", "", "", `option: invalid variable name: "x-y"`},
	}
	for _, tt := range tests {
		n, v, err := ParseDefine(tt.arg)
		checkOption(t, tt.arg, err, tt.err, fmt.Sprintf("%q %q", n, v), fmt.Sprintf("%q %q", tt.name, tt.value))
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"select 1;", "\\set x 1\n\\if :x\nselect 1 \\gset\n\\elif 2\n\\else\n\\endif\n",
		"select $$a$$ ; 'x' /* c */ -- d\n", "\\sleep 1 ms\n\\shell echo\n", builtins[0].text,
		"create function f() begin atomic select 1; end;", "select :a::int \\; select 2 \\aset p\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse("fuzz.sql", src)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a *ParseError", err, err)
			}
			_ = pe.Stderr()
			return
		}
		n := len(s.Commands)
		if n == 0 {
			t.Fatal("no commands and no error")
		}
		for i, c := range s.Commands {
			if c.Kind != Meta {
				continue
			}
			switch c.Meta {
			case If, Elif, Else:
				if c.Else <= i || c.Else >= n || c.End < c.Else || c.End >= n || s.Commands[c.End].Meta != Endif {
					t.Fatalf("command %d %s: Else %d End %d of %d", i, c.Meta, c.Else, c.End, n)
				}
			}
		}
	})
}

// TestDocExamples parses the example scripts of pgbench's documentation.
func TestDocExamples(t *testing.T) {
	examples := map[string]struct {
		src  string
		want []string
	}{
		"set": {"\\set ntellers 10 * :scale\n" +
			"\\set aid (1021 * random(1, 100000 * :scale)) % \\\n           (100000 * :scale) + 1\n" +
			"\\set divx CASE WHEN :x <> 0 THEN :y/:x ELSE NULL END\n",
			[]string{`\set`, `\set`, `\set`}},
		"gset": {"-- get the last value of the sequence\n" +
			"UPDATE pgbench_accounts\n  SET abalance = abalance + :delta\n  WHERE aid = :aid\n  RETURNING abalance \\gset\n" +
			"-- compound of two queries\nSELECT 1 \\;\nSELECT 2 AS two, 3 AS three \\gset p_\n",
			[]string{"UPDATE pgbench_accounts\n  SET abalance = abalance + :delta\n  WHERE aid = :aid\n  RETURNING abalance +gset:",
				"SELECT 1 ;\nSELECT 2 AS two, 3 AS three +gset:p_"}},
		"aset": {"SELECT 1 \\; SELECT 2 AS two \\aset\n", []string{"SELECT 1 ; SELECT 2 AS two +aset:"}},
		"if": {"\\set aid random(1, 100000 * :scale)\n\\if :aid < 50000\nSELECT 1;\n\\elif :aid < 75000\nSELECT 2;\n\\else\nSELECT 3;\n\\endif\n",
			[]string{`\set`, `\if`, "SELECT 1;", `\elif`, "SELECT 2;", `\else`, "SELECT 3;", `\endif`}},
		"sleep and shell": {"\\sleep 10 ms\n" +
			"\\setshell variable_to_be_assigned command literal_argument :variable ::literal_starting_with_colon\n" +
			"\\shell command literal_argument :variable ::literal_starting_with_colon\n",
			[]string{`\sleep`, `\setshell`, `\shell`}},
		"pipeline": {"\\startpipeline\nSELECT 1;\nSELECT 2;\n\\endpipeline\n",
			[]string{`\startpipeline`, "SELECT 1;", "SELECT 2;", `\endpipeline`}},
		"tpcb-like as a file": {builtins[0].text, nil},
	}
	for name, ex := range examples {
		s, err := Parse(name, ex.src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if ex.want != nil && !reflect.DeepEqual(sqls(s), ex.want) {
			t.Errorf("%s: got %q\nwant %q", name, sqls(s), ex.want)
		}
	}
}
