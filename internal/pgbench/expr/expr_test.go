package expr_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/pgbench/expr"
	"github.com/txnbench/txnbench/internal/pgbench/prng"
)

func evalString(t *testing.T, src string) (string, error) {
	t.Helper()
	e, err := expr.Parse(src)
	if err != nil {
		return "", err
	}
	env := newEnv(1)
	env.vals["default_seed"] = expr.IntValue(7)
	env.vals["i"] = expr.IntValue(10)
	env.vals["d"] = expr.DoubleValue(2.5)
	env.vals["n"] = expr.Value{}
	env.strs["s"] = " 42"
	env.strs["bad"] = "abc"
	v, err := e.Eval(env)
	return v.String(), err
}

// TestEval covers precedence, literals, every operator and function and
// the coercion rules; expected values were checked against pgbench 15.
func TestEval(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		// literals
		{"42", "42"}, {"1.5", "1.5"}, {".5", "0.5"}, {"5.", "5"}, {"1e3", "1000"},
		{"1.5E-3", "0.0015"}, {"true", "true"}, {"FALSE", "false"}, {"null", "NULL"},
		{"-9223372036854775808", "-9223372036854775808"}, {"9223372036854775807", "9223372036854775807"},
		{"0.1 + 0.2", "0.3"}, {"1e20 * 10", "1e+21"}, {"1e300 * 1e300", "Infinity"},
		{"-1e300 * 1e300", "-Infinity"}, {"0.0 / 0.0", "NaN"}, {"0.0 * -1", "-0"}, {"-0.0", "0"},
		// precedence and associativity
		{"1 + 2 * 3", "7"}, {"(1 + 2) * 3", "9"}, {"10 - 4 - 3", "3"}, {"100 / 10 / 5", "2"},
		{"7 % 4 * 2", "6"}, {"- 2 * 3", "-6"}, {"-2 - -3", "1"}, {"+5", "5"}, {"2 * -3", "-6"},
		{"~ 1 + 2", "-4"}, {"~1 | 2", "-2"}, {"1 | 2 & 3", "3"}, {"1 + 1 << 2", "8"},
		{"1 < 2 = true", ""}, {"NOT 1 = 2", "true"}, {"NOT true AND false", "false"},
		{"NOT (true AND false)", "true"}, {"true OR false AND false", "true"},
		{"1 < 2 IS TRUE", "true"}, {"2 + 3 ISNULL", "false"}, {"1 ISNULL ISNULL", "false"},
		{"NOT 2 = 3 IS NULL", "true"}, {"1 < NOT 2 = 3", ""}, // error below
		{"abs(, -3)", "3"},
		// arithmetic
		{"7 / 2", "3"}, {"-7 / 2", "-3"}, {"7 / -2", "-3"}, {"-7 % 3", "-1"}, {"7 % -3", "1"},
		{"mod(-7, 2)", "-1"}, {"5.7 % 2", "0"}, {"5.5 % 4", "2"}, {"7.0 / 2", "3.5"},
		{"1 / -1", "-1"}, {"-9223372036854775808 % -1", "0"}, {"3 - 1.5", "1.5"},
		// bitwise
		{"5 & 3", "1"}, {"5 | 3", "7"}, {"5 # 3", "6"}, {"~5", "-6"}, {"1 << 3", "8"},
		{"1 << 65", "2"}, {"-16 >> 2", "-4"}, {"1 >> 64", "1"}, {"1 << -1", "-9223372036854775808"},
		{"5.6 & 7", "6"},
		// comparisons
		{"1 < 2", "true"}, {"2 <= 2", "true"}, {"3 > 2", "true"}, {"2 >= 3", "false"},
		{"1 = 1.0", "true"}, {"1 <> 2", "true"}, {"1 != 1", "false"},
		{"0.0 / 0.0 = 0.0 / 0.0", "false"},
		// booleans and NULL
		{"true AND null", "NULL"}, {"null AND false", "NULL"}, {"false AND null", "false"},
		{"true OR null", "true"}, {"null OR true", "NULL"}, {"NOT null", "NULL"},
		{"1 + null", "NULL"}, {"null IS NULL", "true"}, {"1 IS NULL", "false"},
		{"1 IS NOT NULL", "true"}, {"1 NOTNULL", "true"}, {"true IS TRUE", "true"},
		{"false IS NOT TRUE", "true"}, {"null IS FALSE", "false"}, {"1 IS TRUE", "false"},
		{"false OR 1 / 0 = 0 IS NULL", ""},
		// CASE
		{"case when 0 then 1 end", "NULL"}, {"case when 2.5 then 1 else 2 end", "1"},
		{"CASE WHEN null THEN 1 WHEN true THEN 2 ELSE 3 END", "2"},
		{"case when false then 1/0 else 4 end", "4"},
		// functions
		{"abs(-5)", "5"}, {"abs(-2.5)", "2.5"}, {"abs(-9223372036854775808)", "-9223372036854775808"},
		{"abs(0.0 * -1)", "-0"}, {"least(1, 2.5, -3)", "-3"}, {"greatest(1, 2, 3)", "3"},
		{"greatest(1, 2.5)", "2.5"}, {"least(3)", "3"}, {"greatest(1.5, null)", "NULL"},
		{"pi()", "3.14159265358979"}, {"sqrt(2)", "1.4142135623731"}, {"ln(100)", "4.60517018598809"},
		{"exp(1)", "2.71828182845905"}, {"ln(0.0)", "-Infinity"}, {"sqrt(-1)", "NaN"},
		{"pow(2, 10)", "1024"}, {"power(2, 0.5)", "1.4142135623731"}, {"pow(-8, 1.0/3)", "NaN"},
		{"int(5.5)", "6"}, {"int(4.5)", "4"}, {"int(-2.5)", "-2"}, {"int(7)", "7"}, {"double(3)", "3"},
		{"double(3) / 2", "1.5"}, {"debug(3) + 1", "4"},
		{"hash(10, 5)", "5862924560876750601"}, {"hash(10)", "6238128896627759358"},
		{"hash_murmur2(10, 5)", "5862924560876750601"}, {"hash_fnv1a(10, 5)", "4876795174170569834"},
		{"hash_fnv1a(10)", "412164360235391016"},
		{"permute(0, 1)", "0"}, {"permute(3, 10, 5)", "9"},
		{"random(7, 7)", "7"},
		// variables
		{":i * 2", "20"}, {":d * 2", "5"}, {":n IS NULL", "true"}, {":s + 1", "43"},
		{"ABS(-1)", "1"}, {"Random(1, 1)", "1"},
	} {
		got, err := evalString(t, c.src)
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: got %s, want an error", c.src, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s = %s, %v; want %s", c.src, got, err, c.want)
		}
	}
}

