package script

import (
	"fmt"
	"math"
	"strings"

	"github.com/txnbench/txnbench/internal/pgbench/cscan"
)

type builtin struct{ name, desc, text string }

// builtins are pgbench's builtin scripts, text exactly as pgbench's
// (naccounts 100000, nbranches 1, ntellers 10 per scale unit).
var builtins = []builtin{
	{"tpcb-like", "<builtin: TPC-B (sort of)>",
		tpcbStart +
			"UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n" +
			"UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;\n" +
			tpcbEnd},
	{"simple-update", "<builtin: simple update>", tpcbStart + tpcbEnd},
	{"select-only", "<builtin: select only>",
		"\\set aid random(1, 100000 * :scale)\n" +
			"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"},
}

// tpcbStart and tpcbEnd are what tpcb-like and simple-update share: the
// latter leaves out the tellers' and branches' updates in between.
const (
	tpcbStart = "\\set aid random(1, 100000 * :scale)\n" +
		"\\set bid random(1, 1 * :scale)\n" +
		"\\set tid random(1, 10 * :scale)\n" +
		"\\set delta random(-5000, 5000)\n" +
		"BEGIN;\n" +
		"UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n" +
		"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
	tpcbEnd = "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n" +
		"END;\n"
)

// BuiltinNames returns the builtin scripts' names in pgbench's order.
func BuiltinNames() []string {
	names := make([]string, len(builtins))
	for i, b := range builtins {
		names[i] = b.name
	}
	return names
}

// BuiltinError is pgbench's error for a -b or --show-script name that
// matches no builtin or several.
type BuiltinError struct {
	Name  string
	Found int // 0: none; >1: ambiguous prefix
}

// Error implements error, worded like pgbench.
func (e *BuiltinError) Error() string {
	if e.Found == 0 {
		return fmt.Sprintf("no builtin script found for name \"%s\"", e.Name)
	}
	return fmt.Sprintf("ambiguous builtin name: %d builtin scripts found for prefix \"%s\"", e.Found, e.Name)
}

// ListBuiltins returns pgbench's list of builtin scripts, as it prints it
// for "-b list" and after a name error (ending with an empty line).
func ListBuiltins() string {
	var b strings.Builder
	b.WriteString("Available builtin scripts:\n")
	for _, s := range builtins {
		fmt.Fprintf(&b, "  %13s: %s\n", s.name, s.desc)
	}
	b.WriteString("\n")
	return b.String()
}

// findBuiltin finds pgbench's builtin by name or prefix, as pgbench does;
// txnbench's own (extras) only by their whole name, so that every name
// pgbench takes or refuses means what it means to pgbench.
func findBuiltin(name string) (*builtin, error) {
	var found *builtin
	n := 0
	for i := range builtins {
		if strings.HasPrefix(builtins[i].name, name) {
			found = &builtins[i]
			n++
		}
	}
	if n == 0 {
		for i := range extras {
			if extras[i].name == name {
				return &extras[i].builtin, nil
			}
		}
	}
	if n != 1 {
		return nil, &BuiltinError{Name: name, Found: n}
	}
	return found, nil
}

// Builtin parses the builtin script name, or the only builtin whose name
// starts with it, as pgbench -b does. Errors are *BuiltinError.
func Builtin(name string) (*Script, error) {
	b, err := findBuiltin(name)
	if err != nil {
		return nil, err
	}
	s, err := Parse(b.desc, b.text)
	if err != nil {
		return nil, fmt.Errorf("builtin %s: %w", b.name, err)
	}
	s.Name = b.name
	return s, nil
}

// ShowBuiltin returns what pgbench --show-script=NAME prints (to stderr)
// for the builtin name (prefixes allowed, as with -b).
func ShowBuiltin(name string) (string, error) {
	b, err := findBuiltin(name)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("-- %s: %s\n%s\n", b.name, b.desc, b.text), nil
}

// Show returns s in pgbench's --show-script format: a "-- name: desc"
// line, the script text, and an empty line.
func Show(s *Script) string {
	return fmt.Sprintf("-- %s: %s\n%s\n", s.Name, s.Desc, s.Text)
}

// WeightError is pgbench's error for a bad "@weight" suffix.
type WeightError struct {
	Spec  string // the text from the '@' on
	Value int64  // the parsed value when out of range
	Range bool
}

// Error implements error, worded like pgbench.
func (e *WeightError) Error() string {
	if e.Range {
		return fmt.Sprintf("weight specification out of range (0 .. %d): %d", math.MaxInt32, e.Value)
	}
	return "invalid weight specification: " + e.Spec
}

// ParseWeighted splits a -f or -b argument "name@weight" at its last '@'
// like pgbench (weight 1 without '@'). The weight is read like strtol:
// leading spaces and a sign are allowed, nothing may follow the digits.
func ParseWeighted(arg string) (nameOrFile string, weight int, err error) {
	i := strings.LastIndexByte(arg, '@')
	if i < 0 {
		return arg, 1, nil
	}
	spec := arg[i:]
	w := spec[1:]
	v, end, erange := cscan.Strtol(w)
	if end == 0 || end != len(w) || erange {
		return "", 0, &WeightError{Spec: spec}
	}
	if v > math.MaxInt32 || v < 0 {
		return "", 0, &WeightError{Spec: spec, Value: v, Range: true}
	}
	return arg[:i], int(v), nil
}

// DefineError is pgbench's error for a bad -D argument.
type DefineError struct {
	Arg     string
	Name    string
	BadName bool
}

// Error implements error, worded like pgbench.
func (e *DefineError) Error() string {
	if e.BadName {
		return fmt.Sprintf("option: invalid variable name: \"%s\"", e.Name)
	}
	return fmt.Sprintf("invalid variable definition: \"%s\"", e.Arg)
}

// ParseDefine splits a -D NAME=VALUE argument at its first '=' like pgbench:
// both sides must be non-empty and NAME a valid variable name.
func ParseDefine(arg string) (name, value string, err error) {
	i := strings.IndexByte(arg, '=')
	if i <= 0 || i == len(arg)-1 {
		return "", "", &DefineError{Arg: arg}
	}
	name, value = arg[:i], arg[i+1:]
	if !ValidVariableName(name) {
		return "", "", &DefineError{Arg: arg, Name: name, BadName: true}
	}
	return name, value, nil
}

// ValidVariableName reports whether name is a variable name pgbench
// accepts when it creates a variable: a letter, '_' or a high-bit byte,
// then also digits.
func ValidVariableName(name string) bool {
	if name == "" || !isIdentStart(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !isVarChar(name[i]) {
			return false
		}
	}
	return true
}
