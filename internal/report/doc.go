// Package report renders Results for people: the final per-op table, the
// progress line, the error classes and the invariant check, and one
// self-contained HTML page with charts of a run or a study (html.go).
package report
