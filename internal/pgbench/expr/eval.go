package expr

import (
	"fmt"
	"math"

	"github.com/txnbench/txnbench/internal/pgbench/prng"
)

// Env gives Eval a client's variables and random state.
type Env interface {
	// Var returns a variable's value. For a variable holding a string it
	// is ParseValue's result (pgbench converts it on first use and keeps
	// the value); a missing variable is an error with pgbench's message
	// `undefined variable "name"` (see UndefinedVariable).
	Var(name string) (Value, error)
	// Rand is the client's random state (pgbench's cs_func_rs).
	Rand() *prng.State
}

// Debugger is implemented by an Env that wants debug() output. pgbench
// writes "debug(script=S,command=C): " followed by v.DebugString() and a
// newline to stderr; an Env without Debug drops it.
type Debugger interface {
	Debug(v Value)
}

// EvalError is a runtime error of an expression. Msg is the line pgbench
// logs as "pgbench: error: <Msg>" before it reports the client aborted
// with "evaluation of meta-command failed"; it is empty in the one case
// where pgbench logs no line of its own (an empty string variable).
type EvalError struct {
	Msg string
}

func (e *EvalError) Error() string {
	if e.Msg == "" {
		return "evaluation of meta-command failed"
	}
	return e.Msg
}

// UndefinedVariable is the error an Env returns for a missing variable.
func UndefinedVariable(name string) error {
	return &EvalError{Msg: "undefined variable \"" + name + "\""}
}

func errorf(format string, args ...any) error {
	return &EvalError{Msg: fmt.Sprintf(format, args...)}
}

func errMsg(msg string) error { return &EvalError{Msg: msg} }

// Eval evaluates the expression for one client. It allocates only to
// report an error.
func (e *Expr) Eval(env Env) (Value, error) {
	return e.root.eval(env)
}

type node interface {
	eval(env Env) (Value, error)
}

type constNode struct{ v Value }

func (n *constNode) eval(Env) (Value, error) { return n.v, nil }

type varNode struct{ name string }

func (n *varNode) eval(env Env) (Value, error) { return env.Var(n.name) }

// binNode is a two-argument standard function: operators, mod, pow, hash.
type binNode struct {
	op   fn
	a, b node
}

func (n *binNode) eval(env Env) (Value, error) {
	a, err := n.a.eval(env)
	if err != nil {
		return Value{}, err
	}
	b, err := n.b.eval(env)
	if err != nil {
		return Value{}, err
	}
	if a.Kind == Null || b.Kind == Null {
		return Value{}, nil
	}
	return binary(n.op, a, b)
}

// isNode is "a IS NULL/TRUE/FALSE": same type and same boolean.
type isNode struct {
	a    node
	want Value
}

func (n *isNode) eval(env Env) (Value, error) {
	a, err := n.a.eval(env)
	if err != nil {
		return Value{}, err
	}
	return BoolValue(a.Kind == n.want.Kind && unionBool(a) == n.want.B), nil
}

// unionBool is what pgbench's "u.bval" reads for any value: the low byte
// of the int or double stored in the same union.
func unionBool(v Value) bool {
	switch v.Kind {
	case Bool:
		return v.B
	case Int:
		return v.I&0xff != 0
	case Double:
		return math.Float64bits(v.D)&0xff != 0
	}
	return false
}

type unNode struct {
	op fn
	a  node
}