// TestEvalErrors checks pgbench's runtime error messages.
func TestEvalErrors(t *testing.T) {
	for _, c := range []struct{ src, msg string }{
		{"1 / 0", "division by zero"}, {"5 % 0", "division by zero"},
		{"9223372036854775807 + 1", "bigint add out of range"},
		{"-9223372036854775808 - 1", "bigint sub out of range"},
		{"0 - -9223372036854775808", "bigint sub out of range"},
		{"9223372036854775807 * 2", "bigint mul out of range"},
		{"-1 * -9223372036854775808", "bigint mul out of range"},
		{"-9223372036854775808 * -1", "bigint mul out of range"},
		{"-9223372036854775808 / -1", "bigint div out of range"},
		{"random(10, 1)", "empty range given to random"},
		{"random(0, 9223372036854775807)", "random range is too large"},
		{"random(-1, 9223372036854775806)", "random range is too large"},
		{"random_gaussian(1, 10, 1.5)", "gaussian parameter must be at least 2.000000 (not 1.500000)"},
		{"random_zipfian(1, 10, 0.5)", "zipfian parameter must be in range [1.001, 1000] (not 0.500000)"},
		{"random_zipfian(1, 10, 0.0/0.0)", "zipfian parameter must be in range [1.001, 1000] (not NaN)"},
		{"random_exponential(1, 10, 0)", "exponential parameter must be greater than zero (not 0.000000)"},
		{"permute(1, 0)", "permute size parameter must be greater than zero"},
		{"int(1e30)", "double to int overflow for 1000000000000000019884624838656.000000"},
		{"int(1e300*1e300)", "double to int overflow for Infinity"},
		{"int(9223372036854775807.0)", "double to int overflow for 9223372036854775808.000000"},
		{":nope", `undefined variable "nope"`},
		{":bad + 1", `malformed variable "bad" value: "abc"`},
		{"true + 1", "cannot coerce boolean to int"},
		{"1.5 + true", "cannot coerce boolean to double"},
		{"NOT 1", "cannot coerce int to boolean"},
		{"2.5 AND true", "cannot coerce double to boolean"},
		{"least(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17)", "too many function arguments, maximum is 16"},
	} {
		_, err := evalString(t, c.src)
		var ee *expr.EvalError
		if !errors.As(err, &ee) || ee.Msg != c.msg {
			t.Errorf("%s: got %v, want %q", c.src, err, c.msg)
		}
	}
}

// TestSyntaxErrors checks messages and caret columns.
func TestSyntaxErrors(t *testing.T) {
	for _, c := range []struct {
		src  string
		msg  string
		near string
		col  int
	}{
		{"1 + * 2", "syntax error", "", 4},
		{"foo(1)", "unexpected function name", "foo", 2},
		{"abs(1,2) + 3", "unexpected number of arguments", "abs", 7},
		{"1 $ 2", "unexpected character", "$", 2},
		{"99999999999999999999", "bigint constant overflow", "99999999999999999999", 19},
		{"1e400", "double constant overflow", "1e400", 4},
		{"(1 + 2\n", "syntax error", "", 6},
		{"(1 + 2", "syntax error", "", 5},
		{"1 < 2 < 3", "syntax error", "", 6},
		{"least()", "at least one argument expected", "least", 6},
		{"9223372036854775808", "syntax error", "", 18},
		{"", "syntax error", "", 0},
		{"1 +\\\n* 2", "syntax error", "", 5},
	} {
		_, err := expr.Parse(c.src)
		var se *expr.SyntaxError
		if !errors.As(err, &se) || se.Msg != c.msg || se.Near != c.near || se.Col != c.col {
			t.Errorf("%q: got %#v, want %q (%q) at %d", c.src, err, c.msg, c.near, c.col)
		}
	}
}

