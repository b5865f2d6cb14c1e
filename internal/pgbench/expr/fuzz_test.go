package expr_test

import (
	"errors"
	"testing"

	"github.com/txnbench/txnbench/internal/pgbench/expr"
	"github.com/txnbench/txnbench/internal/pgbench/prng"
)

// quietEnv is an Env without Debug, so Eval itself must not allocate.
type quietEnv struct {
	rs   prng.State
	vals map[string]expr.Value
}

func (e *quietEnv) Var(name string) (expr.Value, error) {
	if v, ok := e.vals[name]; ok {
		return v, nil
	}
	return expr.Value{}, expr.UndefinedVariable(name)
}

func (e *quietEnv) Rand() *prng.State { return &e.rs }

func seedCorpus(f *testing.F) {
	for _, s := range diffExprs {
		f.Add(s)
	}
	for _, s := range badSyntax {
		f.Add(s)
	}
	for _, s := range badRuntime {
		f.Add(s)
	}
}

func FuzzParse(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, src string) {
		e, n, err := expr.ParsePrefix(src)
		if err != nil {
			var se *expr.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q: error %T %v", src, err, err)
			}
			if se.Col < 0 || se.Col > len(src) || se.Msg == "" {
				t.Fatalf("%q: bad error %#v", src, se)
			}
			return
		}
		if n < 0 || n > len(src) {
			t.Fatalf("%q: consumed %d", src, n)
		}
		// The text of a parsed expression parses again.
		if _, err := expr.Parse(e.String()); err != nil {
			t.Fatalf("%q: reparsing %q: %v", src, e.String(), err)
		}
	})
}

func FuzzEval(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, src string) {
		e, err := expr.Parse(src)
		if err != nil {
			return
		}
		env := &quietEnv{vals: map[string]expr.Value{
			"default_seed": expr.IntValue(5), "i": expr.IntValue(-3),
			"d": expr.DoubleValue(0.25), "n": {}, "b": expr.BoolValue(true),
		}}
		for _, v := range []string{"client_id", "scale", "random_seed"} {
			env.vals[v] = expr.IntValue(1)
		}
		for i, name := range e.Vars() {
			if _, ok := env.vals[name]; !ok && i%2 == 0 {
				env.vals[name] = expr.IntValue(int64(i))
			}
		}
		env.rs.Seed(uint64(len(src)))
		start := env.rs
		v, err := e.Eval(env)
		if err != nil {
			var ee *expr.EvalError
			if !errors.As(err, &ee) {
				t.Fatalf("%q: error %T %v", src, err, err)
			}
			return
		}
		_ = v.String()
		_ = v.DebugString()
		// Evaluated again from the same state it succeeds again, and
		// must not allocate.
		if a := testing.AllocsPerRun(1, func() {
			env.rs = start
			if _, err := e.Eval(env); err != nil {
				t.Fatalf("%q: second evaluation failed: %v", src, err)
			}
		}); a != 0 {
			t.Fatalf("%q: Eval allocated %v times", src, a)
		}
	})
}
