package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/pgbench/cscan"
)

// Kind is the type of a Value.
type Kind uint8

// The kinds of pgbench values. The zero Value is Null.
const (
	Null Kind = iota
	Bool
	Int
	Double
)

// String names the kind as pgbench's messages do.
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Int:
		return "int"
	case Double:
		return "double"
	}
	return "none"
}

// Value is one pgbench value: NULL, a boolean, a bigint or a double.
type Value struct {
	Kind Kind
	I    int64
	D    float64
	B    bool
}

// NullValue, BoolValue, IntValue and DoubleValue build values.
func NullValue() Value            { return Value{} }
func BoolValue(b bool) Value      { return Value{Kind: Bool, B: b} }
func IntValue(i int64) Value      { return Value{Kind: Int, I: i} }
func DoubleValue(d float64) Value { return Value{Kind: Double, D: d} }

// String renders the value as pgbench substitutes it into SQL and shell
// commands: NULL, true/false, a decimal bigint, or a double as %.15g.
func (v Value) String() string {
	var buf [32]byte
	return string(v.Append(buf[:0]))
}

// Append appends String's text to dst without allocating when dst has room.
func (v Value) Append(dst []byte) []byte {
	switch v.Kind {
	case Bool:
		if v.B {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Int:
		return strconv.AppendInt(dst, v.I, 10)
	case Double:
		return appendDouble(dst, v.D)
	}
	return append(dst, "NULL"...)
}

// DebugString is the text pgbench's debug() prints after its
// "debug(script=N,command=M): " prefix: "int 4", "double 1.5",
// "boolean true" or "null".
func (v Value) DebugString() string {
	switch v.Kind {
	case Bool:
		return "boolean " + v.String()
	case Int:
		return "int " + v.String()
	case Double:
		return "double " + v.String()
	}
	return "null"
}

// appendDouble is pgbench's printf("%.15g") (PostgreSQL's own snprintf):
// like C for finite values, "NaN", "Infinity" and "-Infinity" otherwise.
func appendDouble(dst []byte, d float64) []byte {
	switch {
	case math.IsNaN(d):
		return append(dst, "NaN"...)
	case math.IsInf(d, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(d, -1):
		return append(dst, "-Infinity"...)
	}
	return strconv.AppendFloat(dst, d, 'g', 15, 64)
}

// formatF is pgbench's printf("%f"), used in its error messages.
func formatF(d float64) string {
	switch {
	case math.IsNaN(d):
		return "NaN"
	case math.IsInf(d, 1):
		return "Infinity"
	case math.IsInf(d, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(d, 'f', 6, 64)
}

// ParseValue converts a string variable (from -D, \gset, \aset, \setshell)
// into a value the way pgbench's makeVariableValue does when an expression
// reads it: "null" (any case) is NULL; prefixes of true/yes and "on" are
// true, prefixes of false/no and "off"/"of" are false; text that looks like
// an integer ("^\s*[-+]?[0-9]+$") must be a bigint; anything else must be
// a double as strtod reads it (" 1.5", "1e3", "inf", "nan", hex floats).
// The error carries pgbench's message for variable name; an empty string
// fails with an empty message, as pgbench prints nothing of its own then.
func ParseValue(name, s string) (Value, error) {
	if s == "" {
		return Value{}, &EvalError{}
	}
	if strings.EqualFold(s, "null") {
		return Value{}, nil
	}
	if prefixFold(s, "true") || prefixFold(s, "yes") || strings.EqualFold(s, "on") {
		return BoolValue(true), nil
	}
	if prefixFold(s, "false") || prefixFold(s, "no") || strings.EqualFold(s, "off") || strings.EqualFold(s, "of") {
		return BoolValue(false), nil
	}
	if isAnInt(s) {
		i, ok, rangeErr := strToInt64(s)
		if !ok {
			if rangeErr {
				return Value{}, &EvalError{Msg: "value \"" + s + "\" is out of range for type bigint"}
			}
			return Value{}, &EvalError{Msg: "invalid input syntax for type bigint: \"" + s + "\""}
		}
		return IntValue(i), nil
	}
	d, ok := strToDouble(s)
	if !ok {
		return Value{}, &EvalError{Msg: "malformed variable \"" + name + "\" value: \"" + s + "\""}
	}
	return DoubleValue(d), nil
}

// prefixFold reports pg_strncasecmp(s, word, len(s)) == 0: s is a
// case-insensitive prefix of word (s is not empty).
func prefixFold(s, word string) bool {
	return len(s) <= len(word) && strings.EqualFold(s, word[:len(s)])
}

// isAnInt is pgbench's is_an_int. Like it, it accepts a lone sign or only
// white space, which strToInt64 then rejects.
func isAnInt(s string) bool {
	i, _ := cscan.Sign(s)
	if i < len(s) && !isDigit(s[i]) {
		return false
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i == len(s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// strToInt64 is strtol(s, &end, 10) with the whole string consumed: ok,
// or whether it failed on range.
func strToInt64(s string) (v int64, ok, rangeErr bool) {
	v, end, erange := cscan.Strtol(s)
	switch {
	case end == 0:
		return 0, false, false
	case erange:
		return 0, false, true
	case end != len(s):
		return 0, false, false
	}
	return v, true, false
}
