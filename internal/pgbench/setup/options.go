package setup

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// DefaultSteps is pgbench's default -I: drop, create tables, generate
// client-side, vacuum, primary keys.
const DefaultSteps = "dtgvp"

// AllSteps lists every initialisation step pgbench knows.
const AllSteps = "dtgGvpf"

// Options are pgbench's initialisation options.
type Options struct {
	Scale      int // -s
	FillFactor int // -F, 10..100
	// ForeignKeys (--foreign-keys) adds the f step when -I lacks it.
	ForeignKeys bool
	Unlogged    bool // --unlogged-tables
	Partitions  int  // --partitions; 0: pgbench_accounts is not partitioned
	// PartitionMethod is --partition-method: "range" or "hash" (any case);
	// "" means range when there are partitions.
	PartitionMethod string
	// Steps is -I: any of "dtgGvpf" and spaces, run in order.
	Steps string
	// NoVacuum (-n) turns every v step into a space.
	NoVacuum bool
	// Tablespace and IndexTablespace are --tablespace and --index-tablespace.
	Tablespace, IndexTablespace string
	// Quiet (-q) logs data generation every 5 seconds instead of every
	// 100,000 rows.
	Quiet bool
	// Terminal ends progress lines with a carriage return, each
	// overwriting the last, as pgbench does when stderr is a terminal.
	Terminal bool
	// Now is the clock of the progress lines (nil: time.Now); a test sets
	// its own so that -q's five-second lines do not follow the machine's speed.
	Now func() time.Time
}

// Defaults returns pgbench's defaults: scale 1, fillfactor 100, steps
// "dtgvp".
func Defaults() Options {
	return Options{Scale: 1, FillFactor: 100, Steps: DefaultSteps}
}

// Error is a pgbench error: Msg is the line pgbench prints after
// "pgbench: error: "; Detail and Hint, when set, are its "detail:" and
// "hint:" lines. Error returns Msg alone.
type Error struct {
	Msg, Detail, Hint string
	Err               error // the cause, if any
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Validate checks o as pgbench checks its initialisation options, with
// pgbench's messages.
func (o Options) Validate() error {
	if o.Scale < 1 {
		return rangeError("-s/--scale", 1, math.MaxInt32)
	}
	if o.FillFactor < 10 || o.FillFactor > 100 {
		return rangeError("-F/--fillfactor", 10, 100)
	}
	if o.Partitions < 0 || o.Partitions > math.MaxInt32 {
		return rangeError("--partitions", 0, math.MaxInt32)
	}
	if _, err := o.method(); err != nil {
		return err
	}
	if err := CheckSteps(o.Steps); err != nil {
		return err
	}
	if o.Partitions == 0 && o.PartitionMethod != "" {
		return &Error{Msg: "--partition-method requires greater than zero --partitions"}
	}
	return nil
}

// method returns the partitioning: "none", "range" or "hash".
func (o Options) method() (string, error) {
	switch m := strings.ToLower(o.PartitionMethod); {
	case m == "range" || m == "hash":
		return m, nil
	case m == "" && o.Partitions > 0:
		return "range", nil
	case m == "":
		return "none", nil
	}
	return "", &Error{Msg: fmt.Sprintf("invalid partition method, expecting \"range\" or \"hash\", got: \"%s\"", o.PartitionMethod)}
}

// CheckPartitionMethod checks a --partition-method argument as pgbench
// does while reading its options ("" is none given).
func CheckPartitionMethod(m string) error {
	_, err := Options{PartitionMethod: m}.method()
	return err
}

// CheckSteps checks an -I argument as pgbench does.
func CheckSteps(steps string) error {
	if steps == "" {
		return &Error{Msg: "no initialization steps specified"}
	}
	for i := 0; i < len(steps); i++ {
		if !strings.ContainsRune(AllSteps+" ", rune(steps[i])) {
			return &Error{
				Msg:    fmt.Sprintf("unrecognized initialization step \"%c\"", steps[i]),
				Detail: "Allowed step characters are: \"" + AllSteps + "\".",
			}
		}
	}
	return nil
}

// EffectiveSteps returns the steps Run runs: -n turns each v into a
// space, --foreign-keys appends f when it is missing.
func (o Options) EffectiveSteps() string {
	s := o.Steps
	if o.NoVacuum {
		s = strings.ReplaceAll(s, "v", " ")
	}
	if o.ForeignKeys && !strings.Contains(s, "f") {
		s += "f"
	}
	return s
}

func rangeError(option string, min, max int) error {
	return &Error{Msg: fmt.Sprintf("%s must be in range %d..%d", option, min, max)}
}

// ParseInt parses an integer option value as pgbench (option_parse_int)
// does: leading and trailing white space is allowed, an empty value is 0,
// and the errors read "invalid value "x" for option -s/--scale" and
// "-s/--scale must be in range 1..2147483647".
func ParseInt(arg, option string, min, max int) (int, error) {
	s := strings.TrimLeft(arg, " \t\n\v\f\r")
	end := 0
	if end < len(s) && (s[end] == '+' || s[end] == '-') {
		end++
	}
	digits := end
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == digits { // strtol consumed nothing: the value is 0
		end = 0
	}
	if strings.Trim(s[end:], " \t\n\v\f\r") != "" {
		return 0, &Error{Msg: fmt.Sprintf("invalid value \"%s\" for option %s", arg, option)}
	}
	v := int64(0)
	if end > 0 {
		var err error
		v, err = strconv.ParseInt(s[:end], 10, 32)
		if err != nil {
			return 0, rangeError(option, min, max)
		}
	}
	if v < int64(min) || v > int64(max) {
		return 0, rangeError(option, min, max)
	}
	return int(v), nil
}
