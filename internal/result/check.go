package result

import "fmt"

// Check is the outcome of an invariant check.
type Check struct {
	OK    bool        `json:"ok"`
	Items []CheckItem `json:"items"`
	// NotChecked, when not empty, says why nothing was verified (custom
	// scripts, a check that timed out); OK is false then, and nothing was
	// found broken either.
	NotChecked string `json:"not_checked,omitempty"`
	// UnknownCommits counts commits whose outcome the client could not learn
	// (connection lost during COMMIT); they widen what the check accepts.
	UnknownCommits int64 `json:"unknown_commits"`
	// Anomalies is the isolation checker's verdict on the run's history,
	// for the workloads that record one; its violations are failed items.
	Anomalies *Anomalies `json:"anomalies,omitempty"`

	// Lost is how much of what the server acknowledged the check found
	// missing, by the workload's ledger (nil: it counts none); after a
	// failover, what the failover lost (Result.LostAtFailover).
	Lost *Lost `json:"lost,omitempty"`
}

// CheckItem is one verified invariant.
type CheckItem struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Add appends an item and keeps OK up to date.
func (c *Check) Add(name string, ok bool, detail string, args ...any) {
	c.Items = append(c.Items, CheckItem{Name: name, OK: ok, Detail: fmt.Sprintf(detail, args...)})
	c.OK = ok && (c.OK || len(c.Items) == 1)
}

// Violated reports whether the check found something broken: OK is false
// and something was verified. A nil check found nothing.
func (c *Check) Violated() bool {
	return c != nil && !c.OK && c.NotChecked == ""
}

// Status is the check's outcome in a few words for a report: "OK",
// "VIOLATED" or "not checked (REASON)"; a nil check is "not checked".
func (c *Check) Status() string {
	switch {
	case c == nil:
		return "not checked"
	case c.Violated():
		return "VIOLATED"
	case c.NotChecked != "":
		return "not checked (" + c.NotChecked + ")"
	}
	return "OK"
}

// Merge adds o's outcome to c, as for parts of one run or repetitions of
// one cell: c stays OK only if both are; a violation in either is one in
// c; otherwise either's NotChecked makes c not checked.
func (c *Check) Merge(o Check) {
	violated := c.Violated() || o.Violated()
	c.OK = c.OK && o.OK
	c.Items = append(c.Items, o.Items...)
	c.UnknownCommits += o.UnknownCommits
	switch {
	case o.Anomalies == nil:
	case c.Anomalies == nil:
		a := *o.Anomalies
		a.Found = append([]Anomaly(nil), a.Found...)
		c.Anomalies = &a
	default:
		c.Anomalies.Merge(o.Anomalies)
	}
	switch {
	case violated:
		c.NotChecked = ""
	case c.NotChecked == "":
		c.NotChecked = o.NotChecked
	}
}
