// Package report renders Results for people: the final per-op table, the
// progress line, the error classes and the invariant check, and one
// self-contained HTML page with charts of a run or a study (html.go),
// and the reports of what study, suite and diff compute: study.md and
// capacity.md (study.go), suite.md (suite.go), the comparisons (diff.go).
package report
