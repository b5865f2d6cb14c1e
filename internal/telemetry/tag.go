package telemetry

import "strings"

// tagPrefix starts the comment workload.OpTag puts before an op's SQL.
const tagPrefix = "/* txnbench op="

// ownTag marks the telemetry session's own statements, so they are never
// counted as the run's.
const ownTag = "/* txnbench telemetry */ "

// ParseOpTag returns the op named by a leading workload.OpTag comment in
// query ("/* txnbench op=NAME */ ..."), after any leading white space, and
// whether there was one. A name is what lies between "op=" and the next
// " */"; an empty name is no tag.
func ParseOpTag(query string) (string, bool) {
	q := strings.TrimLeft(query, " \t\r\n")
	if !strings.HasPrefix(q, tagPrefix) {
		return "", false
	}
	rest := q[len(tagPrefix):]
	end := strings.Index(rest, " */")
	if end <= 0 {
		return "", false
	}
	return rest[:end], true
}
