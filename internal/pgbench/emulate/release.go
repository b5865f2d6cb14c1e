package emulate

import (
	"strings"
)

// release is the pgbench whose behaviour txnbench pgbench follows where
// pgbench's releases differ (--pgbench-version): 17's by default, or 15's.
type release struct {
	major   string // as --pgbench-version names it
	version string // the release pgbench --version prints
}

// The releases txnbench pgbench follows. 16's pgbench has none of the
// differences txnbench models (--exit-on-abort and \syncpipeline came
// with 17), so it is not offered apart from 15.
var (
	pgbench15 = release{major: "15", version: "15.18"}
	pgbench17 = release{major: "17", version: "17.10"}
)

// has17 reports whether the release has pgbench 17's additions:
// --exit-on-abort and \syncpipeline.
func (r release) has17() bool { return r.major == "17" }

// takeRelease finds --pgbench-version among args (before any "--"),
// wherever it stands, and returns the release it names and the other
// arguments: it decides how pgbench's options are read, so it is read
// before them.
func takeRelease(args []string) (release, []string, error) {
	r, rest := pgbench17, make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(a, "=")
		if name != "--pgbench-version" {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 == len(args) {
				return r, nil, badOption("--pgbench-version needs a release: choose 15 or 17")
			}
			i++
			val = args[i]
		}
		switch val {
		case "15":
			r = pgbench15
		case "17":
			r = pgbench17
		default:
			return r, nil, badOption("invalid --pgbench-version \"%s\": choose 15 or 17", val)
		}
	}
	return r, rest, nil
}
