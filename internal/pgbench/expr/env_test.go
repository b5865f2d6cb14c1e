package expr_test

import (
	"github.com/txnbench/txnbench/internal/pgbench/expr"
	"github.com/txnbench/txnbench/internal/pgbench/prng"
)

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