func TestParsePrefixAndVars(t *testing.T) {
	e, n, err := expr.ParsePrefix("hash(:a) + \\\n permute(:b, 10) + :a\nSELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	if n != strings.Index("hash(:a) + \\\n permute(:b, 10) + :a\nSELECT 1", "SELECT") {
		t.Errorf("consumed %d bytes", n)
	}
	if got := strings.Join(e.Vars(), ","); got != "a,default_seed,b" {
		t.Errorf("Vars = %s", got)
	}
}

func TestParseValue(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"12", "12"}, {" 12", "12"}, {"+7", "7"}, {"1e3", "1000"}, {"inf", "Infinity"},
		{"-nan", "NaN"}, {"0x1p3", "8"}, {"yes", "true"}, {"Y", "true"}, {"n", "false"},
		{"of", "false"}, {"ON", "true"}, {"null", "NULL"}, {"t", "true"}, {"fa", "false"},
	} {
		v, err := expr.ParseValue("x", c.in)
		if err != nil || v.String() != c.want {
			t.Errorf("%q: %v, %v; want %s", c.in, v, err, c.want)
		}
	}
	for _, c := range []struct{ in, msg string }{
		{"", ""}, {"o", `malformed variable "x" value: "o"`}, {"12 ", `malformed variable "x" value: "12 "`},
		{"+", `invalid input syntax for type bigint: "+"`},
		{"99999999999999999999", `value "99999999999999999999" is out of range for type bigint`},
		{"1e-400", `malformed variable "x" value: "1e-400"`},
	} {
		_, err := expr.ParseValue("x", c.in)
		var ee *expr.EvalError
		if !errors.As(err, &ee) || ee.Msg != c.msg {
			t.Errorf("%q: got %v, want %q", c.in, err, c.msg)
		}
	}
}

// TestEvalAllocs makes sure evaluation does not allocate.
func TestEvalAllocs(t *testing.T) {
	src := "case when random(1, 10) > 5 then permute(hash(:i), 1000) " +
		"else random_zipfian(1, 1000, 1.5) + random_gaussian(1, 100, 3) + random_exponential(1, 100, 2) end " +
		"+ int(ln(:d) * 100) + least(:i, 3, 4.5) + greatest(1, 2) + int(pow(2, 3)) + abs(-1) " +
		"+ (:n IS NULL AND NOT false OR true = true)::int"
	src = strings.Replace(src, "(:n IS NULL AND NOT false OR true = true)::int", "case when :n IS NULL AND NOT false OR 1 = 1 then 1 else 0 end", 1)
	e, err := expr.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(1)
	env.vals["i"] = expr.IntValue(10)
	env.vals["d"] = expr.DoubleValue(2.5)
	env.vals["n"] = expr.Value{}
	env.vals["default_seed"] = expr.IntValue(3)
	buf := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(1000, func() {
		v, err := e.Eval(env)
		if err != nil {
			t.Fatal(err)
		}
		buf = v.Append(buf[:0])
	})
	if allocs != 0 {
		t.Errorf("Eval allocates %v times per run", allocs)
	}
}

func BenchmarkEval(b *testing.B) {
	e, err := expr.Parse("random(1, 100000 * :scale) + hash(:aid) % 10")
	if err != nil {
		b.Fatal(err)
	}
	env := newEnv(1)
	env.vals["scale"] = expr.IntValue(10)
	env.vals["aid"] = expr.IntValue(12345)
	env.vals["default_seed"] = expr.IntValue(3)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := e.Eval(env); err != nil {
			b.Fatal(err)
		}
	}
}

// testEnv is a client's variables and random state, as pgbench keeps them:
// values set by \set, strings (from -D) converted on first use.
type testEnv struct {
	vals  map[string]expr.Value
	strs  map[string]string
	rs    prng.State
	debug []expr.Value
}

func newEnv(seed uint64) *testEnv {
	e := &testEnv{vals: map[string]expr.Value{}, strs: map[string]string{}}
	e.rs.Seed(seed)
	return e
}

func (e *testEnv) Var(name string) (expr.Value, error) {
	if v, ok := e.vals[name]; ok {
		return v, nil
	}
	if s, ok := e.strs[name]; ok {
		v, err := expr.ParseValue(name, s)
		if err != nil {
			return v, err
		}
		e.vals[name] = v
		return v, nil
	}
	return expr.Value{}, expr.UndefinedVariable(name)
}

func (e *testEnv) Rand() *prng.State { return &e.rs }

func (e *testEnv) Debug(v expr.Value) { e.debug = append(e.debug, v) }

// str renders a variable as pgbench substitutes it.
func (e *testEnv) str(name string) string {
	if v, ok := e.vals[name]; ok {
		return v.String()
	}
	return e.strs[name]
}
