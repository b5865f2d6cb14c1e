// Package study turns one run specification and named variations into the
// cells of a comparison (the cross product of the variations), orders
// their repetitions, and summarises and compares their results: per op
// medians and spread across repetitions, the change against the first
// cell, and a throughput-vs-concurrency ladder when clients vary.
package study
