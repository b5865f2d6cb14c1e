// Package errclass names the kinds of error a run counts (connect_refused,
// serialization, deadlock, ...) and says which are retried. It is a leaf:
// target's drivers classify errors into these classes and result's readers
// (report, diff, study) print them, and neither has to import the other
// for it.
package errclass