func (n *unNode) eval(env Env) (Value, error) {
	a, err := n.a.eval(env)
	if err != nil {
		return Value{}, err
	}
	if n.op == fDebug {
		if d, ok := env.(Debugger); ok {
			d.Debug(a)
		}
		return a, nil
	}
	if a.Kind == Null {
		return Value{}, nil
	}
	switch n.op {
	case fNot:
		b, err := toBool(a)
		if err != nil {
			return Value{}, err
		}
		return BoolValue(!b), nil
	case fAbs:
		switch a.Kind {
		case Int:
			if a.I < 0 {
				return IntValue(-a.I), nil
			}
			return a, nil
		case Bool:
			// pgbench reads the union as a double.
			a = DoubleValue(math.Float64frombits(boolBits(a.B)))
		}
		if a.D < 0 {
			return DoubleValue(-a.D), nil
		}
		return a, nil
	case fInt:
		i, err := toInt(a)
		if err != nil {
			return Value{}, err
		}
		return IntValue(i), nil
	}
	d, err := toDouble(a)
	if err != nil {
		return Value{}, err
	}
	switch n.op {
	case fSqrt:
		d = math.Sqrt(d)
	case fLn:
		d = prng.Log(d)
	case fExp:
		d = prng.Exp(d)
	}
	return DoubleValue(d), nil
}

