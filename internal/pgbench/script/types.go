package script

import (
	"fmt"

	"github.com/txnbench/txnbench/internal/pgbench/expr"
)

// Script is one parsed pgbench script (a -f file or a -b builtin).
type Script struct {
	Name     string // the file name as given, or the builtin's short name ("tpcb-like")
	Weight   int    // relative weight from name@weight, 1 by default
	Commands []*Command
	Desc     string // what pgbench calls the script: the file name, or "<builtin: ...>"
	Text     string // the source text
}

// CmdKind tells SQL commands from meta (backslash) commands.
type CmdKind uint8

// Command kinds.
const (
	SQL CmdKind = iota
	Meta
)

// MetaKind is the kind of a backslash meta command.
type MetaKind uint8

// Meta command kinds. \gset and \aset are not commands of their own: they
// are attached to the preceding SQL command's Gset field (kinds metaGset and
// metaAset exist only while parsing).
const (
	NoMeta MetaKind = iota
	Set
	Sleep
	SetShell
	Shell
	If
	Elif
	Else
	Endif
	metaGset
	metaAset
	StartPipeline
	SyncPipeline
	EndPipeline
)

var metaNames = [...]string{
	NoMeta: "", Set: "set", Sleep: "sleep", SetShell: "setshell", Shell: "shell",
	If: "if", Elif: "elif", Else: "else", Endif: "endif", metaGset: "gset", metaAset: "aset",
	StartPipeline: "startpipeline", SyncPipeline: "syncpipeline", EndPipeline: "endpipeline",
}

// String returns the meta command's name without the backslash.
func (k MetaKind) String() string {
	if int(k) < len(metaNames) {
		return metaNames[k]
	}
	return fmt.Sprintf("MetaKind(%d)", k)
}

// Command is one SQL or meta command of a script.
type Command struct {
	Kind  CmdKind
	Line  int    // 1-based line where the command starts
	First string // first line as pgbench -r prints it

	// SQL
	SQL      string   // as written, without the terminating semicolon
	Parts    []Part   // literal text and :variable references, for substitution
	Params   []string // variable names in order for extended/prepared ($1..$n)
	ParamSQL string   // SQL with :vars replaced by $1..$n (extended/prepared)
	Compound int      // number of \; -separated statements (>1: simple protocol only)
	Gset     *Gset    // \gset/\aset attached to this SQL command (nil if none)

	// Meta
	Meta  MetaKind
	Args  []string   // words after the command name, as pgbench splits them (argv[1:])
	Expr  *expr.Expr // \set, \if, \elif
	Var   string     // \set, \setshell target variable
	Sleep SleepArg   // \sleep

	// Else is, for \if and \elif, the index of the command to jump to when the
	// condition is false (the next \elif or \else, or the \endif); End is, for
	// \if, \elif and \else, the index of the matching \endif (jumped to at the
	// end of a taken branch, i.e. when reaching the next \elif/\else).
	Else, End int
}

// SleepArg is a \sleep duration: a constant or a :variable, and a unit.
type SleepArg struct {
	N    int64  // the constant, when Var is empty
	Var  string // variable name (without ':'), or empty
	Unit int64  // microseconds per unit: 1 (us), 1000 (ms) or 1000000 (s)
}

// Part is a piece of an SQL command: literal text or a variable reference
// (exactly one is set).
type Part struct {
	Text string
	Var  string
}

// Gset is a \gset or \aset attached to an SQL command.
type Gset struct {
	Prefix string
	All    bool // \aset: store the rows of all the compound's results
}
