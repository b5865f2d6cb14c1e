// Package texttable is txnbench's one writer of column-aligned text tables
// (the run summary's, the study's and suite's Markdown tables and diff's)
// and the one format of the numbers in them (number.go). It is a leaf
// beside package report so that the packages report imports (study) can
// render through it too.
package texttable
