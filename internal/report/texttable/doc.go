// Package texttable is txnbench's one writer of column-aligned text tables
// (the run summary's; study.md's, suite.md's and diff's Markdown tables),
// the one escaping of text put into Markdown (Escape) and the one format
// of the numbers in them (number.go). It is a leaf
// beside package report so that the packages report imports (study) can
// render through it too.
package texttable
