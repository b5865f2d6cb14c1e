// Package report renders Results for people: the final per-op table, the
// progress line, the error classes and the invariant check.
package report