func boolBits(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// maxFargs is pgbench's MAX_FARGS.
const maxFargs = 16

// callNode is a standard function with other argument counts.
type callNode struct {
	op   fn
	args []node
}

// fewFargs is how many arguments most calls have: their values are
// kept in a buffer of this size, so that a call does not zero room for
// maxFargs of them (a 512-byte buffer: 170 instructions per call).
const fewFargs = 4

func (n *callNode) eval(env Env) (Value, error) {
	if len(n.args) <= fewFargs {
		var buf [fewFargs]Value
		return n.call(env, buf[:len(n.args)])
	}
	var buf [maxFargs]Value
	return n.call(env, buf[:min(len(n.args), maxFargs)])
}

// call evaluates the arguments into args (as many as fit) and applies
// the function.
func (n *callNode) call(env Env, args []Value) (Value, error) {
	hasNull := false
	for i := range args {
		v, err := n.args[i].eval(env)
		if err != nil {
			return Value{}, err
		}
		args[i] = v
		hasNull = hasNull || v.Kind == Null
	}
	if len(n.args) > maxFargs {
		return Value{}, errorf("too many function arguments, maximum is %d", maxFargs)
	}
	if hasNull {
		return Value{}, nil
	}
	switch n.op {
	case fPi:
		return DoubleValue(math.Pi), nil
	case fLeast, fGreatest:
		return extremum(n.op == fLeast, args)
	case fPermute:
		val, err := toInt(args[0])
		if err != nil {
			return Value{}, err
		}
		size, err := toInt(args[1])
		if err != nil {
			return Value{}, err
		}
		seed, err := toInt(args[2])
		if err != nil {
			return Value{}, err
		}
		if size <= 0 {
			return Value{}, errMsg("permute size parameter must be greater than zero")
		}
		return IntValue(prng.Permute(val, size, seed)), nil
	}
	return random(n.op, args, env)
}

func extremum(least bool, args []Value) (Value, error) {
	double := false
	for _, a := range args {
		if a.Kind == Double {
			double = true
			break
		}
	}
	if double {
		ext, err := fold(args, toDouble, least)
		if err != nil {
			return Value{}, err
		}
		return DoubleValue(ext), nil
	}
	ext, err := fold(args, toInt, least)
	if err != nil {
		return Value{}, err
	}
	return IntValue(ext), nil
}

// fold is the least or greatest of args converted by conv, as C's Min/Max
// macros pick it, NaN behaviour included: a comparison with NaN is false,
// so the next argument is taken.
func fold[T int64 | float64](args []Value, conv func(Value) (T, error), least bool) (T, error) {
	ext, err := conv(args[0])
	if err != nil {
		return ext, err
	}
	for _, a := range args[1:] {
		x, err := conv(a)
		if err != nil {
			return ext, err
		}
		if least && !(ext < x) || !least && !(ext > x) {
			ext = x
		}
	}
	return ext, nil
}

// Parameter limits of pgbench's random functions.
const (
	minGaussianParam = 2.0
	minZipfianParam  = 1.001
	maxZipfianParam  = 1000.0
)

func random(op fn, args []Value, env Env) (Value, error) {
	imin, err := toInt(args[0])
	if err != nil {
		return Value{}, err
	}
	imax, err := toInt(args[1])
	if err != nil {
		return Value{}, err
	}
	if imin > imax {
		return Value{}, errMsg("empty range given to random")
	}
	delta := imax - imin
	if delta < 0 || delta == math.MaxInt64 { // imax-imin or +1 overflowed
		return Value{}, errMsg("random range is too large")
	}
	if op == fRandom {
		return IntValue(env.Rand().Rand(imin, imax)), nil
	}
	param, err := toDouble(args[2])
	if err != nil {
		return Value{}, err
	}
	switch op {
	case fRandomGaussian:
		if param < minGaussianParam {
			return Value{}, errorf("gaussian parameter must be at least %s (not %s)", formatF(minGaussianParam), formatF(param))
		}
		return IntValue(env.Rand().Gaussian(imin, imax, param)), nil
	case fRandomZipfian:
		// pgbench lets a NaN parameter through and then loops forever;
		// refuse it instead.
		if param < minZipfianParam || param > maxZipfianParam || param != param {
			return Value{}, errorf("zipfian parameter must be in range [1.001, 1000] (not %s)", formatF(param))
		}
		return IntValue(env.Rand().Zipfian(imin, imax, param)), nil
	}
	if param <= 0.0 {
		return Value{}, errorf("exponential parameter must be greater than zero (not %s)", formatF(param))
	}
	return IntValue(env.Rand().Exponential(imin, imax, param)), nil
}

// logicNode (AND, OR) and caseNode evaluate lazily, as pgbench's
// evalLazyFunc.
type logicNode struct {
	a, b node
	or   bool // OR: a true a decides; AND: a false a decides
}

func (n *logicNode) eval(env Env) (Value, error) {
	a, err := lazyBool(n.a, env)
	if err != nil || a.Kind == Null || a.B == n.or {
		return a, err
	}
	return lazyBool(n.b, env)
}

// lazyBool is n's value as a boolean, or null.
func lazyBool(n node, env Env) (Value, error) {
	b, err := n.eval(env)
	if err != nil || b.Kind == Null {
		return Value{}, err
	}
	bb, err := toBool(b)
	if err != nil {
		return Value{}, err
	}
	return BoolValue(bb), nil
}

type caseNode struct {
	whens, thens []node
	els          node
}

func (n *caseNode) eval(env Env) (Value, error) {
	for i, w := range n.whens {
		c, err := w.eval(env)
		if err != nil {
			return Value{}, err
		}
		if Truth(c) {
			return n.thens[i].eval(env)
		}
	}
	return n.els.eval(env)
}

// Truth is pgbench's valueTruth, used by CASE and by \if and \elif: NULL is
// false, numbers are true when not zero.
func Truth(v Value) bool {
	switch v.Kind {
	case Bool:
		return v.B
	case Int:
		return v.I != 0
	case Double:
		return v.D != 0
	}
	return false
}

func toBool(v Value) (bool, error) {
	if v.Kind == Bool {
		return v.B, nil
	}
	return false, errMsg("cannot coerce " + v.Kind.String() + " to boolean")
}

func toInt(v Value) (int64, error) {
	switch v.Kind {
	case Int:
		return v.I, nil
	case Double:
		d := math.RoundToEven(v.D)
		if d != d || !(d >= -0x1p63 && d < 0x1p63) {
			return 0, errorf("double to int overflow for %s", formatF(d))
		}
		return int64(d), nil
	}
	return 0, errMsg("cannot coerce " + v.Kind.String() + " to int")
}

func toDouble(v Value) (float64, error) {
	switch v.Kind {
	case Double:
		return v.D, nil
	case Int:
		return float64(v.I), nil
	}
	return 0, errMsg("cannot coerce " + v.Kind.String() + " to double")
}

// doubles are a and b as doubles.
func doubles(a, b Value) (float64, float64, error) {
	ld, err := toDouble(a)
	if err != nil {
		return 0, 0, err
	}
	rd, err := toDouble(b)
	return ld, rd, err
}

func binary(op fn, a, b Value) (Value, error) {
	switch op {
	case fAdd, fSub, fMul, fDiv, fLT, fLE, fEQ, fNE:
		if a.Kind == Double || b.Kind == Double {
			ld, rd, err := doubles(a, b)
			if err != nil {
				return Value{}, err
			}
			switch op {
			case fAdd:
				return DoubleValue(ld + rd), nil
			case fSub:
				return DoubleValue(ld - rd), nil
			case fMul:
				return DoubleValue(ld * rd), nil
			case fDiv:
				return DoubleValue(ld / rd), nil
			case fLT:
				return BoolValue(ld < rd), nil
			case fLE:
				return BoolValue(ld <= rd), nil
			case fEQ:
				return BoolValue(ld == rd), nil
			default:
				return BoolValue(ld != rd), nil
			}
		}
	case fPow:
		ld, rd, err := doubles(a, b)
		if err != nil {
			return Value{}, err
		}
		return DoubleValue(prng.Pow(ld, rd)), nil
	}
	li, err := toInt(a)
	if err != nil {
		return Value{}, err
	}
	ri, err := toInt(b)
	if err != nil {
		return Value{}, err
	}
	switch op {
	case fAdd:
		r := li + ri
		if (r > li) != (ri > 0) {
			return Value{}, errMsg("bigint add out of range")
		}
		return IntValue(r), nil
	case fSub:
		r := li - ri
		if (r < li) != (ri > 0) {
			return Value{}, errMsg("bigint sub out of range")
		}
		return IntValue(r), nil
	case fMul:
		r := li * ri
		if li != 0 && (r/li != ri || (li == -1 && ri == math.MinInt64) || (ri == -1 && li == math.MinInt64)) {
			return Value{}, errMsg("bigint mul out of range")
		}
		return IntValue(r), nil
	case fLT:
		return BoolValue(li < ri), nil
	case fLE:
		return BoolValue(li <= ri), nil
	case fEQ:
		return BoolValue(li == ri), nil
	case fNE:
		return BoolValue(li != ri), nil
	case fDiv, fMod:
		if ri == 0 {
			return Value{}, errMsg("division by zero")
		}
		if ri == -1 {
			if op == fMod {
				return IntValue(0), nil
			}
			if li == math.MinInt64 {
				return Value{}, errMsg("bigint div out of range")
			}
			return IntValue(-li), nil
		}
		if op == fDiv {
			return IntValue(li / ri), nil
		}
		return IntValue(li % ri), nil
	case fBitAnd:
		return IntValue(li & ri), nil
	case fBitOr:
		return IntValue(li | ri), nil
	case fBitXor:
		return IntValue(li ^ ri), nil
	case fLShift:
		// x86 masks the shift count to 6 bits.
		return IntValue(li << (uint64(ri) & 63)), nil
	case fRShift:
		return IntValue(li >> (uint64(ri) & 63)), nil
	case fHashMurmur2:
		return IntValue(prng.HashMurmur2(li, uint64(ri))), nil
	case fHashFNV1a:
		return IntValue(prng.HashFNV1a(li, uint64(ri))), nil
	}
	return Value{}, errMsg("unknown function")
}

// collectVars calls f for every variable read, in evaluation order.
func collectVars(n node, f func(string)) {
	switch n := n.(type) {
	case *varNode:
		f(n.name)
	case *binNode:
		collectVars(n.a, f)
		collectVars(n.b, f)
	case *unNode:
		collectVars(n.a, f)
	case *isNode:
		collectVars(n.a, f)
	case *callNode:
		for _, a := range n.args {
			collectVars(a, f)
		}
	case *logicNode:
		collectVars(n.a, f)
		collectVars(n.b, f)
	case *caseNode:
		for i := range n.whens {
			collectVars(n.whens[i], f)
			collectVars(n.thens[i], f)
		}
		collectVars(n.els, f)
	}
}
